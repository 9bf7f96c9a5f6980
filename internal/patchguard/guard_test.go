package patchguard

import (
	"context"
	"strings"
	"testing"

	"github.com/autosel-bot/autosel-bot/internal/testtree"
)

// miniTree is a git repository shaped like a kernel tree: a host program
// declared in a Makefile, the header it includes, ordinary code.
func miniTree(t *testing.T) string {
	t.Helper()
	return testtree.Repo(t, map[string]string{
		"Makefile":                  "all:\n\t@true\n",
		"tools/gen/Makefile":        "hostprogs-always-y += gen mk\nmk-objs := mk_main.o mk_util.o\nHOSTCFLAGS_gen.o += -I$(srctree)/include/shared\n",
		"tools/gen/gen.c":           "#include <stdio.h>\n#include \"../../include/linux/poly.h\"\n#include <table.h>\nint main(void) { return 0; }\n",
		"tools/gen/mk_main.c":       "int main(void) { return 0; }\n",
		"tools/gen/mk_util.c":       "#include \"util.h\"\n",
		"tools/gen/util.h":          "#define U 1\n",
		"include/linux/poly.h":      "#define POLY 0xedb88320\n",
		"include/shared/table.h":    "#define T 1\n",
		"include/linux/unrelated.h": "#define X 1\n",
		"fs/pipe.c":                 "int pipe;\nint two;\nint three;\n",
		"kernel/configs.c":          "/* c */\nasm(\".incbin \\\"kernel/config_data.gz\\\"\");\nint x;\n",
		"arch/x86/kernel/head_64.S": "/* head */\nnop\nnop\n",
	})
}

func TestMiniHostTools(t *testing.T) {
	dir := miniTree(t)
	ht, err := deriveHostTools(context.Background(), dir, "base")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for p := range ht.Files {
		got = append(got, p)
	}
	want := "include/linux/poly.h include/shared/table.h tools/gen/gen.c tools/gen/mk_main.c tools/gen/mk_util.c tools/gen/util.h"
	if s := strings.Join(sorted(got), " "); s != want {
		t.Fatalf("host tools %s\nwant %s", s, want)
	}
}

func sorted(s []string) []string {
	for i := range s {
		for j := i + 1; j < len(s); j++ {
			if s[j] < s[i] {
				s[i], s[j] = s[j], s[i]
			}
		}
	}
	return s
}

func TestGuardCheckMini(t *testing.T) {
	dir := miniTree(t)
	g := New([]string{"**/Makefile*", "Makefile"}, []string{"tools/gen/Makefile"})
	objectsBefore := testtree.Git(t, dir, "count-objects")
	pipe := func(added string) string {
		return "diff --git a/fs/pipe.c b/fs/pipe.c\n--- a/fs/pipe.c\n+++ b/fs/pipe.c\n@@ -1,3 +1,4 @@\n int pipe;\n+" + added + "\n int two;\n int three;\n"
	}
	tests := []struct {
		name, patch, want string // want "" = accepted
	}{
		{"plain", pipe("int four;"), ""},
		{"octal host header", strings.ReplaceAll("diff --git \"a/include/linux/\\160oly.h\" \"b/include/linux/\\160oly.h\"\n--- \"a/include/linux/\\160oly.h\"\n+++ \"b/include/linux/\\160oly.h\"\n@@ -1 +1,2 @@\n #define POLY 0xedb88320\n+#define EVIL 1\n", "", ""), "include/linux/poly.h: changes a host tool the build compiles and runs (tools/gen/gen,"},
		{"host object of a composite program", "diff --git a/tools/gen/util.h b/tools/gen/util.h\n--- a/tools/gen/util.h\n+++ b/tools/gen/util.h\n@@ -1 +1,2 @@\n #define U 1\n+#define V 2\n", "tools/gen/mk"},
		{"allow glob exempts a Makefile", "diff --git a/tools/gen/Makefile b/tools/gen/Makefile\n--- a/tools/gen/Makefile\n+++ b/tools/gen/Makefile\n@@ -1 +1,2 @@\n hostprogs-always-y += gen mk\n+x := 1\n", ""},
		{"octal top Makefile", "diff --git \"a/\\115akefile\" \"b/\\115akefile\"\n--- \"a/\\115akefile\"\n+++ \"b/\\115akefile\"\n@@ -1,2 +1,3 @@\n all:\n+\t@id\n \t@true\n", "Makefile: changes code that runs on the host"},
		{"unrelated header", "diff --git a/include/linux/unrelated.h b/include/linux/unrelated.h\n--- a/include/linux/unrelated.h\n+++ b/include/linux/unrelated.h\n@@ -1 +1,2 @@\n #define X 1\n+#define Y 2\n", ""},
		{"absolute include", pipe(`#include "/etc/passwd"`), "absolute host path"},
		{"home include", pipe(`#include "~/.ssh/id_rsa"`), "absolute host path"},
		{"dotdot include", pipe(`#include "../../etc/passwd"`), "leaves the tree"},
		{"dotdot in tree", pipe(`#include "../include/linux/unrelated.h"`), ""},
		{"angle dotdot", pipe(`#include <../../etc/passwd>`), "leaves the tree"},
		{"has_include", pipe(`#if __has_include("/etc/shadow")`), "absolute host path"},
		{"incbin", pipe(`asm(".incbin \"/etc/shadow\"");`), ".incbin"},
		{"embed", pipe(`#embed "x.bin"`), ".incbin/#embed"},
		{"asm include", "diff --git a/arch/x86/kernel/head_64.S b/arch/x86/kernel/head_64.S\n--- a/arch/x86/kernel/head_64.S\n+++ b/arch/x86/kernel/head_64.S\n@@ -1,3 +1,4 @@\n /* head */\n+.include \"/etc/passwd\"\n nop\n nop\n", "absolute host path"},
		{"existing incbin kept", "diff --git a/kernel/configs.c b/kernel/configs.c\n--- a/kernel/configs.c\n+++ b/kernel/configs.c\n@@ -1,3 +1,3 @@\n-/* c */\n+/* config */\n asm(\".incbin \\\"kernel/config_data.gz\\\"\");\n int x;\n", ""},
		{"symlink", "diff --git a/fs/l b/fs/l\nnew file mode  120000\n--- /dev/null\n+++ b/fs/l\n@@ -0,0 +1 @@\n+/etc/shadow\n\\ No newline at end of file\n", "symbolic link"},
		{"exec", "diff --git a/fs/pipe.c b/fs/pipe.c\nold mode 100644\nnew mode 100755\n", "executable"},
		{"unparseable", "diff --git a/fs/pipe.c b/fs/pipe.c\n--- a/fs/pipe.c\n+++ b/fs/pipe.c\n@@ -1,3 +1,4 @@\n int pipe;\n+x\n", "git cannot parse"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rs, err := g.Check(context.Background(), dir, "base", []Patch{{Name: "p", Diff: []byte(tt.patch)}})
			if err != nil {
				t.Fatal(err)
			}
			var all []string
			for _, r := range rs {
				all = append(all, r.Error())
			}
			joined := strings.Join(all, "\n")
			if tt.want == "" {
				if len(rs) > 0 {
					t.Fatalf("refused:\n%s", joined)
				}
				return
			}
			if !strings.Contains(joined, tt.want) {
				t.Fatalf("refusals:\n%s\nwant %q", joined, tt.want)
			}
		})
	}
	if out := testtree.Git(t, dir, "status", "--porcelain"); out != "" {
		t.Errorf("the repository changed: %s", out)
	}
	if out := testtree.Git(t, dir, "count-objects"); out != objectsBefore {
		t.Errorf("the guard wrote objects into the repository: %s -> %s", objectsBefore, out)
	}
}

// TestCheckIndex: the stable stage's path: patches already applied to a
// worktree's index with git apply --cached.
func TestCheckIndex(t *testing.T) {
	dir := miniTree(t)
	patch := "diff --git a/tools/gen/gen.c b/tools/gen/gen.c\n--- a/tools/gen/gen.c\n+++ b/tools/gen/gen.c\n@@ -1,2 +1,3 @@\n #include <stdio.h>\n+#include \"/etc/passwd\"\n #include \"../../include/linux/poly.h\"\n"
	testtree.GitInput(t, dir, patch, "apply", "--cached", "-")
	rs, err := New(nil, nil).CheckIndex(context.Background(), dir, "base", []Patch{{Name: "p", Diff: []byte(patch)}})
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 1 || !strings.Contains(rs[0].Error(), "tools/gen/gen.c: changes a host tool") {
		t.Fatalf("refusals %v", rs)
	}
}

// TestAllowPathsLiftsHostTools: runner.allow_paths exempts a derived host
// tool (the operator's call; the sandbox still confines the build), but
// never the content checks.
func TestAllowPathsLiftsHostTools(t *testing.T) {
	dir := miniTree(t)
	g := New(nil, []string{"include/linux/poly.h"})
	patch := func(added string) string {
		return "diff --git a/include/linux/poly.h b/include/linux/poly.h\n--- a/include/linux/poly.h\n+++ b/include/linux/poly.h\n@@ -1 +1,2 @@\n #define POLY 0xedb88320\n+" + added + "\n"
	}
	if rs, err := g.Check(context.Background(), dir, "base", []Patch{{Name: "p", Diff: []byte(patch("#define Y 1"))}}); err != nil || len(rs) > 0 {
		t.Fatalf("allowed host header refused: %v %v", rs, err)
	}
	rs, err := g.Check(context.Background(), dir, "base", []Patch{{Name: "p", Diff: []byte(patch(`#include "/etc/passwd"`))}})
	if err != nil || len(rs) != 1 || !strings.Contains(rs[0].Error(), "absolute host path") {
		t.Fatalf("content check lifted by allow_paths: %v %v", rs, err)
	}
}
