package index

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	"github.com/autosel-bot/autosel-bot/internal/testtree"
)

// TestCallersOverlay: the call sites of a patched view (the tree's, found
// once per index, without the patched files' and with theirs) are those of
// the patched tree indexed on its own, and asking a view leaves the tree's
// answers alone.
func TestCallersOverlay(t *testing.T) {
	tree := map[string]string{
		"a.c": "void a1(void)\n{\n\tf(1);\n\tops->probe(x);\n}\n\nvoid a2(void)\n{\n\tf(2);\n}\n",
		"b.c": "void b1(void)\n{\n\tg();\n\tf(3);\n\tdev->drv.probe(y);\n}\n",
		"c.c": "void c1(void)\n{\n\th();\n}\n",
	}
	tests := []struct {
		name  string
		patch map[string]string // "" deletes a file
	}{
		{"nothing of theirs", map[string]string{"c.c": "void c1(void)\n{\n\th();\n\th();\n}\n"}},
		{"a call added", map[string]string{"c.c": "void c1(void)\n{\n\tf(4);\n\tp->probe(z);\n}\n"}},
		{"calls removed", map[string]string{"a.c": "void a1(void)\n{\n}\n"}},
		{"lines moved", map[string]string{"b.c": "\n\n" + tree["b.c"]}},
		{"a file deleted", map[string]string{"a.c": ""}},
		{"a file added", map[string]string{"d.c": "void d1(void)\n{\n\tf(5);\n\tq.probe(0);\n}\n"}},
	}
	ix := openFiles(t, tree)
	render := func(ix *Index) []string {
		var out []string
		for _, s := range ix.Callers("f") {
			out = append(out, fmt.Sprintf("f %s:%d %s %s", s.Func.File, s.Call.Line, s.Func.Name, s.Call.Args))
		}
		for _, s := range ix.MemberCallers("probe") {
			out = append(out, fmt.Sprintf("probe %s:%d %s %s", s.Func.File, s.Call.Line, s.Func.Name, s.Call.Name))
		}
		return out
	}
	before := render(ix)
	if len(before) != 5 {
		t.Fatalf("tree: %q", before)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			over, patched := testtree.Patched(tree, tt.patch)
			if got, want := render(ix.Overlay(over)), render(openFiles(t, patched)); !reflect.DeepEqual(got, want) {
				t.Errorf("view:\n got %q\nwant %q", got, want)
			}
			if got := render(ix); !reflect.DeepEqual(got, before) {
				t.Errorf("tree after the view:\n got %q\nwant %q", got, before)
			}
		})
	}
}

// openFiles indexes files in a directory of their own.
func openFiles(t *testing.T, files map[string]string) *Index {
	t.Helper()
	dir := t.TempDir()
	testtree.Write(t, dir, files)
	ix, err := Open(context.Background(), dir, Options{CacheDir: "-"})
	if err != nil {
		t.Fatal(err)
	}
	return ix
}

// TestCallersAfterRelease: after Release, the call sites are found again
// with the functions decoded again, the ones every other query returns.
func TestCallersAfterRelease(t *testing.T) {
	ix := openFiles(t, map[string]string{"a.c": "void a1(void)\n{\n\tf(1);\n}\n"})
	before := ix.Callers("f")
	if len(before) != 1 {
		t.Fatalf("%d call sites of f", len(before))
	}
	ref, ok := ix.RefOf(before[0].Func)
	if !ok {
		t.Fatal("no ref of a1")
	}
	ix.Release()
	after := ix.Callers("f")
	if len(after) != 1 {
		t.Fatalf("%d call sites of f after Release", len(after))
	}
	if after[0].Func == before[0].Func {
		t.Error("Callers kept the function decoded before Release")
	}
	if fn := ix.FuncOf(ref); after[0].Func != fn {
		t.Errorf("Callers' a1 %p is not FuncOf's %p", after[0].Func, fn)
	}
	if r, ok := ix.RefOf(after[0].Func); !ok || r != ref {
		t.Errorf("RefOf(a1) after Release: %v %v, want %v", r, ok, ref)
	}
}
