package diffcheck

import (
	"errors"
	"testing"
)

// TestParseNoPrefix: a git diff written with --no-prefix (or
// diff.noprefix=true) keeps its whole paths; a prefixed one is unchanged.
func TestParseNoPrefix(t *testing.T) {
	tests := []struct {
		name, diff       string
		oldPath, newPath string
		wantErr          error
	}{
		{"prefixed", "diff --git a/fs/pipe.c b/fs/pipe.c\nindex 1111111..2222222 100644\n--- a/fs/pipe.c\n+++ b/fs/pipe.c\n@@ -1,2 +1,2 @@\n int a;\n-int b;\n+int c;\n",
			"fs/pipe.c", "fs/pipe.c", nil},
		{"reversed prefixes", "diff --git b/fs/pipe.c a/fs/pipe.c\nindex 2222222..1111111 100644\n--- b/fs/pipe.c\n+++ a/fs/pipe.c\n@@ -1,2 +1,2 @@\n int a;\n-int c;\n+int b;\n",
			"fs/pipe.c", "fs/pipe.c", nil},
		{"mnemonic prefixes", "diff --git i/fs/pipe.c w/fs/pipe.c\nindex 1111111..2222222 100644\n--- i/fs/pipe.c\n+++ w/fs/pipe.c\n@@ -1,2 +1,2 @@\n int a;\n-int b;\n+int c;\n",
			"fs/pipe.c", "fs/pipe.c", nil},
		{"no prefix", "diff --git fs/pipe.c fs/pipe.c\nindex 1111111..2222222 100644\n--- fs/pipe.c\n+++ fs/pipe.c\n@@ -1,2 +1,2 @@\n int a;\n-int b;\n+int c;\n",
			"fs/pipe.c", "fs/pipe.c", nil},
		{"no prefix new file", "diff --git kernel/new.c kernel/new.c\nnew file mode 100644\nindex 0000000..2222222\n--- /dev/null\n+++ kernel/new.c\n@@ -0,0 +1 @@\n+int c;\n",
			"", "kernel/new.c", nil},
		{"no prefix mode change", "diff --git scripts/x.sh scripts/x.sh\nold mode 100644\nnew mode 100755\n",
			"scripts/x.sh", "scripts/x.sh", nil},
		{"no prefix absolute", "diff --git /etc/passwd /etc/passwd\n--- /etc/passwd\n+++ /etc/passwd\n@@ -1 +1 @@\n-a\n+b\n",
			"", "", ErrHostilePath},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cs, err := Parse(tc.diff)
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("error %v, want %v", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(cs.Files) != 1 {
				t.Fatalf("%d files, want 1", len(cs.Files))
			}
			if f := cs.Files[0]; f.OldPath != tc.oldPath || f.NewPath != tc.newPath {
				t.Errorf("paths %q -> %q, want %q -> %q", f.OldPath, f.NewPath, tc.oldPath, tc.newPath)
			}
		})
	}
}
