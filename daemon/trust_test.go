package daemon

import (
	"context"
	"strings"
	"testing"

	"github.com/autosel-bot/autosel-bot/deliver"
)

func TestTrusted(t *testing.T) {
	o := CommandOptions{Trust: []TrustOptions{
		{List: "linux-mm.kvack.org", Maintainers: []string{"Andrew <akpm@linux-foundation.org>"}, Patterns: []string{"*@kernel.org"}},
		{List: "*.vger.kernel.org", Author: true},
	}}
	for _, tc := range []struct {
		list, sender, author string
		want                 bool
	}{
		{"<linux-mm.kvack.org>", "AKPM@linux-foundation.org", "", true},
		{"linux-mm@kvack.org", "akpm@linux-foundation.org", "", true},
		{"linux-mm.kvack.org", "willy@kernel.org", "", true},
		{"linux-mm.kvack.org", "dev@example.org", "dev@example.org", false}, // no author trust on linux-mm
		{"linux-kernel.vger.kernel.org", "akpm@linux-foundation.org", "", false},
		{"linux-kernel.vger.kernel.org", "Dev@Example.org", "dev@example.org", true},
		{"linux-kernel.vger.kernel.org", "other@example.org", "dev@example.org", false},
		{"linux-kernel.vger.kernel.org", "", "", false},
	} {
		if got := o.trusted(tc.list, tc.sender, tc.author); got != tc.want {
			t.Errorf("%s on %s (author %s): trusted %v, want %v", tc.sender, tc.list, tc.author, got, tc.want)
		}
	}
	for _, bad := range []CommandOptions{
		{Trust: []TrustOptions{{List: ""}}},
		{Trust: []TrustOptions{{List: "*", Patterns: []string{"[x"}}}},
	} {
		if err := bad.Validate(); err == nil || !strings.Contains(err.Error(), "commands.trust[0]") {
			t.Errorf("Validate(%+v) = %v", bad, err)
		}
	}
}

// TestClassifyCommands: a reply with "#autosel" lines is a command mail
// when commands are on (not a quoted one, not a new patch, not the bot's
// own, not from another bot); off, it is mail without a patch.
func TestClassifyCommands(t *testing.T) {
	patch := "\n\nfix\n\n#autosel test in a commit message\n---\ndiff --git a/f.c b/f.c\n--- a/f.c\n+++ b/f.c\n@@ -1 +1 @@\n-a\n+b\n"
	msgs := []struct {
		id, head, body, on, off string
	}{
		{"cmd@x", "From: a@x.org\nSubject: Re: [PATCH] x\nIn-Reply-To: <p@x>", "\n\n#autosel help\n", "command", "skipped"},
		{"quoted@x", "From: a@x.org\nSubject: Re: [PATCH] x\nIn-Reply-To: <p@x>", "\n\n> #autosel help\nno\n", "skipped", "skipped"},
		{"norefs@x", "From: a@x.org\nSubject: about x", "\n\n#autosel help\n", "skipped", "skipped"},
		{"patch@x", "From: a@x.org\nSubject: [PATCH v2] x\nIn-Reply-To: <p@x>", patch, "pending", "pending"},
		{"bot@x", "From: ci-bot@example.org\nSubject: Re: [PATCH] x\nIn-Reply-To: <p@x>", "\n\n#autosel help\n", "skipped", "skipped"},
	}
	for _, on := range []bool{true, false} {
		opts := Options{Bots: []string{"*bot@*"}}
		if on {
			opts.Commands = CommandOptions{Enabled: true, Trust: []TrustOptions{{List: "*", Author: true}}}
			opts.Commander = commandEnv(t).d.opts.Commander
		}
		e := newEnv(t, opts, deliver.Options{}, nil, nil)
		for _, m := range msgs {
			feed(t, e.d, []byte(m.head+"\nMessage-ID: <"+m.id+">\nDate: Mon, 1 Jan 2024 00:00:00 +0000"+m.body))
		}
		for _, m := range msgs {
			got, err := e.st.GetMessage(context.Background(), m.id)
			if err != nil {
				t.Fatalf("%s: %v", m.id, err)
			}
			want := m.off
			if on {
				want = m.on
			}
			if got.Status != want {
				t.Errorf("commands %v: %s: %s (%s), want %s", on, m.id, got.Status, got.Reason, want)
			}
		}
		if cs, _ := e.st.PendingCommands(context.Background()); on != (len(cs) == 1) {
			t.Errorf("commands %v: %d command mails recorded", on, len(cs))
		}
	}
}
