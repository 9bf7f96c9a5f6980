package diffcheck

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
)

// FuzzParseDiff checks that Parse never panics, that every error is an
// *Error, and that what it accepts is self-consistent: safe paths, line
// numbers inside the diff, and function sides as long as their numbers.
func FuzzParseDiff(f *testing.F) {
	for _, s := range []string{multiHunk, offsetPatch,
		"diff --git a/x.c b/x.c\n--- a/x.c\n+++ b/x.c\n@@ -1 +1 @@\n-a\n+b\n\\ No newline at end of file\n",
		"--- a/x.c\n+++ b/x.c\n@@ -0,0 +1,2 @@\n+int f(void)\n+{\n",
		"diff --git a/a.c b/b.c\nsimilarity index 90%\nrename from a.c\nrename to b.c\n--- a/a.c\n+++ b/b.c\n@@ -3,3 +3,3 @@ int f(void)\n {\n-\tx();\n+\ty();\n }\n",
		"diff --git a/../x b/../x\n--- a/../x\n+++ b/../x\n@@ -1 +1 @@\n-a\n+b\n",
	} {
		f.Add(s)
	}
	for _, name := range []string{"testdata/watch-queue-1.diff", "testdata/watch-queue-2.diff"} {
		if b, err := os.ReadFile(name); err == nil {
			f.Add(string(b))
		}
	}
	f.Fuzz(func(t *testing.T, diff string) {
		cs, err := Parse(diff)
		if err != nil {
			var de *Error
			if !errors.As(err, &de) {
				t.Fatalf("error %T is not a *diffcheck.Error: %v", err, err)
			}
			return
		}
		nlines := strings.Count(diff, "\n") + 1
		for _, fc := range cs.Files {
			for _, p := range []string{fc.OldPath, fc.NewPath} {
				if p != "" && CheckPath(p) != nil {
					t.Fatalf("accepted unsafe path %q", p)
				}
			}
			for _, h := range fc.Hunks {
				if h.DiffLine < 1 || h.DiffLine > nlines {
					t.Fatalf("hunk diff line %d outside 1..%d", h.DiffLine, nlines)
				}
				for _, l := range h.Lines {
					if l.DiffLine <= h.DiffLine || l.DiffLine > nlines {
						t.Fatalf("line %+v outside hunk at %d", l, h.DiffLine)
					}
				}
			}
		}
		for _, fn := range cs.Funcs {
			for _, s := range []Side{fn.Old, fn.New} {
				n := 0
				if s.Text != "" || len(s.Lines) > 0 {
					n = strings.Count(s.Text, "\n") + 1
				}
				if n != len(s.Lines) || n != len(s.Changed) {
					t.Fatalf("%s: side has %d text lines, %d numbers, %d flags", fn.ID(), n, len(s.Lines), len(s.Changed))
				}
			}
		}
	})
}

// FuzzApplyTree applies arbitrary diffs onto a small in-memory tree: no
// panic, no endless offset search, and a tree view that reads back every
// file the patch names.
func FuzzApplyTree(f *testing.F) {
	for _, s := range []string{offsetPatch, multiHunk,
		strings.ReplaceAll(offsetPatch, "lib/x.c", "lib/new.c"),
		"diff --git a/lib/x.c b/lib/x.c\n--- a/lib/x.c\n+++ b/lib/x.c\n@@ -5,2 +5,2 @@\n static int helper(int a)\n-{\n+{ \n@@ -5,2 +5,2 @@\n static int helper(int a)\n-{\n+{ \n",
		"diff --git a/lib/x.c b/lib/x.c\ndeleted file mode 100644\n--- a/lib/x.c\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-#include <linux/spinlock.h>\n-\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, diff string) {
		cs, err := Parse(diff)
		if err != nil {
			return
		}
		tree := &MapTree{Name: "mem", Files: map[string][]byte{"lib/x.c": []byte(treeC), "fs/pipe.c": []byte(treeC)}}
		if err := ApplyTree(cs, tree); err != nil {
			t.Fatal(err)
		}
		if string(tree.Files["lib/x.c"]) != treeC {
			t.Fatal("ApplyTree modified the base tree")
		}
		for _, fn := range cs.Funcs {
			if len(fn.New.Lines) != len(fn.New.Changed) || len(fn.Old.Lines) != len(fn.Old.Changed) {
				t.Fatalf("%s: inconsistent sides", fn.ID())
			}
		}
	})
}

// bigDiff generates a diff of nfiles C files with nhunks hunks each.
func bigDiff(nfiles, nhunks int) string {
	var b strings.Builder
	for f := 0; f < nfiles; f++ {
		fmt.Fprintf(&b, "diff --git a/drivers/x/f%d.c b/drivers/x/f%d.c\nindex 1111111..2222222 100644\n--- a/drivers/x/f%d.c\n+++ b/drivers/x/f%d.c\n", f, f, f, f)
		for h := 0; h < nhunks; h++ {
			start := 10 + h*40
			fmt.Fprintf(&b, "@@ -%d,7 +%d,8 @@ static int func%d(struct device *dev, int arg)\n", start, start+h, h)
			b.WriteString(" \tint ret;\n \n \tspin_lock(&dev->lock);\n-\tret = do_thing(dev, arg);\n+\tret = do_other_thing(dev, arg);\n+\tmight_sleep();\n \tspin_unlock(&dev->lock);\n \treturn ret;\n }\n")
		}
	}
	return b.String()
}

// BenchmarkParseDiff parses a large generated diff (200 files x 20 hunks,
// ~1.5 MB) and maps its hunks to functions.
func BenchmarkParseDiff(b *testing.B) {
	diff := bigDiff(200, 20)
	b.SetBytes(int64(len(diff)))
	b.ReportAllocs()
	for b.Loop() {
		cs, err := Parse(diff)
		if err != nil {
			b.Fatal(err)
		}
		if len(cs.Funcs) != 200*20 {
			b.Fatalf("%d funcs", len(cs.Funcs))
		}
	}
}
