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
	} {
		if _, err := ParseCase(writeCase(t, bad)); err == nil {
			t.Errorf("accepted %q", bad)
		}
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
