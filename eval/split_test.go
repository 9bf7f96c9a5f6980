package eval

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestAssign pins the split function: changing it would move frozen cases.
func TestAssign(t *testing.T) {
	for key, want := range map[string]Split{
		"bugs/sleep/foo":         SplitTrain,
		"bugs/wakeup/bar":        SplitTest,
		"nearmiss/sleep/x":       SplitTest,
		"bugs/sleep/ok":          SplitTest,
		"ordinary/0001-a.patch":  SplitTrain,
		"ordinary/0002-b.patch":  SplitTest,
		"bugs/sleep/badcase":     SplitTest,
		"nearmiss/wakeup/nm":     SplitTest,
		"bugs/sleep/ath9k-gpio":  Assign("bugs/sleep/ath9k-gpio"),
		"bugs/wakeup/pipe-wr-wa": Assign("bugs/wakeup/pipe-wr-wa"),
	} {
		if got := Assign(key); got != want {
			t.Errorf("Assign(%q) = %s, want %s", key, got, want)
		}
	}
	test := 0
	for i := range 10000 {
		if Assign(fmt.Sprintf("bugs/sleep/case-%d", i)) == SplitTest {
			test++
		}
	}
	if test < 3700 || test > 4300 {
		t.Errorf("%d of 10000 keys in test, want about 4000", test)
	}
}

// TestAssignMatchesScript checks that scripts/eval-case.sh split, which
// harvesters use before a case is in the corpus, agrees with Assign.
func TestAssignMatchesScript(t *testing.T) {
	if _, err := exec.LookPath("sha256sum"); err != nil {
		t.Skip("no sha256sum")
	}
	keys := []string{"bugs/sleep/foo", "bugs/wakeup/bar", "nearmiss/sleep/x", "ordinary/0002-b.patch", "bugs/wakeup/rwsem-mark-wake-wake-q-order"}
	out, err := exec.Command("bash", append([]string{filepath.Join("..", "scripts", "eval-case.sh"), "split"}, keys...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != len(keys) {
		t.Fatalf("script printed %q", out)
	}
	for i, k := range keys {
		if want := k + " " + string(Assign(k)); lines[i] != want {
			t.Errorf("script: %q, want %q", lines[i], want)
		}
	}
}

// TestAssignNew checks that new cases are added by hash and listed ones
// keep their split.
func TestAssignNew(t *testing.T) {
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("testdata", "good"))); err != nil {
		t.Fatal(err)
	}
	// nearmiss/wakeup/nm hashes to test but is listed as seen: it stays.
	if err := os.WriteFile(filepath.Join(dir, SplitFileName), []byte("nearmiss/wakeup/nm: seen\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	added, err := AssignNew(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(added, ","); got != "bugs/sleep/ok: test,ordinary/0001-a.patch: train" {
		t.Errorf("added %s", got)
	}
	c, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Problems) > 0 {
		t.Fatal(c.Problems)
	}
	if c.NearMisses[0].Split != SplitSeen {
		t.Errorf("near miss split %s, want seen", c.NearMisses[0].Split)
	}
	if again, err := AssignNew(dir); err != nil || len(again) != 0 {
		t.Errorf("second AssignNew: %v, %v", again, err)
	}
	if err := c.FilterSplit("test"); err != nil {
		t.Fatal(err)
	}
	if len(c.Bugs) != 1 || len(c.NearMisses) != 0 || len(c.Ordinary) != 0 || len(c.Variants) != 0 {
		t.Errorf("test split: %d bugs, %d near misses, %d ordinary, %d variants", len(c.Bugs), len(c.NearMisses), len(c.Ordinary), len(c.Variants))
	}
	if err := c.FilterSplit("validation"); err == nil {
		t.Error("FilterSplit accepted an unknown split")
	}
}
