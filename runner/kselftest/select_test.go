package kselftest

import (
	"os"
	"strings"
	"testing"
	"time"
)

func TestSelect(t *testing.T) {
	tab, err := LoadTable(nil)
	if err != nil {
		t.Fatal(err)
	}
	mb, err := os.ReadFile("testdata/MAINTAINERS")
	if err != nil {
		t.Fatal(err)
	}
	maint := ParseMaintainers(mb)
	tests := []struct {
		name    string
		files   []string
		budget  time.Duration
		want    []string // chosen targets
		dropped []string
		reason  string // a substring of some reason
		note    string // a substring of some note
	}{
		{name: "futex", files: []string{"kernel/futex/core.c", "kernel/futex/waitwake.c"},
			want: []string{"futex"}, reason: "kernel/futex/core.c, kernel/futex/waitwake.c: the futex syscalls are implemented here (table)"},
		{name: "pipe and splice", files: []string{"fs/pipe.c", "fs/splice.c"},
			want: []string{"splice"}, reason: "fs/pipe.c: pipes are the splice tests' other end"},
		{name: "nothing", files: []string{"drivers/gpu/drm/i915/i915_drv.c"}},
		{name: "maintainers fallback", files: []string{"mm/vmscan.c"},
			want: []string{"vm"}, reason: `mm/vmscan.c: MAINTAINERS "MEMORY MANAGEMENT" lists it (F: fallback)`},
		{name: "maintainers target not in table", files: []string{"security/keys/keyctl.c"},
			note: `MAINTAINERS "KEYS/KEYRINGS" names selftest keys for security/keys/keyctl.c; not in the runner's table`},
		{name: "table wins over fallback", files: []string{"mm/mremap.c"},
			want: []string{"vm"}, reason: "mm/mremap.c: the mm paths"},
		{name: "budget drops slowest", files: []string{"kernel/futex/core.c", "fs/splice.c", "kernel/time/hrtimer.c"},
			budget: 75 * time.Second, want: []string{"futex", "splice"}, dropped: []string{"timers"}},
		{name: "budget drops two", files: []string{"kernel/futex/core.c", "fs/splice.c", "kernel/time/hrtimer.c"},
			budget: 20 * time.Second, want: []string{"splice"}, dropped: []string{"timers", "futex"}},
		{name: "fork", files: []string{"kernel/fork.c"}, want: []string{"pidfd", "clone3"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := Select(tab, maint, tc.files, tc.budget)
			if got := names(p.Chosen); strings.Join(got, ",") != strings.Join(tc.want, ",") {
				t.Errorf("chosen %v, want %v", got, tc.want)
			}
			if got := names(p.Dropped); strings.Join(got, ",") != strings.Join(tc.dropped, ",") {
				t.Errorf("dropped %v, want %v", got, tc.dropped)
			}
			text := p.Text([]string{"pipe_two_readers"})
			if tc.reason != "" && !strings.Contains(text, tc.reason) {
				t.Errorf("no reason %q in:\n%s", tc.reason, text)
			}
			if tc.note != "" && !strings.Contains(text, tc.note) {
				t.Errorf("no note %q in:\n%s", tc.note, text)
			}
			if len(tc.dropped) > 0 && !strings.Contains(text, "over the time budget") {
				t.Errorf("listing does not say what the budget dropped:\n%s", text)
			}
			if !strings.Contains(text, "runner suite (always): pipe_two_readers") {
				t.Errorf("listing lacks the suite:\n%s", text)
			}
		})
	}
}

func names(cs []Choice) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Target.Name)
	}
	return out
}

func TestParseMaintainersReal(t *testing.T) {
	b, err := os.ReadFile("/var/tmp/autosel-bot/linux-6.1/MAINTAINERS")
	if err != nil {
		t.Skip("no linux-6.1 tree")
	}
	tab, _ := LoadTable(nil)
	p := Select(tab, ParseMaintainers(b), []string{"kernel/futex/requeue.c"}, 0)
	if len(p.Chosen) != 1 || p.Chosen[0].Target.Name != "futex" {
		t.Fatalf("chosen %v", names(p.Chosen))
	}
	// Without the table rule, the FUTEX SUBSYSTEM entry's F: lines choose
	// the same target.
	bare := &Table{Targets: tab.Targets}
	p = Select(bare, ParseMaintainers(b), []string{"kernel/futex/requeue.c"}, 0)
	if len(p.Chosen) != 1 || p.Chosen[0].Target.Name != "futex" || !strings.Contains(p.Chosen[0].Reasons[0], "F: fallback") {
		t.Fatalf("fallback chose %v", p.Chosen)
	}
}

func TestTouchedFiles(t *testing.T) {
	diff := `From: a
Subject: [PATCH] x
---
diff --git a/kernel/futex/core.c b/kernel/futex/core.c
--- a/kernel/futex/core.c
+++ b/kernel/futex/core.c
@@ -1 +1 @@
-a
+b
diff --git a/fs/new.c b/fs/new.c
new file mode 100644
--- /dev/null
+++ b/fs/new.c	2024-01-01
@@ -0,0 +1 @@
+x
diff --git a/fs/old.c b/fs/renamed.c
similarity index 100%
rename from fs/old.c
rename to fs/renamed.c
`
	got := strings.Join(TouchedFiles([]byte(diff)), " ")
	if want := "kernel/futex/core.c fs/new.c fs/old.c fs/renamed.c"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
