package sleep

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/autosel-bot/autosel-bot/rules"
	"github.com/autosel-bot/autosel-bot/rules/rulestest"
)

// TestTableExtension: a config table file extends the lock model (its
// "locks" section) and the sleep section's sleeping primitives.
func TestTableExtension(t *testing.T) {
	extra := filepath.Join(t.TempDir(), "extra.yaml")
	if err := os.WriteFile(extra, []byte("locks:\n  acquire:\n    - {names: [my_lock], kind: spin, arg: 0}\n  release:\n    - {names: [my_unlock], kind: spin, arg: 0}\nsleep:\n  sleep:\n    - {names: [my_wait], why: waits for the device}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	patch := "diff --git a/a.c b/a.c\n--- a/a.c\n+++ b/a.c\n@@ -1,6 +1,7 @@\n static int f(struct dev *d)\n {\n \tmy_lock(&d->l);\n+\tmy_wait(d);\n \tmy_unlock(&d->l);\n \treturn 0;\n }\n"
	for _, tc := range []struct {
		files []string
		want  int
	}{{nil, 0}, {[]string{extra}, 1}} {
		r, err := New(rules.Options{TableFiles: tc.files})
		if err != nil {
			t.Fatal(err)
		}
		fs, _ := rulestest.Run(t, r, patch, "", nil)
		if len(fs) != tc.want {
			t.Errorf("tables %v: %d findings, want %d: %s", tc.files, len(fs), tc.want, describe(fs))
		}
		if tc.want > 0 && (fs[0].Key != "d->l" || fs[0].Func != "f") {
			t.Errorf("finding %+v", fs[0])
		}
	}
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	if err := os.WriteFile(bad, []byte("locks:\n  acquire:\n    - {names: [x], kind: bogus}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := New(rules.Options{TableFiles: []string{bad}}); err == nil {
		t.Error("unknown context kind accepted")
	}
	for _, text := range []string{
		"sleep:\n  shutdown_safe:\n    - {names: [i2c_transfr], why: a typo}\n",
		"sleep:\n  shutdown_safe:\n    - {names: [i2c_transfer]}\n",
	} {
		badSafe := filepath.Join(t.TempDir(), "safe.yaml")
		if err := os.WriteFile(badSafe, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := New(rules.Options{TableFiles: []string{badSafe}}); err == nil {
			t.Errorf("shutdown_safe row accepted: %q", text)
		}
	}
}

// TestModelIDStable: the model's id, under which the whole-tree
// summaries are stored, is the same for two compilations of the same
// tables: an id that depends on memory addresses (a pointer in the
// sleeper) would make every run summarise the whole tree again.
func TestModelIDStable(t *testing.T) {
	if a, b := sleepModel(t).ID(), sleepModel(t).ID(); a != b {
		t.Errorf("two compilations of the same tables: ids %s and %s", a, b)
	}
}
