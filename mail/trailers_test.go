package mail

import (
	"reflect"
	"testing"
)

func TestParseTrailers(t *testing.T) {
	msg := `pipe: fix lost wakeup

Some text. Fixes: in the middle of prose is not a trailer line start
> Reviewed-by: quoted <q@example.com>
  Signed-off-by: indented continuation is not a trailer

Fixes: 0ddad21d3e99 ("pipe: use exclusive waits when reading or writing")
Reported-by: Andrei Vagin <avagin@gmail.com>
Suggested-by: Linus Torvalds <torvalds@linux-foundation.org>
Tested-by: Josh Triplett <josh@joshtriplett.org>
Reviewed-by: Jason Baron <jbaron@akamai.com>
Acked-by: David Howells <dhowells@redhat.com>
Co-developed-by: A <a@example.com>
Debugged-By: B <b@example.com>
Link: https://lore.kernel.org/r/20200430130326.1368509-2-rpenyaev@suse.de#frag
Closes: https://bugzilla.kernel.org/show_bug.cgi?id=1
Cc: stable@vger.kernel.org # 5.4+
Cc: <stable@vger.kernel.org> # v5.4.x
cc: Alexander Viro <viro@zeniv.linux.org.uk>
Signed-off-by: Roman Penyaev <rpenyaev@suse.de>
Random-Key: not a trailer
`
	want := []Trailer{
		{Key: "Fixes", Value: `0ddad21d3e99 ("pipe: use exclusive waits when reading or writing")`},
		{Key: "Reported-by", Value: "Andrei Vagin <avagin@gmail.com>"},
		{Key: "Suggested-by", Value: "Linus Torvalds <torvalds@linux-foundation.org>"},
		{Key: "Tested-by", Value: "Josh Triplett <josh@joshtriplett.org>"},
		{Key: "Reviewed-by", Value: "Jason Baron <jbaron@akamai.com>"},
		{Key: "Acked-by", Value: "David Howells <dhowells@redhat.com>"},
		{Key: "Co-developed-by", Value: "A <a@example.com>"},
		{Key: "Debugged-by", Value: "B <b@example.com>"},
		{Key: "Link", Value: "https://lore.kernel.org/r/20200430130326.1368509-2-rpenyaev@suse.de#frag"},
		{Key: "Closes", Value: "https://bugzilla.kernel.org/show_bug.cgi?id=1"},
		{Key: "Cc", Value: "stable@vger.kernel.org", Comment: "5.4+"},
		{Key: "Cc", Value: "<stable@vger.kernel.org>", Comment: "v5.4.x"},
		{Key: "Cc", Value: "Alexander Viro <viro@zeniv.linux.org.uk>"},
		{Key: "Signed-off-by", Value: "Roman Penyaev <rpenyaev@suse.de>"},
	}
	got := parseTrailers(msg)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("parseTrailers:\n got %+v\nwant %+v", got, want)
	}
}

func TestStableTags(t *testing.T) {
	tests := []struct {
		line string
		want []StableTag
	}{
		{"Cc: stable@vger.kernel.org", []StableTag{{Addr: "stable@vger.kernel.org", Plus: true}}},
		{"Cc: <stable@vger.kernel.org> # 5.4+", []StableTag{{Addr: "stable@vger.kernel.org", Since: "5.4", Plus: true, Raw: "5.4+"}}},
		{"Cc: stable@vger.kernel.org # v5.4.x", []StableTag{{Addr: "stable@vger.kernel.org", Since: "5.4", Plus: true, Raw: "v5.4.x"}}},
		{"Cc: stable@vger.kernel.org # 5.4", []StableTag{{Addr: "stable@vger.kernel.org", Since: "5.4", Plus: true, Raw: "5.4"}}},
		{"Cc: stable@vger.kernel.org # 4.19.x-", []StableTag{{Addr: "stable@vger.kernel.org", Since: "4.19", Plus: true, Raw: "4.19.x-"}}},
		{"Cc: stable@vger.kernel.org # 4.19.x-5.4.x", []StableTag{{Addr: "stable@vger.kernel.org", Since: "4.19", Until: "5.4", Plus: true, Raw: "4.19.x-5.4.x"}}},
		{"Cc: stable@vger.kernel.org # 5.10 only", []StableTag{{Addr: "stable@vger.kernel.org", Since: "5.10", Only: true, Raw: "5.10 only"}}},
		{"Cc: stable@vger.kernel.org # only 6.1", []StableTag{{Addr: "stable@vger.kernel.org", Since: "6.1", Only: true, Raw: "only 6.1"}}},
		{"Cc: stable@vger.kernel.org # 6.2.x: a1f84a3: sched: Check idle_cpu()", []StableTag{{Addr: "stable@vger.kernel.org", Since: "6.2", Plus: true, Raw: "6.2.x: a1f84a3: sched: Check idle_cpu()"}}},
		{"Cc: stable@vger.kernel.org # after -rc1", []StableTag{{Addr: "stable@vger.kernel.org", Plus: true, Raw: "after -rc1"}}},
		{"Cc: Stable <stable@kernel.org>", []StableTag{{Addr: "stable@kernel.org", Plus: true}}},
		{"Cc: linux-kernel@vger.kernel.org # 5.4+", nil},
		{"Reviewed-by: stable@vger.kernel.org", nil},
	}
	for _, tt := range tests {
		m := &Message{Trailers: parseTrailers(tt.line + "\n")}
		got := StableTags(m)
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("StableTags(%q)\n got %+v\nwant %+v", tt.line, got, tt.want)
		}
	}
}

func TestFixes(t *testing.T) {
	tests := []struct {
		line string
		want []Fix
	}{
		{`Fixes: 339ddb53d373 ("fs/epoll: remove unnecessary wakeups of nested epoll")`,
			[]Fix{{SHA: "339ddb53d373", Subject: "fs/epoll: remove unnecessary wakeups of nested epoll"}}},
		{`Fixes: 1234567890AB ("a (nested) "quoted" subject")`,
			[]Fix{{SHA: "1234567890ab", Subject: `a (nested) "quoted" subject`}}},
		{`Fixes: 0ddad21d3e99c743a3aa473121dc5561679e26bb`, []Fix{{SHA: "0ddad21d3e99c743a3aa473121dc5561679e26bb"}}},
		{`Fixes: commit 1234567 ("x")`, []Fix{{SHA: "1234567", Subject: "x"}}},
		{`Fixes: https://bugzilla.kernel.org/1`, nil},
		{`Fixes: 123456 ("too short")`, nil},
	}
	for _, tt := range tests {
		m := &Message{Trailers: parseTrailers(tt.line + "\n")}
		if got := Fixes(m); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Fixes(%q)\n got %+v\nwant %+v", tt.line, got, tt.want)
		}
	}
}

func TestParseUpstream(t *testing.T) {
	tests := []struct{ in, want string }{
		{"[ Upstream commit 0ddad21d3e99c743a3aa473121dc5561679e26bb ]\n", "0ddad21d3e99c743a3aa473121dc5561679e26bb"},
		{"commit 412895f03cbf9633298111cb4dfde13b7720e2c5 upstream.\n\nThis patch", "412895f03cbf9633298111cb4dfde13b7720e2c5"},
		{"text\n[ upstream commit ABCDEF1234567 ]\n", "abcdef1234567"},
		{"this is not commit 412895f03cbf9633 upstream of anything\n", ""},
		{"", ""},
	}
	for _, tt := range tests {
		if got := parseUpstream(tt.in); got != tt.want {
			t.Errorf("parseUpstream(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
