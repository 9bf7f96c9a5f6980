package lockctx

import (
	"context"
	"fmt"
	"github.com/autosel-bot/autosel-bot/rules/lockmodel"
	"reflect"
	"strings"
	"testing"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/index"
	"github.com/autosel-bot/autosel-bot/rules/lockctx/summary"
)

// TestStoredPairedFunctions: the functions of a rescanned file that a
// patch leaves as they were keep their stored summaries, renumbered to
// their new lines, and every summary in the view is what computing it
// gives; a change between functions pairs nothing.
func TestStoredPairedFunctions(t *testing.T) {
	m := testModel(t)
	ix := openStoreTree(t)
	if err := Prepare(context.Background(), m, ix, nil); err != nil {
		t.Fatal(err)
	}
	a := storeTree["a.c"]
	for _, tc := range []struct {
		name string
		src  string
		// changed are the patch's functions (as the diff reports them),
		// paired the functions expected to keep their stored summaries.
		changed, paired []string
		// clean must not be summarised again.
		clean []string
		// above: everything above the change is dirtied, because the
		// change closes a cycle through a summary it changed (a sleep taken
		// away dirties only the summaries derived through it:
		// TestStoredLossRederives).
		above bool
	}{
		{"function added on top", "void added(void)\n{\n\tquiet();\n}\n\n" + a,
			[]string{"added"}, []string{"leaf", "mid", "other", "top"}, []string{"outer", "outer2", "top2"}, false},
		{"body changed, same length", strings.Replace(a, "\tx++;\n", "\tx += 2;\n", 1),
			[]string{"leaf"}, []string{"mid", "other", "top"}, []string{"outer", "outer2", "top2"}, false},
		{"leaf sleeps, lines shift", strings.Replace(a, "\tx++;\n", "\tx++;\n\tsleep_short();\n", 1),
			[]string{"leaf"}, []string{"mid", "other", "top"}, []string{"outer2"}, false},
		{"other's sleep removed", strings.Replace(a, "\tsleep_long();\n", "\tquiet();\n\tquiet();\n", 1),
			[]string{"other"}, []string{"leaf", "mid", "top"}, []string{"outer"}, false},
		{"documented function added, head on its own line", strings.Replace(a, "void other(void)",
			"/**\n * added() - does nothing. Not \"/*\" code.\n */\nstatic void\nadded(void)\n{\n}\n\n// other\nvoid other(void)", 1),
			[]string{"added"}, []string{"leaf", "mid", "other", "top"}, []string{"outer", "outer2", "top2"}, false},
		{"leaf calls its caller's caller, whose summary stays", strings.Replace(a, "\tx++;\n", "\tx++;\n\touter2();\n", 1),
			[]string{"leaf"}, []string{"mid", "other", "top"}, nil, false},
		{"leaf sleeps and calls its caller's caller, whose summary changes", strings.Replace(a, "\tx++;\n", "\tsleep_short();\n\touter();\n", 1),
			[]string{"leaf"}, []string{"mid", "other", "top"}, nil, true},
		{"declaration added between functions", strings.Replace(a, "void top(void)", "static int calls;\nvoid top(void)", 1),
			[]string{"top"}, nil, nil, false},
		{"comment opened in a string", strings.Replace(a, "void top(void)", "static char *s = \"/*\";\nvoid top(void)", 1),
			[]string{"top"}, nil, nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			view := ix.Overlay(map[string][]byte{"a.c": []byte(tc.src)})
			patch := map[string][]*cscan.Func{}
			for _, fn := range view.File("a.c").Funcs {
				for _, n := range tc.changed {
					if fn.Name == n {
						patch[n] = append(patch[n], fn)
					}
				}
			}
			r := NewResolver(m, view, patch)
			st := r.view.Stats()
			if !reflect.DeepEqual(st.Paired, tc.paired) {
				t.Errorf("paired %v, want %v", st.Paired, tc.paired)
			}
			if got := st.Above > 0; got != tc.above {
				t.Errorf("everything above dirtied: %v, want %v", got, tc.above)
			}
			for _, n := range tc.clean {
				ref, _ := ix.RefOf(funcNamed(t, ix, n))
				if r.view.Dirty(ref) {
					t.Errorf("%s is dirty", n)
				}
			}
			plain := NewResolver(m, view, patch)
			plain.view = nil
			for _, p := range []string{"a.c", "b.c", "c.c", "d.c", "drv.c", "drv2.c", "w.c"} {
				for _, fn := range view.File(p).Funcs {
					if len(patch[fn.Name]) > 0 {
						continue // the rule asks for the patch's version
					}
					got, want := r.SummaryOf(fn), plain.SummaryOf(fn)
					if !reflect.DeepEqual(got, want) {
						t.Errorf("%s:\n stored   %s\n computed %s", fn.Name, summary.Append(nil, got), summary.Append(nil, want))
					}
				}
			}
		})
	}
}

// TestCycleStopsClimb: the climb stops at the first function that a
// changed function's new version read and that it found changed (the
// change closes a cycle), and everything above the change is then
// summarised as without a store.
func TestCycleStopsClimb(t *testing.T) {
	m := testModel(t)
	a := "void leaf(void)\n{\n}\n\nvoid mid(void)\n{\n\tleaf();\n}\n\nvoid top(void)\n{\n\tmid();\n}\n"
	var b strings.Builder
	for i := range 10 {
		fmt.Fprintf(&b, "void caller%d(void)\n{\n\tspin_lock(&l);\n\tmid();\n\tspin_unlock(&l);\n}\n\n", i)
	}
	ix := openCachedTree(t, map[string]string{"a.c": a, "b.c": b.String()})
	if err := Prepare(context.Background(), m, ix, nil); err != nil {
		t.Fatal(err)
	}
	// leaf() sleeps now and calls top(), which reaches it again through
	// mid(): mid() and top() change, and so do the ten callers of mid().
	src := strings.Replace(a, "void leaf(void)\n{\n}", "void leaf(void)\n{\n\tsleep_long();\n\ttop();\n}", 1)
	view := ix.Overlay(map[string][]byte{"a.c": []byte(src)})
	patch := map[string][]*cscan.Func{"leaf": view.Funcs("leaf")}
	r := NewResolver(m, view, patch)
	// leaf, then mid, then top (queued before the callers, by ref).
	if st := r.view.Stats(); st.Climbed != 3 {
		t.Errorf("the climb summarised %d functions, want 3", st.Climbed)
	}
	if r.view.Stats().Above == 0 {
		t.Error("nothing above the change dirtied")
	}
	sameAsComputed(t, m, view, patch, r, "a.c", "b.c")
}

// TestTwoChangesNoCycle: a changed function whose new version reads a
// function that another change of the patch changed closes no cycle (the
// first is summarised again with it): nothing is dirtied above the
// changes wholesale, and every summary is as computed without a store.
func TestTwoChangesNoCycle(t *testing.T) {
	m := testModel(t)
	a := "void leaf(void)\n{\n}\n\nvoid mid(void)\n{\n\tleaf();\n}\n\nvoid top(void)\n{\n\tquiet();\n}\n"
	var b strings.Builder
	for i := range 10 {
		fmt.Fprintf(&b, "void caller%d(void)\n{\n\tspin_lock(&l);\n\ttop();\n\tspin_unlock(&l);\n}\n\n", i)
	}
	ix := openCachedTree(t, map[string]string{"a.c": a, "b.c": b.String()})
	if err := Prepare(context.Background(), m, ix, nil); err != nil {
		t.Fatal(err)
	}
	// leaf() sleeps now, which changes mid(); top() now calls mid(),
	// which calls neither top() nor anything above it.
	src := strings.Replace(a, "void leaf(void)\n{\n}", "void leaf(void)\n{\n\tsleep_long();\n}", 1)
	src = strings.Replace(src, "\tquiet();", "\tmid();", 1)
	view := ix.Overlay(map[string][]byte{"a.c": []byte(src)})
	patch := map[string][]*cscan.Func{"leaf": view.Funcs("leaf"), "top": view.Funcs("top")}
	r := NewResolver(m, view, patch)
	if st := r.view.Stats(); st.Above != 0 {
		t.Errorf("%d functions dirtied with everything above them, want 0", st.Above)
	}
	sameAsComputed(t, m, view, patch, r, "a.c", "b.c")
}

// TestCycleThroughUnmovedSource: a1()'s new version calls b0(), which
// reaches a1() again through b1() (a cycle through a1's change), and
// which a0()'s change changed. a1()'s summary comes out as stored, so its
// change reaches nothing above it: b0()'s provenance holds a0() only and
// closesCycle lets a1() read it. The summaries of the component are then
// those of another entry than the analysis's.
func TestCycleThroughUnmovedSource(t *testing.T) {
	m := testModel(t)
	a := "void a0(void)\n{\n\tspin_lock(&l);\n}\n\nvoid a1(void)\n{\n\tspin_lock(&l);\n}\n"
	b := "void b0(void)\n{\n\ta0();\n\tb0();\n\tb1();\n}\n\nvoid b1(void)\n{\n\ta1();\n}\n"
	ix := openCachedTree(t, map[string]string{"a.c": a, "b.c": b})
	if err := Prepare(context.Background(), m, ix, nil); err != nil {
		t.Fatal(err)
	}
	src := "void a0(void)\n{\n\ta0();\n}\n\nvoid a1(void)\n{\n\tspin_lock(&l);\n\tb0();\n}\n"
	view := ix.Overlay(map[string][]byte{"a.c": []byte(src)})
	patch := map[string][]*cscan.Func{"a0": view.Funcs("a0"), "a1": view.Funcs("a1")}
	r := NewResolver(m, view, patch)
	if st := r.view.Stats(); st.Above == 0 {
		t.Error("nothing above the change dirtied: the cycle a1 -> b0 -> b1 -> a1 went undetected")
	}
	sameAsComputed(t, m, view, patch, r, "a.c", "b.c")
}

// TestPairedReadsConstThroughHeader: a constant macro a.c changes is read
// by a paired function through a macro of a private header (POOL_MASK ->
// MASK): the function names only the header's macro, stays paired, and
// keeps its stored summary (no reach), though computing it finds one.
func TestPairedReadsConstThroughHeader(t *testing.T) {
	m, err := Compile("test", testLocks(), &Tables{}, argTarget{})
	if err != nil {
		t.Fatal(err)
	}
	a := "#include \"a.h\"\n\n#define MASK ATOMIC\n\nvoid leaf(void)\n{\n\talloc(POOL_MASK);\n}\n\nvoid mid(void)\n{\n\tquiet();\n}\n"
	h := "#define POOL_MASK MASK\n"
	ix := openCachedTree(t, map[string]string{"a.c": a, "a.h": h})
	if err := Prepare(context.Background(), m, ix, nil); err != nil {
		t.Fatal(err)
	}
	src := strings.Replace(a, "#define MASK ATOMIC", "#define MASK KERNEL", 1)
	src = strings.Replace(src, "\tquiet();\n", "\tquiet();\n\tquiet();\n", 1)
	view := ix.Overlay(map[string][]byte{"a.c": []byte(src)})
	patch := map[string][]*cscan.Func{"mid": view.Funcs("mid")}
	r := NewResolver(m, view, patch)
	t.Logf("paired %v", r.view.Stats().Paired)
	sameAsComputed(t, m, view, patch, r, "a.c")
}

// TestRegistrationsShared: a patched view finds its own registrations,
// with the patch's (registrations.TestRegistrationsOverlay checks what
// the views share).
func TestRegistrationsShared(t *testing.T) {
	m, err := Compile("test", &lockmodel.Table{}, &Tables{
		Callbacks: []Callback{{Names: []string{"register_cb"}, Arg: 0, Kind: "hardirq", Why: "a test callback"}},
	}, target{})
	if err != nil {
		t.Fatal(err)
	}
	ix := openStoreTree(t)
	r1 := NewResolver(m, ix, nil)
	src := storeTree["a.c"] + "\nvoid reg(void)\n{\n\tregister_cb(leaf);\n}\n"
	view := ix.Overlay(map[string][]byte{"a.c": []byte(src)})
	r3 := NewResolver(m, view, nil)
	if held := r3.Implicit(view.Funcs("leaf")[0]); len(held) != 1 || held[0].Kind != "hardirq" {
		t.Errorf("leaf registered by the patch: held %+v", held)
	}
	if held := r1.Implicit(ix.Funcs("leaf")[0]); len(held) != 0 {
		t.Errorf("leaf in the tree: held %+v", held)
	}
}

// TestStoredPairedOpsTable: a patch that changes what an ops table's
// member is set to, beside a function, still pairs the file's other
// functions (the member's change is one of its own); a change to any
// other line between functions pairs nothing.
func TestStoredPairedOpsTable(t *testing.T) {
	m := testModel(t)
	e := `static void e_open(void)
{
	sleep_long();
}

static void e_flush(void)
{
	sleep_short();
}

static const struct my_ops e_ops = {
	.run = e_open,
	.stop = e_flush,
	.mode = 1,
};

void e_tail(void)
{
	quiet();
}
`
	b := "void ops_stop(struct my_ops *o)\n{\n\to->stop();\n}\n\nvoid ops_start(struct my_ops *o)\n{\n\to->start();\n}\n"
	ix := openCachedTree(t, map[string]string{"e.c": e, "b.c": b})
	if err := Prepare(context.Background(), m, ix, nil); err != nil {
		t.Fatal(err)
	}
	flush := "static void e_flush(void)\n{\n\tsleep_short();\n}\n\n"
	for _, tc := range []struct {
		name            string
		src             string
		changed, paired []string
	}{
		{"function deleted with its member", strings.Replace(strings.Replace(e, flush, "", 1), "\t.stop = e_flush,\n", "", 1),
			nil, []string{"e_open", "e_tail"}},
		{"member set to another function", strings.Replace(strings.Replace(e, "\tsleep_short();\n", "\tquiet();\n", 1),
			".stop = e_flush,", ".stop = e_open,", 1), []string{"e_flush"}, []string{"e_open", "e_tail"}},
		{"member added", strings.Replace(e, "\t.mode = 1,\n", "\t.mode = 1,\n\t.start = e_flush,\n", 1),
			nil, []string{"e_flush", "e_open", "e_tail"}},
		{"member set to a number", strings.Replace(strings.Replace(e, "\tsleep_short();\n", "\tquiet();\n", 1),
			".mode = 1,", ".mode = 2,", 1), []string{"e_flush"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			view := ix.Overlay(map[string][]byte{"e.c": []byte(tc.src)})
			patch := map[string][]*cscan.Func{}
			for _, n := range tc.changed {
				patch[n] = view.Funcs(n)
			}
			r := NewResolver(m, view, patch)
			if st := r.view.Stats(); !reflect.DeepEqual(st.Paired, tc.paired) {
				t.Errorf("paired %v, want %v", st.Paired, tc.paired)
			}
			sameAsComputed(t, m, view, patch, r, "e.c", "b.c")
		})
	}
}

// sameAsComputed checks that r (a view over the store) gives every
// function of files in view the summary computing it without a store
// gives.
func sameAsComputed(t *testing.T, m *Model, view *index.Index, patch map[string][]*cscan.Func, r *Resolver, files ...string) {
	t.Helper()
	plain := NewResolver(m, view, patch)
	plain.view = nil
	for _, p := range files {
		for _, fn := range view.File(p).Funcs {
			if got, want := r.SummaryOf(fn), plain.SummaryOf(fn); !reflect.DeepEqual(got, want) {
				t.Errorf("%s:\n stored   %s\n computed %s", fn.Name, summary.Append(nil, got), summary.Append(nil, want))
			}
		}
	}
}
