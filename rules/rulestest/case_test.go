package rulestest

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/autosel-bot/autosel-bot/report"
)

const casePatch = "diff --git a/a.c b/a.c\n--- a/a.c\n+++ b/a.c\n@@ -1,2 +1,3 @@\n x\n+y\n z\n"

func writeCase(t *testing.T, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "c.txtar")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestParseCase(t *testing.T) {
	c, err := ParseCase(writeCase(t, "A case.\nmodes: tree patch\nWANT risk r f chain:m\nWANT(patch) note r g\n-- patch --\n"+casePatch+"-- a.c --\nx\nz\n"))
	if err != nil {
		t.Fatal(err)
	}
	if c.Name != "c" || c.Patch != casePatch || c.Files["a.c"] != "x\nz\n" || !reflect.DeepEqual(c.Modes, []string{"tree", "patch"}) {
		t.Errorf("parsed %+v", c)
	}
	if !reflect.DeepEqual(c.Want, map[string][]string{"": {"risk r f chain:m"}, "patch": {"note r g"}}) {
		t.Errorf("want %q", c.Want)
	}
	c, err = ParseCase(writeCase(t, "tree: linux-6.1\nWANT none\n-- patch --\n"+casePatch))
	if err != nil {
		t.Fatal(err)
	}
	if c.Tree != TreeLinux61 || !reflect.DeepEqual(c.Modes, []string{"tree"}) || len(c.Want) != 0 {
		t.Errorf("parsed %+v", c)
	}
	for _, bad := range []string{
		"no patch\n-- a.c --\nx\n",
		"tree: linux-5.4\n-- patch --\n" + casePatch,
		"tree: linux-6.1\n-- patch --\n" + casePatch + "-- a.c --\nx\n",
		"modes: vm\n-- patch --\n" + casePatch,
		"modes: tree\nWANT(patch) note r f\n-- patch --\n" + casePatch,
		"WANTnote\n-- patch --\n" + casePatch,
		"WANT none\n  at a.c\n-- patch --\n" + casePatch,
		"WANT note r f\n  color red\n-- patch --\n" + casePatch,
		"WANT note r f\n  !old x\n-- patch --\n" + casePatch,
		"WANT note r f\n  message\n-- patch --\n" + casePatch,
		"WANT note r f\n  at a.c:1 b.c\n-- patch --\n" + casePatch,
		"WANT note r f\n  located x\n-- patch --\n" + casePatch,
		"WANT note r f\n  message[0] x\n-- patch --\n" + casePatch,
		"apply: maybe\n-- patch --\n" + casePatch,
		"apply: conflict\nmodes: tree reverse\n-- patch --\n" + casePatch,
		"modes: tree\nNOTE(patch) x\n-- patch --\n" + casePatch,
		"NOTE\n-- patch --\n" + casePatch,
	} {
		if _, err := ParseCase(writeCase(t, bad)); err == nil {
			t.Errorf("accepted %q", bad)
		}
	}
}

// TestParseDetails: detail lines go under their WANT line; NOTE, apply
// and seed lines are read.
func TestParseDetails(t *testing.T) {
	c, err := ParseCase(writeCase(t, "Free text.\nmodes: tree reverse\nseed: 000.mbox AUTOSEL\nWANT(tree) risk r f\n"+
		"  at a.c:3\n\t!evidence[1] left behind\n  step[0] g b.c:7 calls f()\n  step h :9\n  step[-1] k\nWANT note r g\nNOTE(tree) no --tree\n!NOTE x\n"+
		"-- patch --\n"+casePatch+"-- a.c --\nx\nz\n"))
	if err != nil {
		t.Fatal(err)
	}
	if c.Seed != "000.mbox AUTOSEL" || len(c.wants) != 2 || len(c.wants[1].details) != 0 {
		t.Fatalf("parsed %+v", c)
	}
	idx := func(n int) *int { return &n }
	want := []detail{
		{src: "at a.c:3", kind: "at", file: "a.c", line: 3},
		{src: "!evidence[1] left behind", neg: true, kind: "evidence", index: idx(1), text: "left behind"},
		{src: "step[0] g b.c:7 calls f()", kind: "step", index: idx(0), fn: "g", file: "b.c", line: 7, text: "calls f()"},
		{src: "step h :9", kind: "step", fn: "h", line: 9},
		{src: "step[-1] k", kind: "step", index: idx(-1), fn: "k"},
	}
	if !reflect.DeepEqual(c.wants[0].details, want) {
		t.Errorf("details %+v", c.wants[0].details)
	}
	if !reflect.DeepEqual(c.notes, []noteCheck{{mode: "tree", text: "no --tree"}, {text: "x", neg: true}}) {
		t.Errorf("notes %+v", c.notes)
	}
	if !reflect.DeepEqual(c.comment, []string{"Free text.", "modes: tree reverse", "seed: 000.mbox AUTOSEL", "NOTE(tree) no --tree", "!NOTE x"}) {
		t.Errorf("comment %q", c.comment)
	}
}

// TestCheckDetails: WANT lines with details are matched to distinct
// findings that satisfy them.
func TestCheckDetails(t *testing.T) {
	f := func(line int, ev ...string) report.Finding {
		return report.Finding{Rule: "r", Severity: report.SeverityRisk, Func: "f", File: "a.c", Line: line, Evidence: ev,
			Message: "m", Explanation: "because", Old: []string{"o1", "o2"},
			Chain: []report.Step{{Func: "g", File: "a.c", Line: 2, What: "calls f()"}, {Func: "f", Line: 3, What: "kmalloc()"}}}
	}
	fs := []report.Finding{f(1, "e1"), f(2, "e2")}
	for _, tc := range []struct {
		header string
		errs   int
	}{
		{"WANT risk r f chain:kmalloc\n  at a.c:1\nWANT risk r f chain:kmalloc\n  evidence e", 0},
		{"WANT risk r f chain:kmalloc\n  evidence e\nWANT risk r f chain:kmalloc\n  at a.c:1", 0}, // needs the matching to move
		{"WANT risk r f chain:kmalloc\n  at a.c:1\nWANT risk r f chain:kmalloc\n  at a.c:1", 1},
		{"WANT risk r f chain:kmalloc\n  at a.c\n  message m\n  explanation cause\n  old o1\n  old 2\n  step[0] g a.c:2 calls\n  step f kmalloc\n  !needs-tree", 0},
		{"WANT risk r f chain:kmalloc\n  located", 1},
		{"WANT risk r f chain:kmalloc\n  old o1", 1},
		{"WANT risk r f chain:kmalloc\n  !step g", 1},
		{"WANT risk r f chain:kmalloc\n  step[1] g", 1},
		{"WANT risk r f chain:kmalloc\n  step[-1] f ^kmalloc(\n  step[-2] g ^calls\n  step g calls", 0},
		{"WANT risk r f chain:kmalloc\n  step[-1] f ^malloc(", 1},
		{"WANT risk r f chain:kmalloc\n  step[-3] g", 1},
		{"WANT risk r f chain:kmalloc\n  evidence[1] e", 1},
		{"WANT risk r f chain:kmalloc\n  !evidence e2", 0},
		{"WANT risk r f chain:kmalloc\n  at b.c", 1},
	} {
		c, err := ParseCase(writeCase(t, tc.header+"\n-- patch --\n"+casePatch))
		if err != nil {
			t.Fatal(err)
		}
		if errs := c.checkDetails(ModeTree, fs); len(errs) != tc.errs {
			t.Errorf("%q: %d errors, want %d: %q", tc.header, len(errs), tc.errs, errs)
		}
	}
	c, err := ParseCase(writeCase(t, "modes: tree patch\nNOTE a\n!NOTE(patch) b\nNOTE(tree) c\n-- patch --\n"+casePatch))
	if err != nil {
		t.Fatal(err)
	}
	if errs := c.checkNotes(ModePatch, []string{"xa", "b"}); len(errs) != 1 {
		t.Errorf("patch notes: %q", errs)
	}
	if errs := c.checkNotes(ModeTree, []string{"b"}); len(errs) != 2 {
		t.Errorf("tree notes: %q", errs)
	}
}

func TestRewrite(t *testing.T) {
	p := writeCase(t, "Description.\nWANT note old f\n-- patch --\n"+casePatch+"-- a.c --\nx\nz\n")
	c, err := ParseCase(p)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]string{
		"tree":  {"note a f", "risk b g", "risk b g"},
		"patch": {"note a f", "risk b g"},
	}
	if err := c.rewrite(got); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(p)
	want := "Description.\nWANT note a f\nWANT risk b g\nWANT(tree) risk b g\n-- patch --\n" + casePatch + "-- a.c --\nx\nz\n"
	if string(b) != want {
		t.Errorf("rewritten:\n%s\nwant:\n%s", b, want)
	}
	if err := c.rewrite(map[string][]string{}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); !strings.HasPrefix(string(b), "Description.\nWANT none\n-- patch --\n") {
		t.Errorf("empty rewrite:\n%s", b)
	}
	// Detail lines stay under their WANT line, which may change mode;
	// those whose line is gone are reported.
	p = writeCase(t, "Description.\nmodes: tree patch\nWANT note a f\n  at a.c\nWANT risk b g\n  message m\n-- patch --\n"+casePatch)
	if c, err = ParseCase(p); err != nil {
		t.Fatal(err)
	}
	if err := c.rewrite(map[string][]string{"tree": {"note a f"}, "patch": {"note x f"}}); err == nil || !strings.Contains(err.Error(), "WANT risk b g") {
		t.Errorf("dropped details not reported: %v", err)
	}
	want = "Description.\nmodes: tree patch\nWANT(tree) note a f\n  at a.c\nWANT(patch) note x f\n-- patch --\n" + casePatch
	if b, _ := os.ReadFile(p); string(b) != want {
		t.Errorf("rewritten:\n%s\nwant:\n%s", b, want)
	}
}

func TestWantLine(t *testing.T) {
	f := report.Finding{Rule: "sleep-in-atomic", Category: "sleep-in-atomic", Severity: report.SeverityRisk, Func: "post_one_notification",
		Key: "pipe->rd_wait.lock, x", Chain: []report.Step{{What: "spin_lock_irq(&pipe->rd_wait.lock)"}, {What: "mutex_lock_nested(&pipe->mutex, 1)"}}}
	if got, want := WantLine(f), "risk sleep-in-atomic post_one_notification chain:mutex_lock_nested key:pipe->rd_wait.lock,x"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	f = report.Finding{Rule: "wakeup", Category: "lost-wakeup", Severity: report.SeverityNote, Func: "g",
		Chain: []report.Step{{What: "sleeps interruptible: wait_event(x)"}}}
	if got, want := WantLine(f), "note lost-wakeup g"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
