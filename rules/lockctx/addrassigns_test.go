package lockctx

import (
	"reflect"
	"testing"
)

// TestFamilyAddrAssignsPerView: the initializers by address of a driver
// family are the tree's in the tree's view and the view's in a patched
// one, whichever view asks first.
func TestFamilyAddrAssignsPerView(t *testing.T) {
	const root = "drivers/net/fam"
	files := map[string]string{
		"drivers/net/fam/a/ops.c": "static void foo(void)\n{\n}\n\nstatic void bar(void)\n{\n}\n\n" +
			"static const struct fam_ops ops = {\n\t.run = &foo,\n};\n",
		"drivers/net/fam/b/other.c": "static void baz(void)\n{\n}\n\nstatic const struct fam_ops ops2 = {\n\t.run = &baz,\n};\n",
	}
	patched := map[string][]byte{
		"drivers/net/fam/a/ops.c": []byte("static void foo(void)\n{\n}\n\nstatic void bar(void)\n{\n}\n\n" +
			"static const struct fam_ops ops = {\n\t.run = &bar,\n};\n"),
	}
	funcs := func(r *Resolver) []string {
		var out []string
		for _, a := range r.familyAddrAssigns(root) {
			out = append(out, a.File+":"+a.Func)
		}
		return out
	}
	tree := []string{"drivers/net/fam/a/ops.c:foo", "drivers/net/fam/b/other.c:baz"}
	view := []string{"drivers/net/fam/a/ops.c:bar", "drivers/net/fam/b/other.c:baz"}
	m := testModel(t)
	for _, viewFirst := range []bool{true, false} {
		ix := openTree(t, files)
		v := ix.Overlay(patched)
		if viewFirst {
			if got := funcs(NewResolver(m, v, nil)); !reflect.DeepEqual(got, view) {
				t.Errorf("view first: view %v, want %v", got, view)
			}
		}
		if got := funcs(NewResolver(m, ix, nil)); !reflect.DeepEqual(got, tree) {
			t.Errorf("view first %v: tree %v, want %v", viewFirst, got, tree)
		}
		if got := funcs(NewResolver(m, v, nil)); !reflect.DeepEqual(got, view) {
			t.Errorf("view first %v: view %v, want %v", viewFirst, got, view)
		}
	}
}
