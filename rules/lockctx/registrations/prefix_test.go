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
// with the tree and without one). A call that only shares a longer name's
// start (unregister_trace_foo()) is none, and so is a function the tree
// defines (register_trace_kprobe(): a prefix names generated functions).
// A wrapper of a prefixed call (my_reg()) registers its own parameter, and
// not the arguments of the patch's prefixed calls.
func TestPrefixRows(t *testing.T) {
	tree := map[string]string{
		"t.c": "static void probe_a(void *data)\n{\n}\n\nstatic void probe_b(void *data)\n{\n}\n\n" +
			"void init_t(void)\n{\n\tregister_trace_foo(probe_a, NULL);\n\tregister_trace_bar(probe_b, NULL);\n\tunregister_trace_foo(probe_b, NULL);\n}\n",
		"k.c": "static void kp_handler(void)\n{\n}\n\nint register_trace_kprobe(void (*h)(void))\n{\n\treturn 0;\n}\n\nvoid init_k(void)\n{\n\tregister_trace_kprobe(kp_handler);\n}\n",
		"w.c": "static void probe_w(void *data)\n{\n}\n\nint my_reg(void *d, void (*fn)(void *))\n{\n\treturn register_trace_foo(fn, d);\n}\n\nvoid init_w(void)\n{\n\tmy_reg(NULL, probe_w);\n}\n",
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
	if got, want := registered(tab, "probe_a", "probe_b", "plain", "kp_handler", "probe_w"), []string{"probe_a", "probe_b", "probe_w"}; !reflect.DeepEqual(got, want) {
		t.Errorf("tree: registered %v, want %v", got, want)
	}
	rows := DeriveRows(ix, "test", cbs)
	if want := []string{"register_trace_bar", "register_trace_foo"}; len(rows) == 0 || !reflect.DeepEqual(rows[0].Names, want) {
		t.Errorf("derived rows %+v, want the row named %v", rows, want)
	}
	if len(cbs[0].Names) != 0 {
		t.Error("DeriveRows changed the table's row")
	}

	patch := map[string]string{"u.c": "static void probe_c(void *data)\n{\n}\n\nstatic void helper_fn(void *data)\n{\n}\n\nvoid plain(void)\n{\n\tregister_trace_baz(probe_c, helper_fn);\n}\n"}
	over, _ := testtree.Patched(tree, patch)
	view := ix.Overlay(over)
	funcs := map[string][]*cscan.Func{}
	for _, fn := range view.File("u.c").Funcs {
		funcs[fn.Name] = append(funcs[fn.Name], fn)
	}
	withPatch := New(Config{Index: view, ID: "test", Patch: funcs, Callbacks: cbs})
	if got, want := registered(withPatch, "probe_a", "probe_c", "plain", "helper_fn", "kp_handler"), []string{"probe_a", "probe_c"}; !reflect.DeepEqual(got, want) {
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
