package registrations

import (
	"reflect"
	"slices"
	"testing"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/internal/testtree"
)

// TestPrefixRows: a prefix row registers through every call whose name
// starts with its prefix: those the tree makes (register_trace_foo(),
// register_trace_bar()), and one only a patch makes (register_trace_baz(),
// with the tree and without one); a call that only shares a longer name's
// start (unregister_trace_foo()) is none.
func TestPrefixRows(t *testing.T) {
	tree := map[string]string{
		"t.c": "static void probe_a(void *data)\n{\n}\n\nstatic void probe_b(void *data)\n{\n}\n\n" +
			"void init_t(void)\n{\n\tregister_trace_foo(probe_a, NULL);\n\tregister_trace_bar(probe_b, NULL);\n\tunregister_trace_foo(probe_b, NULL);\n}\n",
		"u.c": "void plain(void)\n{\n}\n",
	}
	cbs := []Callback{{Prefix: []string{"register_trace_"}, Arg: 0, Kind: "preempt", Why: "a tracepoint probe"}}
	registered := func(tab *Table, names ...string) []string {
		var out []string
		for _, n := range names {
			if len(tab.Of(n)) > 0 {
				out = append(out, n)
			}
		}
		return out
	}
	ix := openTree(t, tree)
	tab := New(Config{Index: ix, ID: "test", Callbacks: cbs})
	if got, want := registered(tab, "probe_a", "probe_b", "plain"), []string{"probe_a", "probe_b"}; !reflect.DeepEqual(got, want) {
		t.Errorf("tree: registered %v, want %v", got, want)
	}
	rows := DeriveRows(ix, "test", cbs)
	if want := []string{"register_trace_bar", "register_trace_foo"}; len(rows) == 0 || !reflect.DeepEqual(rows[0].Names, want) {
		t.Errorf("derived rows %+v, want the row named %v", rows, want)
	}
	if len(cbs[0].Names) != 0 {
		t.Error("DeriveRows changed the table's row")
	}

	patch := map[string]string{"u.c": "static void probe_c(void *data)\n{\n}\n\nvoid plain(void)\n{\n\tregister_trace_baz(probe_c, NULL);\n}\n"}
	over, _ := testtree.Patched(tree, patch)
	view := ix.Overlay(over)
	funcs := map[string][]*cscan.Func{}
	for _, fn := range view.File("u.c").Funcs {
		funcs[fn.Name] = append(funcs[fn.Name], fn)
	}
	withPatch := New(Config{Index: view, ID: "test", Patch: funcs, Callbacks: cbs})
	if got, want := registered(withPatch, "probe_a", "probe_c", "plain"), []string{"probe_a", "probe_c"}; !reflect.DeepEqual(got, want) {
		t.Errorf("patched view: registered %v, want %v", got, want)
	}
	if slices.ContainsFunc(New(Config{Index: ix, ID: "test", Callbacks: cbs}).Rows(), func(c Callback) bool { return slices.Contains(c.Names, "register_trace_baz") }) {
		t.Error("the patch's registration call reached the tree's rows")
	}
	alone := New(Config{Patch: funcs, ID: "test", Callbacks: cbs})
	if got, want := registered(alone, "probe_c"), []string{"probe_c"}; !reflect.DeepEqual(got, want) {
		t.Errorf("patch only: registered %v, want %v", got, want)
	}
}
