package runner

import (
	"strings"
	"testing"
)

func testGuard() Guard {
	return Guard{
		Deny: []string{"**/Makefile*", "**/Kbuild*", "**/Kconfig*", "scripts/**", "tools/**", "usr/**",
			"arch/*/tools/**", "**/*.sh", "**/*.pl", "**/*.py"},
		Allow: []string{"tools/testing/selftests/**"},
	}
}

func diffFor(path string) string {
	return "diff --git a/" + path + " b/" + path + "\n--- a/" + path + "\n+++ b/" + path + "\n@@ -1 +1 @@\n-a\n+b\n"
}

func TestGuardCheck(t *testing.T) {
	tests := []struct {
		name  string
		patch string
		want  string // substring of the first refusal; "" for none
	}{
		{"plain C", diffFor("fs/pipe.c"), ""},
		{"header", diffFor("include/linux/pipe_fs_i.h"), ""},
		{"Makefile", diffFor("fs/Makefile"), "runs on the host"},
		{"top Makefile", diffFor("Makefile"), "runs on the host"},
		{"Kconfig", diffFor("fs/Kconfig"), "runs on the host"},
		{"Kconfig.debug", diffFor("lib/Kconfig.debug"), "runs on the host"},
		{"scripts", diffFor("scripts/kconfig/conf.c"), "runs on the host"},
		{"host tool", diffFor("arch/x86/tools/relocs.c"), "runs on the host"},
		{"shell script", diffFor("arch/x86/entry/syscalls/syscallhdr.sh"), "runs on the host"},
		{"allowed selftest", diffFor("tools/testing/selftests/filesystems/epoll/epoll_wakeup_test.c"), ""},
		{"traversal", "--- a/../../etc/passwd\n+++ b/../../etc/passwd\n@@ -1 +1 @@\n-a\n+b\n", "leaves the tree"},
		{"absolute", "--- /etc/passwd\n+++ /etc/passwd\n@@ -1 +1 @@\n-a\n+b\n", "absolute path"},
		{"rename into scripts", "diff --git a/fs/x.c b/scripts/x.c\nrename from fs/x.c\nrename to scripts/x.c\n", "runs on the host"},
		{"dot git", diffFor(".git/hooks/post-checkout"), "inside .git"},
		{"symlink", "diff --git a/fs/l b/fs/l\nnew file mode 120000\n--- /dev/null\n+++ b/fs/l\n@@ -0,0 +1 @@\n+/etc/shadow\n", "symbolic link"},
		{"abs include", "--- a/fs/pipe.c\n+++ b/fs/pipe.c\n@@ -1 +1,2 @@\n a\n+#include \"/etc/shadow\"\n", "absolute host path"},
		{"relative include ok", "--- a/fs/pipe.c\n+++ b/fs/pipe.c\n@@ -1 +1,2 @@\n a\n+#include \"../internal.h\"\n", ""},
		{"incbin", "--- a/fs/pipe.c\n+++ b/fs/pipe.c\n@@ -1 +1,2 @@\n a\n+asm(\".incbin \\\"x\\\"\");\n", ".incbin"},
		{"new file /dev/null", "diff --git a/fs/new.c b/fs/new.c\nnew file mode 100644\n--- /dev/null\n+++ b/fs/new.c\n@@ -0,0 +1 @@\n+int x;\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := testGuard().Check([]byte(tt.patch))
			if tt.want == "" {
				if len(got) != 0 {
					t.Fatalf("refused: %v", got)
				}
				return
			}
			if len(got) == 0 {
				t.Fatalf("not refused, want %q", tt.want)
			}
			if !strings.Contains(got[0].Error(), tt.want) {
				t.Fatalf("refusal %q, want %q", got[0].Error(), tt.want)
			}
			if got[0].Line == 0 {
				t.Errorf("refusal without a line number: %v", got[0])
			}
		})
	}
}

func TestMatchGlob(t *testing.T) {
	tests := []struct {
		pat, name string
		want      bool
	}{
		{"**/Makefile*", "Makefile", true},
		{"**/Makefile*", "fs/ext4/Makefile", true},
		{"**/Makefile*", "fs/Makefile.lib", true},
		{"**/Makefile*", "fs/pipe.c", false},
		{"scripts/**", "scripts/a/b/c", true},
		{"scripts/**", "fs/scripts/x", false},
		{"arch/*/tools/**", "arch/x86/tools/relocs.c", true},
		{"arch/*/tools/**", "arch/x86/kernel/tools.c", false},
		{"lib/gen_crc*", "lib/gen_crc32table.c", true},
	}
	for _, tt := range tests {
		if got := matchGlob(tt.pat, tt.name); got != tt.want {
			t.Errorf("matchGlob(%q, %q) = %v, want %v", tt.pat, tt.name, got, tt.want)
		}
	}
}

// FuzzGuardCheck: arbitrary patches never crash the guard, and a path
// with a ".." element is always refused.
func FuzzGuardCheck(f *testing.F) {
	f.Add(diffFor("fs/pipe.c"))
	f.Add(diffFor("scripts/x.sh"))
	f.Add("--- a/../x\n+++ b/../x\n")
	f.Add("diff --git \"a/x y\" \"b/x y\"\n")
	f.Fuzz(func(t *testing.T, patch string) {
		refs := testGuard().Check([]byte(patch))
		for _, l := range strings.Split(patch, "\n") {
			if strings.HasPrefix(l, "+++ b/../") && !strings.ContainsRune(l, '\t') {
				if len(refs) == 0 {
					t.Fatalf("traversal not refused: %q", l)
				}
			}
		}
	})
}
