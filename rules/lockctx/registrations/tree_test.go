package registrations

import (
	"fmt"
	"reflect"
	"sort"
	"testing"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/index"
	"github.com/autosel-bot/autosel-bot/index/indextest"
	"github.com/autosel-bot/autosel-bot/internal/testtree"
)

// regTree is a tree with registrations by name, through a member of the
// registered object (via) and read from a member (memberReg).
var regTree = map[string]string{
	"a.c": "void ha(void)\n{\n\tx();\n}\n\nvoid reg_a(void)\n{\n\tregister_cb(ha);\n}\n",
	"b.c": "static int hb(struct notifier_block *nb)\n{\n\treturn 0;\n}\n\nstatic struct notifier_block b_nb = {\n\t.notifier_call = hb,\n};\n\nvoid reg_b(void)\n{\n\tregister_nb(&b_nb);\n}\n",
	"c.c": "void hc(void)\n{\n}\n\nvoid reg_c(struct desc *d)\n{\n\tregister_cb(d->handler);\n\tregister_cb(hc);\n}\n",
	"d.c": "void plain(void)\n{\n\ty();\n}\n",
	"e.c": "void reg_e(void)\n{\n\tregister_cb(ha);\n}\n",
	"z.c": "void reg_z(void)\n{\n\tzz_register(ha);\n}\n",
}

// TestRegistrationsOverlay: the registrations of a patched view (sharing
// the tree's, or reusing the tree's for the files the patch leaves alone)
// are those of the patched tree indexed on its own.
func TestRegistrationsOverlay(t *testing.T) {
	cbs := []Callback{
		{Names: []string{"register_cb"}, Arg: 0, Kind: "hardirq", Why: "a test callback"},
		{Names: []string{"register_nb"}, Arg: 0, Via: "notifier_call", Kind: "rcu", Why: "a notifier"},
		{Prefix: []string{"register_trace_"}, Arg: 0, Kind: "rcu", Why: "a tracepoint probe"},
		{Names: []string{"zz_register"}, Arg: 0, Kind: "softirq", Why: "a last name"},
	}
	tests := []struct {
		name  string
		patch map[string]string
		// shared: the view shares the tree's registrations.
		shared bool
	}{
		{"no registration touched", map[string]string{"d.c": "void plain(void)\n{\n\ty();\n\tz();\n}\n"}, true},
		{"a registration added", map[string]string{"d.c": "void plain(void)\n{\n\tregister_cb(plain);\n}\n"}, false},
		{"a registration removed", map[string]string{"a.c": "void ha(void)\n{\n\tx();\n}\n"}, false},
		{"a registering file moved down", map[string]string{"c.c": "\n\n" + regTree["c.c"]}, false},
		{"a via registration changed", map[string]string{"b.c": regTree["b.c"] + "\nvoid reg_b2(void)\n{\n\tregister_nb(&b_nb);\n}\n"}, false},
		{"a file deleted", map[string]string{"a.c": ""}, false},
		{"a prefixed registration name of the patch's own", map[string]string{"a.c": regTree["a.c"] + "\nvoid reg_a2(void)\n{\n\tregister_trace_baz(ha);\n\tzz_register(ha);\n}\n"}, false},
		{"registered again between two files", map[string]string{"c.c": regTree["c.c"] + "\nvoid reg_c2(void)\n{\n\tregister_cb(ha);\n\tregister_cb(hc);\n}\n"}, false},
	}
	ix := openTree(t, regTree)
	tree := New(Config{Index: ix, ID: "test", Callbacks: cbs})
	tree.Of("")
	again := New(Config{Index: ix, ID: "test", Callbacks: cbs})
	again.Of("")
	if again.set.regs.tree != tree.set.regs.tree {
		t.Error("two tables over the tree found its registrations twice")
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			over, patched := testtree.Patched(regTree, tt.patch)
			ov := ix.Overlay(over)
			view := New(Config{Index: ov, Patch: patchFuncs(ov), ID: "test", Callbacks: cbs})
			view.Of("")
			alone := New(Config{Index: openTree(t, patched), ID: "test", Callbacks: cbs})
			alone.Of("")
			if got, want := regRows(view), regRows(alone); len(want) < 3 || !reflect.DeepEqual(got, want) {
				t.Errorf("registrations:\n got %q\nwant %q", got, want)
			}
			for _, fn := range []string{"ha", "hc", "plain"} {
				if got, want := view.Of(fn), alone.Of(fn); !reflect.DeepEqual(steps(got), steps(want)) {
					t.Errorf("registrations of %s in order:\n got %v\nwant %v", fn, steps(got), steps(want))
				}
			}
			if view.set.regs.tree != tree.set.regs.tree || view.set.members.tree != tree.set.members.tree {
				t.Error("the view does not share the tree's registrations")
			}
			if shared := view.set.regs.over == nil; shared != tt.shared {
				t.Errorf("shares the tree's registrations: %v, want %v", shared, tt.shared)
			}
		})
	}
}

// regRows renders a table's registrations, sorted (a view's merged from
// the tree's and its patch's).
func regRows(r *Table) []string {
	var out []string
	fns, members := map[string]bool{}, map[string]bool{}
	for _, k := range []*keyed[Reg]{r.set.regs.tree, r.set.regs.over} {
		if k != nil {
			for fn := range k.items {
				fns[fn] = true
			}
		}
	}
	for _, k := range []*keyed[memberReg]{r.set.members.tree, r.set.members.over} {
		if k != nil {
			for m := range k.items {
				members[m] = true
			}
		}
	}
	for fn := range fns {
		for _, g := range r.set.of(fn) {
			out = append(out, fmt.Sprintf("%s: %s %s %+v %s", fn, g.Row.Kind, g.Row.Why, g.Step, g.File))
		}
	}
	for m := range members {
		for _, g := range r.set.membersOf(m) {
			out = append(out, fmt.Sprintf("member %s: %s %+v %s %s:%s %s", m, g.Row.Kind, g.Step, g.File, g.caller.File, g.caller.Name, g.base))
		}
	}
	sort.Strings(out)
	return out
}

// patchFuncs returns the functions of the files an overlay rescans, by
// name (a resolver's patch functions).
func patchFuncs(ov *index.Index) map[string][]*cscan.Func {
	out := map[string][]*cscan.Func{}
	for _, p := range ov.OverlaidPaths() {
		if f := ov.File(p); f != nil {
			for _, fn := range f.Funcs {
				out[fn.Name] = append(out[fn.Name], fn)
			}
		}
	}
	return out
}

// steps returns where regs were registered, in their order.
func steps(regs []Reg) []string {
	var out []string
	for _, g := range regs {
		out = append(out, fmt.Sprintf("%s:%d", g.Step.File, g.Step.Line))
	}
	return out
}

// openTree indexes files in a directory of their own, without a cache.
func openTree(t *testing.T, files map[string]string) *index.Index {
	t.Helper()
	return indextest.Open(t, files)
}
