package mail

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestParseSubject(t *testing.T) {
	tests := []struct {
		in   string
		want Subject
	}{
		{"[PATCH] pipe: fix a thing", Subject{Patch: true, Version: 1, Title: "pipe: fix a thing"}},
		{"[PATCH v5 1/2] watch_queue: refactor post_one_notification",
			Subject{Patch: true, Version: 5, Number: 1, Total: 2, Title: "watch_queue: refactor post_one_notification"}},
		{"[RFC PATCH v2 0/7] mm: big change", Subject{Patch: true, RFC: true, Version: 2, Number: 0, Total: 7, Title: "mm: big change"}},
		{"[PATCH RESEND] foo: bar", Subject{Patch: true, Resend: true, Version: 1, Title: "foo: bar"}},
		{"[PATCHv3] foo: bar", Subject{Patch: true, Version: 3, Title: "foo: bar"}},
		{"[PATCH-v4 2/3] foo: bar", Subject{Patch: true, Version: 4, Number: 2, Total: 3, Title: "foo: bar"}},
		{"[PATCH net-next v2 3/7] net: x", Subject{Patch: true, Tree: "net-next", Version: 2, Number: 3, Total: 7, Title: "net: x"}},
		{"[PATCH AUTOSEL 5.5 542/542] pipe: use exclusive waits when reading or writing",
			Subject{Patch: true, Autosel: "5.5", Version: 1, Number: 542, Total: 542, Title: "pipe: use exclusive waits when reading or writing"}},
		{"[PATCH 5.10 12/40] epoll: atomically remove wait entry on wake up",
			Subject{Patch: true, Stable: "5.10", Version: 1, Number: 12, Total: 40, Title: "epoll: atomically remove wait entry on wake up"}},
		{"[PATCH 4.19.y] foo", Subject{Patch: true, Stable: "4.19.y", Version: 1, Title: "foo"}},
		{"Re: [PATCH v5 2/2] pipe: use __pipe_{lock,unlock} instead of spinlock",
			Subject{Reply: true, Patch: true, Version: 5, Number: 2, Total: 2, Title: "pipe: use __pipe_{lock,unlock} instead of spinlock"}},
		{"RE: re: Re[2]: [PATCH] x", Subject{Reply: true, Patch: true, Version: 1, Title: "x"}},
		{"Fwd: [PATCH 1/1] x", Subject{Reply: true, Patch: true, Version: 1, Number: 1, Total: 1, Title: "x"}},
		{"Fw: x", Subject{Reply: true, Version: 1, Title: "x"}},
		{"AW: [PATCH] x", Subject{Reply: true, Patch: true, Version: 1, Title: "x"}},
		{"[RFC][PATCH v3 1/4] x: y", Subject{Patch: true, RFC: true, Version: 3, Number: 1, Total: 4, Title: "x: y"}},
		{"[PATCH 1/2] [v2] x", Subject{Patch: true, Version: 2, Number: 1, Total: 2, Title: "x"}},
		{"[RFC PATCH 00/11] pipe: Notification queue preparation [ver #3]",
			Subject{Patch: true, RFC: true, Version: 3, Number: 0, Total: 11, Title: "pipe: Notification queue preparation"}},
		{"[PATCH AUTOSEL 5.5 542/542] pipe: use exclusive waits when\n reading or writing",
			Subject{Patch: true, Autosel: "5.5", Version: 1, Number: 542, Total: 542, Title: "pipe: use exclusive waits when reading or writing"}},
		{"=?UTF-8?Q?=5BPATCH=5D_caf=C3=A9:_fix?=", Subject{Patch: true, Version: 1, Title: "café: fix"}},
		{"=?iso-8859-1?q?Re:_=5BPATCH_v2=5D_na=EFve?=", Subject{Reply: true, Patch: true, Version: 2, Title: "naïve"}},
		{"[GIT PULL] vfs fixes", Subject{Version: 1, Title: "vfs fixes"}},
		{"Details on the UAPI of implementing notifications on pipes", Subject{Version: 1, Title: "Details on the UAPI of implementing notifications on pipes"}},
		{"[PATCH", Subject{Version: 1, Title: "[PATCH"}},
		{"", Subject{Version: 1}},
		{"Re:", Subject{Reply: true, Version: 1}},
		{"Regression: foo", Subject{Version: 1, Title: "Regression: foo"}},
		{"[PATCH 3/2] x", Subject{Patch: true, Version: 1, Number: 3, Total: 2, Title: "x"}},
	}
	for _, tt := range tests {
		got := ParseSubject(tt.in)
		want := tt.want
		want.Raw = got.Raw // checked separately below
		if got != want {
			t.Errorf("ParseSubject(%q)\n got %+v\nwant %+v", tt.in, got, want)
		}
		if strings.ContainsAny(got.Raw, "\r\n") {
			t.Errorf("ParseSubject(%q).Raw = %q: not unfolded", tt.in, got.Raw)
		}
	}
}

func FuzzParseSubject(f *testing.F) {
	for _, s := range []string{
		"[PATCH v5 1/2] watch_queue: refactor post_one_notification",
		"Re: [PATCH AUTOSEL 5.5 542/542] pipe: use exclusive waits",
		"[RFC PATCH net-next v2 0/7] x", "[PATCHv3]", "Re[2]: [", "=?UTF-8?B?W1BBVENIXSB4?=",
		"[PATCH 99999999999999999999/1] x", "[ver #", "x [v0]", "[PATCH 5.10 12/40] y",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sub := ParseSubject(s)
		if sub.Version < 1 {
			t.Fatalf("version %d < 1 for %q", sub.Version, s)
		}
		if sub.Number < 0 || sub.Total < 0 {
			t.Fatalf("negative part %d/%d for %q", sub.Number, sub.Total, s)
		}
		if utf8.ValidString(s) && !strings.Contains(s, "=?") && len(sub.Title) > len(s) {
			t.Fatalf("title %q longer than subject %q", sub.Title, s)
		}
		// Parsing is idempotent on the unfolded form.
		if again := ParseSubject(sub.Raw); !strings.Contains(s, "=?") && again != sub {
			t.Fatalf("not idempotent: %+v vs %+v", sub, again)
		}
	})
}
