package patchguard

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
)

// TestPartialScratchMatchesFull: the partial index sees exactly the
// changes the full one does, for every kind of change.
func TestPartialScratchMatchesFull(t *testing.T) {
	dir := miniTree(t)
	ctx := context.Background()
	patches := map[string]string{
		"modify":      "diff --git a/fs/pipe.c b/fs/pipe.c\n--- a/fs/pipe.c\n+++ b/fs/pipe.c\n@@ -1,3 +1,4 @@\n int pipe;\n+int x;\n int two;\n int three;\n",
		"octal":       "diff --git \"a/include/linux/\\160oly.h\" \"b/include/linux/\\160oly.h\"\n--- \"a/include/linux/\\160oly.h\"\n+++ \"b/include/linux/\\160oly.h\"\n@@ -1 +1,2 @@\n #define POLY 0xedb88320\n+#define EVIL 1\n",
		"rename":      "diff --git a/tools/gen/util.h b/fs/util.h\nsimilarity index 100%\nrename from tools/gen/util.h\nrename to fs/util.h\n",
		"copy":        "diff --git a/fs/pipe.c b/fs/pipe2.c\nsimilarity index 100%\ncopy from fs/pipe.c\ncopy to fs/pipe2.c\n",
		"delete":      "diff --git a/include/linux/unrelated.h b/include/linux/unrelated.h\ndeleted file mode 100644\n--- a/include/linux/unrelated.h\n+++ /dev/null\n@@ -1 +0,0 @@\n-#define X 1\n",
		"mode":        "diff --git a/fs/pipe.c b/fs/pipe.c\nold mode 100644\nnew mode 100755\n",
		"symlink":     "diff --git a/fs/l b/fs/l\nnew file mode 120000\n--- /dev/null\n+++ b/fs/l\n@@ -0,0 +1 @@\n+/etc/shadow\n\\ No newline at end of file\n",
		"new file":    "diff --git a/fs/new.c b/fs/new.c\nnew file mode 100644\n--- /dev/null\n+++ b/fs/new.c\n@@ -0,0 +1 @@\n+int n;\n",
		"plain paths": "--- x/fs/pipe.c\n+++ y/fs/pipe.c\n@@ -1,3 +1,4 @@\n int pipe;\n+int y;\n int two;\n int three;\n",
	}
	for name, patch := range patches {
		t.Run(name, func(t *testing.T) {
			names, _, err := numstat(ctx, []byte(patch))
			if err != nil {
				t.Fatal(err)
			}
			part, err := newPartialScratch(ctx, dir, "base", append(names, headerPaths([]byte(patch))...))
			if err != nil {
				t.Fatal(err)
			}
			defer part.close()
			if err := part.apply(ctx, []byte(patch)); err != nil {
				t.Fatalf("partial index: %v", err)
			}
			full, err := newScratch(ctx, dir, "base")
			if err != nil {
				t.Fatal(err)
			}
			defer full.close()
			if err := full.apply(ctx, []byte(patch)); err != nil {
				t.Fatalf("full index: %v", err)
			}
			pc, err := part.changes(ctx, "base")
			if err != nil {
				t.Fatal(err)
			}
			fc, err := full.changes(ctx, "base")
			if err != nil {
				t.Fatal(err)
			}
			if p, f := render(pc), render(fc); p != f || f == "" {
				t.Fatalf("partial:\n%s\nfull:\n%s", p, f)
			}
		})
	}
}

func render(cs []change) string {
	var out []string
	for _, c := range cs {
		out = append(out, fmt.Sprintf("%c %s %s->%s %s->%s", c.status, c.path, c.oldMode, c.newMode, c.oldSHA, c.newSHA))
	}
	sort.Strings(out)
	return strings.Join(out, "\n")
}

func TestHeaderPaths(t *testing.T) {
	got := strings.Join(headerPaths([]byte("diff --git \"a/\\115akefile\" \"b/\\115akefile\"\nrename from x y.c\nrename to z.c\n--- a/p.c\t2020-01-01\n")), "|")
	for _, want := range []string{"Makefile", "x y.c", "z.c", "p.c"} {
		if !strings.Contains("|"+got+"|", "|"+want+"|") {
			t.Errorf("missing %q in %q", want, got)
		}
	}
}
