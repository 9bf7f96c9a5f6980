package diffcheck

import (
	"os"
	"path/filepath"
	"testing"
)

// TestReverseDiff: the reversed diff applies to the patched tree and gives
// back the original; reversing twice gives the diff back.
func TestReverseDiff(t *testing.T) {
	tests := []struct {
		name, diff string
		before     map[string]string // the tree the diff applies to
		after      map[string]string // the tree it makes ("" = no file)
	}{
		{"modify", "diff --git a/lib/x.c b/lib/x.c\nindex 1111111..2222222 100644\n--- a/lib/x.c\n+++ b/lib/x.c\n@@ -1,4 +1,4 @@ static void a(void)\n int a;\n-int b;\n+int c;\n+int d;\n int e;\n-int f;\n",
			map[string]string{"lib/x.c": "int a;\nint b;\nint e;\nint f;\n"},
			map[string]string{"lib/x.c": "int a;\nint c;\nint d;\nint e;\n"}},
		{"new file", "diff --git a/lib/n.c b/lib/n.c\nnew file mode 100644\nindex 0000000..2222222\n--- /dev/null\n+++ b/lib/n.c\n@@ -0,0 +1,2 @@\n+int a;\n+int b;\n",
			map[string]string{"lib/o.c": "x\n"},
			map[string]string{"lib/o.c": "x\n", "lib/n.c": "int a;\nint b;\n"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rev, err := ReverseDiff(tc.diff)
			if err != nil {
				t.Fatal(err)
			}
			if again, err := ReverseDiff(rev); err != nil || again != tc.diff {
				t.Errorf("reversed twice:\n%s\nwant:\n%s (%v)", again, tc.diff, err)
			}
			dir := t.TempDir()
			for p, s := range tc.after {
				os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755)
				if err := os.WriteFile(filepath.Join(dir, p), []byte(s), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			cs, err := Parse(rev)
			if err != nil {
				t.Fatalf("reversed diff does not parse: %v\n%s", err, rev)
			}
			if err := ApplyTree(cs, DirTree(dir)); err != nil || cs.ApplyError != "" {
				t.Fatalf("reversed diff does not apply to the patched tree: %v %s\n%s", err, cs.ApplyError, rev)
			}
			for p := range tc.after {
				got, err := cs.Tree.ReadFile(p)
				want, had := tc.before[p]
				switch {
				case !had && err == nil:
					t.Errorf("%s still there after the reversal", p)
				case had && string(got) != want:
					t.Errorf("%s = %q, want %q (%v)", p, got, want, err)
				}
			}
		})
	}
	if _, err := ReverseDiff("diff --git a/x.bin b/x.bin\nindex 1..2 100644\nGIT binary patch\nliteral 1\nIcmZ?d00001\n"); err == nil {
		t.Error("a binary patch was reversed")
	}
}
