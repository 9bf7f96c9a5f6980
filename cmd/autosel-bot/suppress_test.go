package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autosel-bot/autosel-bot/report"
)

// suppressedBy decodes check's JSON output and returns, per report, the
// rules of its findings and what suppressed each suppressed one.
func suppressedBy(t *testing.T, out string) (found, by []string) {
	t.Helper()
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var r report.Report
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("%v: %s", err, l)
		}
		for _, p := range r.Patches {
			for _, f := range p.Findings {
				found = append(found, f.Rule+"/"+f.Category)
			}
			for _, sp := range p.Suppressed {
				if !report.ValidID(sp.ID) {
					t.Errorf("suppressed finding without an id: %+v", sp)
				}
				by = append(by, sp.By)
			}
		}
	}
	return found, by
}

// TestCheckIgnoreFlag: --ignore RULE/CATEGORY suppresses seed 000's four
// lost-wakeup risks: the exit status no longer counts them, JSON lists
// them as suppressed by the flag, stderr and the text summary count them.
// A name that is no rule is a usage error.
func TestCheckIgnoreFlag(t *testing.T) {
	code, out, _ := runCLI(t, "", "check", "--format", "json", seed000)
	found, by := suppressedBy(t, out)
	if code != 1 || len(by) != 0 || !strings.Contains(strings.Join(found, " "), "wakeup/lost-wakeup") {
		t.Fatalf("without --ignore: exit %d, findings %v, suppressed %v", code, found, by)
	}
	code, out, stderr := runCLI(t, "", "check", "--format", "json", "--ignore", "wakeup/lost-wakeup", seed000)
	found, by = suppressedBy(t, out)
	if code != 0 || len(by) != 4 || strings.Contains(strings.Join(found, " "), "lost-wakeup") {
		t.Errorf("--ignore wakeup/lost-wakeup: exit %d, findings %v, suppressed %v", code, found, by)
	}
	for _, b := range by {
		if b != "--ignore wakeup/lost-wakeup" {
			t.Errorf("suppressed by %q", b)
		}
	}
	if !strings.Contains(stderr, "4 findings suppressed, not reported (--ignore wakeup/lost-wakeup: 4)") {
		t.Errorf("stderr lacks the count: %s", stderr)
	}
	// Comma-separated, a bare category, and the text summary.
	code, out, _ = runCLI(t, "", "check", "--ignore", "lost-wakeup,sleep-in-atomic", seed000)
	if code != 0 || !strings.Contains(out, ", 4 suppressed\n") || !strings.Contains(out, "    by --ignore wakeup/lost-wakeup\n") {
		t.Errorf("text: exit %d\n%s", code, out)
	}
	code, _, stderr = runCLI(t, "", "check", "--ignore", "wakeup/lost", seed000)
	if code != 2 || !strings.Contains(stderr, `rule wakeup has no category "lost"`) {
		t.Errorf("bad category: exit %d: %s", code, stderr)
	}
}

// TestCheckIgnoreConfig: check.ignore in the configuration does what
// --ignore does, and says so.
func TestCheckIgnoreConfig(t *testing.T) {
	cfg := writeFile(t, "c.yaml", "check:\n  ignore: [wakeup/lost-wakeup]\n")
	code, out, stderr := runCLI(t, "", "--config", cfg, "check", "--format", "json", seed000)
	found, by := suppressedBy(t, out)
	if code != 0 || len(by) != 4 || strings.Contains(strings.Join(found, " "), "lost-wakeup") {
		t.Fatalf("exit %d, findings %v, suppressed %v\n%s", code, found, by, stderr)
	}
	if by[0] != "check.ignore wakeup/lost-wakeup" {
		t.Errorf("suppressed by %q", by[0])
	}
	bad := writeFile(t, "bad.yaml", "check:\n  ignore: [no-such-rule]\n")
	if code, _, stderr := runCLI(t, "", "--config", bad, "check", seed000); code != 2 || !strings.Contains(stderr, `check.ignore "no-such-rule": no rule`) {
		t.Errorf("unknown rule in check.ignore: exit %d: %s", code, stderr)
	}
}

// lockTree is a tree where b() calls a() under a spinlock; sleepPatch
// makes a() sleep.
const (
	lockTree   = "static DEFINE_SPINLOCK(l);\n\nstatic void a(void)\n{\n\tudelay(1);\n}\n\nvoid b(void)\n{\n\tspin_lock(&l);\n\ta();\n\tspin_unlock(&l);\n}\n"
	sleepPatch = "From: A U Thor <author@example.org>\nMessage-ID: <sleep-1@example.org>\nSubject: [PATCH] lib: sleep in a()\n\n---\n" +
		"diff --git a/lib/x.c b/lib/x.c\n--- a/lib/x.c\n+++ b/lib/x.c\n@@ -3,4 +3,4 @@ static DEFINE_SPINLOCK(l);\n static void a(void)\n {\n-\tudelay(1);\n+\tmsleep(1);\n }\n"
	// ignoreAdd is a hunk adding an .autosel-ignore of the patch's own.
	ignoreAdd = "diff --git a/.autosel-ignore b/.autosel-ignore\nnew file mode 100644\n--- /dev/null\n+++ b/.autosel-ignore\n@@ -0,0 +1 @@\n+a sleep-in-atomic my own patch is fine\n"
)

// TestCheckIgnoreInTree: the tree's .autosel-ignore suppresses the
// finding in the function it names, with its reason; a bad line is a note
// naming it and the rest still applies; an .autosel-ignore a patch adds
// suppresses nothing.
func TestCheckIgnoreInTree(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir()) // the index cache
	tree := t.TempDir()
	os.MkdirAll(filepath.Join(tree, "lib"), 0o755)
	if err := os.WriteFile(filepath.Join(tree, "lib/x.c"), []byte(lockTree), 0o644); err != nil {
		t.Fatal(err)
	}
	patch := writeFile(t, "sleep.patch", sleepPatch)
	code, out, stderr := runCLI(t, "", "check", "--tree", tree, "--format", "json", patch)
	found, by := suppressedBy(t, out)
	if code != 1 || len(by) != 0 || !strings.Contains(strings.Join(found, " "), "sleep-in-atomic") {
		t.Fatalf("without .autosel-ignore: exit %d, findings %v\n%s", code, found, stderr)
	}
	ignore := "# known-safe constructs\nb  sleep-in-atomic  not this one\nlib/x.c:a  sleep-in-atomic  b() runs before the scheduler starts\nbroken line\n"
	if err := os.WriteFile(filepath.Join(tree, ".autosel-ignore"), []byte(ignore), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, stderr = runCLI(t, "", "check", "--tree", tree, patch)
	if code != 0 {
		t.Fatalf("with .autosel-ignore: exit %d\n%s\n%s", code, out, stderr)
	}
	for _, want := range []string{
		", 1 suppressed\n",
		"    by .autosel-ignore:3: b() runs before the scheduler starts\n",
		"note: line skipped: .autosel-ignore:4: want \"function rule/category",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(stderr, "1 finding suppressed, not reported (.autosel-ignore:3: 1)") {
		t.Errorf("stderr: %s", stderr)
	}
	// A patch cannot suppress its own findings.
	os.Remove(filepath.Join(tree, ".autosel-ignore"))
	own := writeFile(t, "own.patch", sleepPatch+ignoreAdd)
	code, out, _ = runCLI(t, "", "check", "--tree", tree, "--format", "json", own)
	found, by = suppressedBy(t, out)
	if code != 1 || len(by) != 0 || len(found) == 0 {
		t.Errorf("a patch's own .autosel-ignore: exit %d, findings %v, suppressed %v", code, found, by)
	}
}
