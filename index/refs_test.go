package index

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/autosel-bot/autosel-bot/internal/testtree"

	"github.com/autosel-bot/autosel-bot/internal/testkernel"
)

// checkFuncLines compares FuncLines with FuncOf for every function of
// files [0, n) of ix, and refuses refs out of range.
func checkFuncLines(t *testing.T, ix *Index, n int) int {
	t.Helper()
	funcs := 0
	for i := 0; i < n; i++ {
		refs := ix.FileRefs(i)
		for _, ref := range refs {
			fn := ix.FuncOf(ref)
			start, end, ok := ix.FuncLines(ref)
			if fn == nil || !ok || start != fn.Start || end != fn.End {
				t.Fatalf("FuncLines(%d/%d) = %d, %d, %v; FuncOf %+v", i, ref.Pos(), start, end, ok, fn)
			}
			funcs++
		}
		if _, _, ok := ix.FuncLines(MakeRef(i, len(refs)+1)); ok {
			t.Errorf("FuncLines past file %d's functions succeeded", i)
		}
	}
	if _, _, ok := ix.FuncLines(MakeRef(ix.NumFiles(), 0)); ok {
		t.Error("FuncLines past the last file succeeded")
	}
	return funcs
}

func TestFuncLines(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"kernel/m.c": "SYSCALL_DEFINE1(foo, int, x)\n{\n\treturn api(x);\n}\n\n" +
			"static int a_name_used_once_in_the_whole_tree(void)\n{\n\treturn 0;\n}\n",
	}
	for p, s := range treeFiles {
		files[p] = s
	}
	testtree.Write(t, dir, files)
	ix, err := Open(context.Background(), dir, Options{CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if n := checkFuncLines(t, ix, ix.NumFiles()); n != 7 {
		t.Errorf("%d functions, want 7", n)
	}
}

func TestKernelFuncLines(t *testing.T) {
	dir := testkernel.Dir(t)
	ix, err := Open(context.Background(), dir, Options{CacheDir: filepath.Join(filepath.Dir(dir), "index-cache")})
	if err != nil {
		t.Fatal(err)
	}
	if n := checkFuncLines(t, ix, min(ix.NumFiles(), 3000)); n < 10000 {
		t.Errorf("only %d functions in the first 3000 files", n)
	}
}
