package sumstore

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/index"
	"github.com/autosel-bot/autosel-bot/index/indextest"
	"github.com/autosel-bot/autosel-bot/rules/lockctx/registrations"
	"github.com/autosel-bot/autosel-bot/rules/lockctx/summary"
)

// reachEngine is a small engine: a function reaches the target when it
// calls a "sleep" function or a function that reaches it. In a Prepare
// (b set) it stores each summary with the functions it called as deps.
type reachEngine struct {
	ix   *index.Index
	b    *Builder
	memo map[*cscan.Func]*summary.Summary
}

func (e *reachEngine) SummaryOf(fn *cscan.Func) *summary.Summary {
	if s, ok := e.memo[fn]; ok {
		return s
	}
	s := &summary.Summary{}
	e.memo[fn] = s // recursion reads the summary being computed
	var deps []index.Ref
	for _, c := range fn.Calls {
		if strings.HasPrefix(c.Name, "sleep") {
			s.Reach = &summary.Reach{Prim: c.Name}
		}
		for _, g := range e.ix.Funcs(c.Name) {
			if ref, ok := e.ix.RefOf(g); ok {
				deps = append(deps, ref)
			}
			if s.Reach == nil && e.SummaryOf(g).Reach != nil {
				s.Reach = &summary.Reach{Prim: "via " + g.Name}
			}
		}
	}
	if e.b != nil {
		if ref, ok := e.ix.RefOf(fn); ok {
			e.b.Put(ref, deps, nil, s)
		}
	}
	return s
}

func (e *reachEngine) Forget(fn *cscan.Func) bool {
	_, ok := e.memo[fn]
	delete(e.memo, fn)
	return ok
}

func (e *reachEngine) Reset() { e.memo = map[*cscan.Func]*summary.Summary{} }

// prepareReach indexes tree and stores its reachEngine summaries under
// model id.
func prepareReach(t *testing.T, tree map[string]string, id string) *index.Index {
	t.Helper()
	ix := indextest.OpenCached(t, tree)
	sm := Summariser{ID: id,
		Engine: func(ix *index.Index, b *Builder) Engine {
			return &reachEngine{ix: ix, b: b, memo: map[*cscan.Func]*summary.Summary{}}
		},
		Rows: func(*index.Index) []registrations.Callback { return nil }}
	if err := Prepare(context.Background(), ix, sm, nil); err != nil {
		t.Fatal(err)
	}
	return ix
}

// TestSettle: the climb from a changed function marks dirty the callers
// whose summary changes and stops at those whose summary stays; a
// change that takes the target away dirties everything above it; an
// unchanged function of the rescanned file is paired with its new version.
func TestSettle(t *testing.T) {
	tree := map[string]string{
		"a.c": "void leaf(void)\n{\n\tquiet();\n}\n\nvoid mid(void)\n{\n\tleaf();\n}\n",
		"b.c": "void top(void)\n{\n\tmid();\n}\n\nvoid other(void)\n{\n\tquiet();\n}\n\nvoid both(void)\n{\n\tsleep_short();\n\tmid();\n}\n",
	}
	const id = "0123456789abcdef0123"
	ix := prepareReach(t, tree, id)
	ref := func(name string) index.Ref {
		r, _ := ix.RefOf(ix.Funcs(name)[0])
		return r
	}
	for _, tc := range []struct {
		name, leaf   string
		dirty, clean []string
		climbed      int
		above        bool
	}{
		// both() reached the target already: the climb stops there.
		{"leaf sleeps now", "\tsleep_long();", []string{"mid", "top"}, []string{"other", "both"}, 4, false},
		{"leaf changes nothing", "\tquiet();\n\tquiet();", nil, []string{"mid", "top", "other", "both"}, 1, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := strings.Replace(tree["a.c"], "\tquiet();", tc.leaf, 1)
			view := ix.Overlay(map[string][]byte{"a.c": []byte(src)})
			// The patch changes a.c, rescanned in the view: leaf() is a
			// source, mid() is paired with its new version.
			v := NewView(Open(ix, id), view, nil)
			e := &reachEngine{ix: view, memo: map[*cscan.Func]*summary.Summary{}}
			v.Settle(e, nil, nil)
			for _, n := range tc.dirty {
				if !v.Dirty(ref(n)) {
					t.Errorf("%s is not dirty", n)
				}
			}
			for _, n := range tc.clean {
				if v.Dirty(ref(n)) {
					t.Errorf("%s is dirty", n)
				}
				if v.Stored(ref(n)) == nil {
					t.Errorf("%s has no stored summary in the view", n)
				}
			}
			st := v.Stats()
			if st.Climbed != tc.climbed || (st.Above > 0) != tc.above {
				t.Errorf("climbed %d, above %d; want %d, %v", st.Climbed, st.Above, tc.climbed, tc.above)
			}
			if len(st.Paired) != 1 || st.Paired[0] != "mid" {
				t.Errorf("paired %v, want [mid]", st.Paired)
			}
		})
	}
}

// TestSettleConfigStub: a function defined twice in one file (the real
// one and its config stub) is compared, when the file is rescanned as a
// whole, with the new definition of its rank: the real one is not taken
// to have lost its reach to the stub, which would dirty everything above
// it.
func TestSettleConfigStub(t *testing.T) {
	tree := map[string]string{
		"a.c": "#ifdef CONFIG_X\nvoid hook(void)\n{\n\tsleep_short();\n}\n#else\nvoid hook(void)\n{\n}\n#endif\n",
		"b.c": "void top(void)\n{\n\thook();\n}\n\nvoid upper(void)\n{\n\ttop();\n}\n",
	}
	const id = "0123456789abcdef0124"
	ix := prepareReach(t, tree, id)
	// A declaration added outside the functions: the file is not paired,
	// both definitions of hook() are sources.
	view := ix.Overlay(map[string][]byte{"a.c": []byte("int hook_count;\n" + tree["a.c"])})
	v := NewView(Open(ix, id), view, nil)
	v.Settle(&reachEngine{ix: view, memo: map[*cscan.Func]*summary.Summary{}}, nil, nil)
	if st := v.Stats(); st.Above != 0 {
		t.Errorf("%d functions dirtied with everything above them, want 0", st.Above)
	}
	for _, n := range []string{"top", "upper"} {
		r, _ := ix.RefOf(ix.Funcs(n)[0])
		if v.Dirty(r) {
			t.Errorf("%s is dirty", n)
		}
	}
}

// TestPairConstMacros: a constant macro the patch adds between functions
// leaves the file's functions paired, unless an unchanged function reads
// it or it calls something; one it changes or deletes pairs nothing.
func TestPairConstMacros(t *testing.T) {
	tree := map[string]string{
		"a.c": "#define STEP 1\n#define UNUSED 7\n\nvoid leaf(void)\n{\n\tx += STEP + BIAS;\n}\n\nvoid mid(void)\n{\n\tleaf();\n}\n",
	}
	const id = "0123456789abcdef0125"
	ix := prepareReach(t, tree, id)
	for _, tc := range []struct {
		name, old, new string
		paired         []string
	}{
		{"constant added", "#define STEP 1\n", "#define STEP 1\n#define LIMIT (4 * STEP)\n", []string{"leaf", "mid"}},
		{"constant added, a line between changed too", "#define UNUSED 7\n\n", "#define UNUSED 7\n#define LIMIT 4\nint steps;\n\n", nil},
		{"constant a function reads changed", "#define STEP 1\n", "#define STEP 2\n", nil},
		// Another file's macro may read it (a header's "#define X UNUSED").
		{"constant nobody here reads changed", "#define UNUSED 7\n", "#define UNUSED 8\n", nil},
		// leaf() reads BIAS, defined elsewhere until the patch defines it here.
		{"constant a function already names added", "#define UNUSED 7\n", "#define UNUSED 7\n#define BIAS 2\n", nil},
		{"macro calling something added", "#define STEP 1\n", "#define STEP 1\n#define LOCKED spin_lock(&l)\n", nil},
		{"macro with parameters added", "#define STEP 1\n", "#define STEP 1\n#define TWICE(x) ((x) * 2)\n", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := strings.Replace(tree["a.c"], tc.old, tc.new, 1)
			view := ix.Overlay(map[string][]byte{"a.c": []byte(src)})
			v := NewView(Open(ix, id), view, nil)
			v.Settle(&reachEngine{ix: view, memo: map[*cscan.Func]*summary.Summary{}}, nil, nil)
			if got := v.Stats().Paired; !slices.Equal(got, tc.paired) {
				t.Errorf("paired %v, want %v", got, tc.paired)
			}
		})
	}
}
