package lockctx

import (
	"context"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/index"
	"github.com/autosel-bot/autosel-bot/index/indextest"
	"github.com/autosel-bot/autosel-bot/rules/lockctx/registrations"
	"github.com/autosel-bot/autosel-bot/rules/lockctx/summary"
	"github.com/autosel-bot/autosel-bot/rules/lockctx/sumstore"
	"github.com/autosel-bot/autosel-bot/rules/lockmodel"
)

// storeTree is a small tree: leaf() is called through mid() by top() and
// by outer() in another file, and drv.c installs an op that ops_call()
// calls through its struct type.
var storeTree = map[string]string{
	"a.c": `void leaf(int x)
{
	x++;
}

void mid(int x)
{
	leaf(x);
}

void top(void)
{
	spin_lock(&l);
	mid(1);
	spin_unlock(&l);
}

void other(void)
{
	sleep_long();
}
`,
	"b.c": `void ops_call(struct my_ops *o)
{
	o->run();
}

void ops_call2(struct other_ops *o)
{
	o->run();
}
`,
	"drv2.c": `static void drv2_run(void)
{
	sleep_long();
}

static const struct other_ops drv2_ops = {
	.run = drv2_run,
};
`,
	"c.c": `void outer(void)
{
	mid(2);
}

void outer2(void)
{
	other();
	leaf(3);
}
`,
	"w.c": `static void reg_wrap(void (*fn)(void))
{
	register_cb(fn);
}
`,
	"d.c": `void top2(void)
{
	outer2();
}
`,
	"drv.c": `static void drv_run(void)
{
}

static const struct my_ops drv_ops = {
	.run = drv_run,
};
`,
}

// openStoreTree writes storeTree into a temporary directory and opens its
// persisted index.
func openStoreTree(t *testing.T) *index.Index {
	t.Helper()
	return openCachedTree(t, storeTree)
}

// openCachedTree indexes a tree of the files given by path, with a cache
// directory (for a store).
func openCachedTree(t *testing.T, files map[string]string) *index.Index {
	t.Helper()
	return indextest.OpenCached(t, files)
}

func funcNamed(t *testing.T, ix *index.Index, name string) *cscan.Func {
	t.Helper()
	fns := ix.Funcs(name)
	if len(fns) != 1 {
		t.Fatalf("%s: %d definitions", name, len(fns))
	}
	return fns[0]
}

func TestPrepareStores(t *testing.T) {
	m, err := Compile("test", &lockmodel.Table{
		Acquire: []lockmodel.Row{{Names: []string{"spin_lock"}, Kind: "spin", Arg: 0}},
		Release: []lockmodel.Row{{Names: []string{"spin_unlock"}, Kind: "spin", Arg: 0}},
	}, &Tables{
		Callbacks: []Callback{{Names: []string{"register_cb"}, Arg: 0, Kind: "hardirq", Why: "a test callback"}},
	}, target{})
	if err != nil {
		t.Fatal(err)
	}
	ix := openStoreTree(t)
	if Stored(m, ix) {
		t.Fatal("stored before Prepare")
	}
	// Which files a store is, and that Prepare removes an older
	// version's, sumstore's TestPrepareFiles checks.
	if err := Prepare(context.Background(), m, ix, nil); err != nil {
		t.Fatal(err)
	}
	if !Stored(m, ix) {
		t.Fatal("not stored after Prepare")
	}
	// Another Index of the same tree finds the file.
	again, err := index.Open(context.Background(), ix.Root, index.Options{CacheDir: ix.CacheDir()})
	if err != nil {
		t.Fatal(err)
	}
	if !Stored(m, again) {
		t.Fatal("a second Index does not see the store")
	}
	r := NewResolver(m, again, nil)
	rows, ok := r.view.WrapperRows()
	// reg_wrap() passes its parameter to register_cb(): a wrapper row,
	// for calls from w.c only.
	if want := registrations.DeriveRows(again, m.id, m.callbacks); !ok || len(want) != 2 || registrations.NewStoredRows("", want).Files[1] != "w.c" || !reflect.DeepEqual(rows, want) {
		t.Errorf("stored rows %+v (%v), want %+v", rows, ok, want)
	}
	// The tree's registrations are stored too, and read back as a table
	// of the tree finds them (w.c's register_cb() call registers no
	// function of the tree: its argument is the wrapper's parameter).
	found, ok := registrations.New(registrations.Config{Index: again, ID: m.id, Callbacks: m.callbacks}).StoreTree()
	if stored, sok := r.view.TreeRegs(); !ok || !sok || stored.Generation != again.Generation() || stored.NRows != found.NRows ||
		len(stored.Regs) != len(found.Regs) || !reflect.DeepEqual(stored.Files, found.Files) || !reflect.DeepEqual(found.Files, []string{"w.c"}) {
		t.Errorf("stored registrations %+v (%v), want %+v", stored, sok, found)
	}
	if s := r.SummaryOf(funcNamed(t, again, "other")); s.Reach == nil || s.Reach.Prim != "sleep_long" {
		t.Errorf("other: %+v", s)
	}
	if r.Computed != 0 {
		t.Errorf("%d summaries computed with everything stored", r.Computed)
	}
}

func TestStoredUnderPatch(t *testing.T) {
	m := testModel(t)
	ix := openStoreTree(t)
	if err := Prepare(context.Background(), m, ix, nil); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		files map[string]string
		// outer and ops_call may reach the target in the patched view.
		midSleeps, opsSleeps bool
		// computed is the most summaries the view may compute.
		computed int
	}{
		{"leaf sleeps now", map[string]string{"a.c": storeTree["a.c"][:len("void leaf(int x)\n{\n")] + "\tsleep_long();\n" + storeTree["a.c"][len("void leaf(int x)\n{\n"):]},
			true, false, 10},
		{"no change in effect", map[string]string{"a.c": storeTree["a.c"][:len("void leaf(int x)\n{\n")] + "\tx--;\n" + storeTree["a.c"][len("void leaf(int x)\n{\n"):]},
			false, false, 5},
		{"op sleeps now", map[string]string{"drv.c": "static void drv_run(void)\n{\n\tsleep_long();\n}\n\nstatic const struct my_ops drv_ops = {\n\t.run = drv_run,\n};\n"},
			false, true, 10},
		{"op replaced", map[string]string{"drv.c": "static void drv_run(void)\n{\n}\n\nstatic void drv_run2(void)\n{\n\tsleep_long();\n}\n\nstatic const struct my_ops drv_ops = {\n\t.run = drv_run2,\n};\n"},
			false, true, 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := map[string][]byte{}
			for p, s := range tc.files {
				files[p] = []byte(s)
			}
			view := ix.Overlay(files)
			patch := map[string][]*cscan.Func{}
			for p := range tc.files {
				for _, fn := range view.File(p).Funcs {
					patch[fn.Name] = append(patch[fn.Name], fn)
				}
			}
			r := NewResolver(m, view, patch)
			mid := view.Funcs("outer")[0]
			if got := r.SummaryOf(mid).Reach != nil; got != tc.midSleeps {
				t.Errorf("outer reaches: %v, want %v", got, tc.midSleeps)
			}
			ops := view.Funcs("ops_call")[0]
			if got := r.SummaryOf(ops).Reach != nil; got != tc.opsSleeps {
				t.Errorf("ops_call reaches: %v, want %v", got, tc.opsSleeps)
			}
			// Without the store the same answers are computed.
			plain := NewResolver(m, view, patch)
			plain.view = nil
			if a, b := r.SummaryOf(mid).Reach != nil, plain.SummaryOf(mid).Reach != nil; a != b {
				t.Errorf("outer: stored %v, computed %v", a, b)
			}
			if r.Computed > tc.computed {
				t.Errorf("computed %d summaries, want at most %d", r.Computed, tc.computed)
			}
		})
	}
}

// preparedStoreTree opens storeTree with its summaries stored, and
// returns the model, the index and a function's ref by name.
func preparedStoreTree(t *testing.T) (*Model, *index.Index, func(string) index.Ref) {
	t.Helper()
	m := testModel(t)
	ix := openStoreTree(t)
	if err := Prepare(context.Background(), m, ix, nil); err != nil {
		t.Fatal(err)
	}
	ref := func(name string) index.Ref {
		r, ok := ix.RefOf(funcNamed(t, ix, name))
		if !ok {
			t.Fatalf("%s: no ref", name)
		}
		return r
	}
	return m, ix, ref
}

// checkDirty checks that the functions of dirty are summarised again
// under r's patch and those of clean read as stored.
func checkDirty(t *testing.T, r *Resolver, ref func(string) index.Ref, dirty, clean []string) {
	t.Helper()
	for _, n := range dirty {
		if !r.view.Dirty(ref(n)) {
			t.Errorf("%s is not dirty", n)
		}
	}
	for _, n := range clean {
		if r.view.Dirty(ref(n)) {
			t.Errorf("%s is dirty", n)
		}
	}
}

// TestSettleStopsWhereUnchanged: a change climbs the reverse deps only as
// far as summaries change; a change that takes a sleeping call away
// dirties the summaries derived through it.
func TestSettleStopsWhereUnchanged(t *testing.T) {
	m, ix, ref := preparedStoreTree(t)
	leafSleeps := strings.Replace(storeTree["a.c"], "\tx++;\n", "\tsleep_short();\n", 1)
	otherQuiet := strings.Replace(storeTree["a.c"], "\tsleep_long();\n", "\tquiet();\n", 1)
	for _, tc := range []struct {
		name         string
		src          string
		dirty, clean []string
		reaches      map[string]bool
	}{
		{"leaf sleeps", leafSleeps, []string{"outer"}, []string{"outer2", "top2"},
			map[string]bool{"outer": true, "outer2": true, "top2": true}},
		{"other no longer sleeps", otherQuiet, []string{"outer2", "top2"}, []string{"outer"},
			map[string]bool{"outer": false, "outer2": false, "top2": false}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			view := ix.Overlay(map[string][]byte{"a.c": []byte(tc.src)})
			patch := map[string][]*cscan.Func{}
			for _, fn := range view.File("a.c").Funcs {
				patch[fn.Name] = append(patch[fn.Name], fn)
			}
			r := NewResolver(m, view, patch)
			checkDirty(t, r, ref, tc.dirty, tc.clean)
			for n, want := range tc.reaches {
				if got := r.SummaryOf(view.Funcs(n)[0]).Reach != nil; got != want {
					t.Errorf("%s reaches: %v, want %v", n, got, want)
				}
			}
		})
	}
}

// TestStoredMovedAssignment: a patch that only moves an ops table (a new
// function above it) changes no member: the callers through it keep their
// stored summaries, and the place quoted in their chains is the new one.
func TestStoredMovedAssignment(t *testing.T) {
	m := testModel(t)
	ix := openStoreTree(t)
	if err := Prepare(context.Background(), m, ix, nil); err != nil {
		t.Fatal(err)
	}
	src := strings.Replace(storeTree["drv2.c"], "static const", "static void added(void)\n{\n}\n\nstatic const", 1)
	view := ix.Overlay(map[string][]byte{"drv2.c": []byte(src)})
	patch := map[string][]*cscan.Func{}
	for _, fn := range view.File("drv2.c").Funcs {
		patch[fn.Name] = append(patch[fn.Name], fn)
	}
	r := NewResolver(m, view, patch)
	caller := funcNamed(t, ix, "ops_call2")
	ref, _ := ix.RefOf(caller)
	if r.view.Dirty(ref) {
		t.Error("ops_call2 is dirty: a moved assignment counted as a change")
	}
	plain := NewResolver(m, view, patch)
	plain.view = nil
	got, want := r.SummaryOf(caller), plain.SummaryOf(caller)
	if got.Reach == nil || want.Reach == nil {
		t.Fatalf("ops_call2 reaches: stored %v, computed %v", got.Reach, want.Reach)
	}
	if !reflect.DeepEqual(got.Reach.Steps, want.Reach.Steps) {
		t.Errorf("chain:\n stored   %+v\n computed %+v", got.Reach.Steps, want.Reach.Steps)
	}
	quoted := false
	for _, st := range got.Reach.Steps {
		quoted = quoted || strings.Contains(st.What, "(assigned at drv2.c:11)")
	}
	if !quoted {
		t.Errorf("chain does not quote the moved assignment drv2.c:11: %+v", got.Reach.Steps)
	}
}

// TestSettlePreimage: a function whose hunks did not apply is its hunks'
// post-image in the view. Its summary lacks what the hunks do not show:
// set against the tree version's stored summary it "loses" something and
// dirties every caller. When the hunks change nothing a summary holds
// (the post-image has its pre-image's shape), calls reach the tree's
// version instead, with a store or without, and nothing above it is
// summarised again; otherwise the post-image stands for it, as before.
// Either way the store gives what computing everything gives.
func TestSettlePreimage(t *testing.T) {
	m, ix, ref := preparedStoreTree(t)
	// other() (a.c:19) sleeps in the tree; the hunks show lines of it.
	hunk := func(text string) *cscan.Func {
		var lines []int
		for i := range strings.Count(text, "\n") + 1 {
			lines = append(lines, 20+i)
		}
		fn := cscan.ParseBody(text, lines)
		fn.Name, fn.File = "other", "a.c"
		return fn
	}
	// leafLocks is a.c with leaf() taking a lock it keeps: a file that
	// did apply.
	leafLocks := strings.Replace(storeTree["a.c"], "\tx++;\n", "\tspin_lock(&k);\n", 1)
	for _, tc := range []struct {
		name      string
		pre, post string
		// preimage: the resolver is told the post-image's pre-image.
		preimage bool
		// applied: a.c applied as leafLocks beside the hunks.
		applied bool
		// dirty: outer2() and top2(), above other(), are summarised
		// again instead of read as stored.
		dirty bool
		// topReaches: top2() reaches a sleeping call in the view.
		topReaches bool
	}{
		{"hunks change no summary", "\tint y;\n\ty = 1;", "\tint y;\n\ty = 2;", true, false, false, true},
		{"hunks take a lock", "\tint y;\n\ty = 1;", "\tint y;\n\tspin_lock(&l);", true, false, true, false},
		// A line added above a call moves it in the post-image only: the
		// hunks' lines are the patch's, not the tree's.
		{"hunks move a call", "\ty = 1;\n\tsleep_long();", "\ty = 1;\n\ty++;\n\tsleep_long();", true, false, false, true},
		{"hunks add a sleeping call", "\ty = 1;\n\tx = 2;", "\ty = 1;\n\tsleep_short();", true, false, true, true},
		{"no pre-image known", "\tint y;\n\ty = 1;", "\tint y;\n\ty = 2;", false, false, true, false},
		// Another file of the patch applied: its functions are no
		// post-images, so the names are not neutral and every change is
		// followed as before (top2() also takes leaf()'s lock now).
		{"beside a file that applied", "\tint y;\n\ty = 1;", "\tint y;\n\ty = 2;", true, true, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resolver := func(ix *index.Index) (*Resolver, *index.Index) {
				view := ix
				post := hunk(tc.post)
				patch := map[string][]*cscan.Func{"other": {post}}
				if tc.applied {
					view = ix.Overlay(map[string][]byte{"a.c": []byte(leafLocks)})
					for _, fn := range view.File("a.c").Funcs {
						if fn.Name == "leaf" {
							patch["leaf"] = []*cscan.Func{fn}
						}
					}
				}
				var pre map[*cscan.Func]*cscan.Func
				if tc.preimage {
					pre = map[*cscan.Func]*cscan.Func{post: hunk(tc.pre)}
				}
				return NewPatchResolver(m, view, patch, pre), view
			}
			r, view := resolver(ix)
			for _, n := range []string{"outer2", "top2"} {
				if got := r.view.Dirty(ref(n)); got != tc.dirty {
					t.Errorf("%s dirty: %v, want %v", n, got, tc.dirty)
				}
			}
			// The same tree without stored summaries, its own for each
			// case: summaries computed without a store are shared by the
			// resolvers of a tree.
			plain, plainView := resolver(openStoreTree(t))
			if plain.view != nil {
				t.Fatal("the plain tree has stored summaries")
			}
			for _, n := range []string{"outer2", "top2"} {
				got := summary.Append(nil, r.SummaryOf(view.Funcs(n)[0]))
				want := summary.Append(nil, plain.SummaryOf(plainView.Funcs(n)[0]))
				if string(got) != string(want) {
					t.Errorf("%s: the store gives %q, computing it %q", n, got, want)
				}
			}
			if got := r.SummaryOf(view.Funcs("top2")[0]).Reach != nil; got != tc.topReaches {
				t.Errorf("top2 reaches: %v, want %v", got, tc.topReaches)
			}
			if tc.applied && len(r.SummaryOf(view.Funcs("top2")[0]).Acquires) == 0 {
				t.Error("top2 does not take leaf()'s lock")
			}
		})
	}
}

// TestSettlePreimagePerName: each post-image is decided on its own. With
// other()'s hunks neutral and leaf()'s taking a lock, leaf()'s callers are
// summarised again and other()'s calls reach the tree's version; the other
// way round, mid() and top() (above leaf() only) keep their stored
// summaries. Either way the store gives what computing everything gives.
func TestSettlePreimagePerName(t *testing.T) {
	m, ix, ref := preparedStoreTree(t)
	// hunk is a post- or pre-image of name: two lines at line.
	hunk := func(name, file string, line int, text string) *cscan.Func {
		fn := cscan.ParseBody(text, []int{line, line + 1})
		fn.Name, fn.File = name, file
		return fn
	}
	for _, tc := range []struct {
		name             string
		leafLocks        bool // leaf()'s hunks take a lock; else other()'s do
		dirty, clean     []string
		topAcquires      bool
		outer2Acquires   bool
		outer2SleepsLong bool
	}{
		{"leaf changes", true, []string{"mid", "top", "outer2"}, nil, true, true, true},
		{"other changes", false, []string{"outer2", "top2"}, []string{"mid", "top"}, false, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resolver := func(ix *index.Index) *Resolver {
				leafPre, leafPost := "\tint y;\n\ty = 1;", "\tint y;\n\ty = 2;"
				otherPre, otherPost := leafPre, leafPost
				if tc.leafLocks {
					leafPost = "\tint y;\n\tspin_lock(&k);"
				} else {
					otherPost = "\tint y;\n\tspin_lock(&k);"
				}
				leaf, other := hunk("leaf", "a.c", 3, leafPost), hunk("other", "a.c", 20, otherPost)
				return NewPatchResolver(m, ix, map[string][]*cscan.Func{"leaf": {leaf}, "other": {other}},
					map[*cscan.Func]*cscan.Func{leaf: hunk("leaf", "a.c", 3, leafPre), other: hunk("other", "a.c", 20, otherPre)})
			}
			r := resolver(ix)
			checkDirty(t, r, ref, tc.dirty, tc.clean)
			plainIx := openStoreTree(t)
			plain := resolver(plainIx)
			for _, n := range []string{"mid", "top", "outer2", "top2"} {
				got := summary.Append(nil, r.SummaryOf(ix.Funcs(n)[0]))
				want := summary.Append(nil, plain.SummaryOf(plainIx.Funcs(n)[0]))
				if string(got) != string(want) {
					t.Errorf("%s: the store gives %q, computing it %q", n, got, want)
				}
			}
			if got := len(r.SummaryOf(ix.Funcs("top")[0]).Acquires) > 0; got != tc.topAcquires {
				t.Errorf("top acquires: %v, want %v", got, tc.topAcquires)
			}
			o := r.SummaryOf(ix.Funcs("outer2")[0])
			if got := len(o.Acquires) > 0; got != tc.outer2Acquires {
				t.Errorf("outer2 acquires: %v, want %v", got, tc.outer2Acquires)
			}
			if got := o.Reach != nil && o.Reach.Prim == "sleep_long"; got != tc.outer2SleepsLong {
				t.Errorf("outer2 reaches sleep_long: %v, want %v (%+v)", got, tc.outer2SleepsLong, o.Reach)
			}
		})
	}
}

// TestFindNeutralCallBack: deciding a post-image summarises what its
// hunks call, here g(), which calls back into it (the tree's version does
// not call g()). When the hunks turn out to change the function, nothing
// summarised while deciding may stay: g() then reaches the new sleeping
// call through the post-image, with a store (the climb) and without one
// (no summary of the decision is shared).
func TestFindNeutralCallBack(t *testing.T) {
	files := map[string]string{
		"a.c": "void x(void)\n{\n\tint y;\n\ty = 1;\n}\n",
		"b.c": "void g(void)\n{\n\tx();\n}\n\nvoid top(void)\n{\n\tspin_lock(&l);\n\tg();\n\tspin_unlock(&l);\n}\n",
	}
	m := testModel(t)
	stored := openCachedTree(t, files)
	if err := Prepare(context.Background(), m, stored, nil); err != nil {
		t.Fatal(err)
	}
	plain := openCachedTree(t, files)
	hunk := func(text string) *cscan.Func {
		fn := cscan.ParseBody(text, []int{4, 5})
		fn.Name, fn.File = "x", "a.c"
		return fn
	}
	reach := func(ix *index.Index) []byte {
		post := hunk("\tsleep_long();\n\tg();")
		r := NewPatchResolver(m, ix, map[string][]*cscan.Func{"x": {post}}, map[*cscan.Func]*cscan.Func{post: hunk("\tint y;\n\ty = 1;")})
		if r.neutral["x"] {
			t.Fatal("x's hunks add a sleeping call but x is neutral")
		}
		return summary.Append(nil, r.SummaryOf(ix.Funcs("g")[0]))
	}
	got, want := reach(stored), reach(plain)
	if string(got) != string(want) {
		t.Errorf("g: the store gives %q, computing it %q", got, want)
	}
	if s, _ := summary.Decode(want); s == nil || s.Reach == nil || s.Reach.Prim != "sleep_long" {
		t.Errorf("g does not reach sleep_long through x's post-image: %q", want)
	}
}

// TestFindNeutralParamCalls: x's hunks change what top2 reaches through
// x when it passes a sleeping function (g passes it on to x), so x is not
// neutral, and top2 reaches sleep_long as it does for a resolver that
// decides nothing:
//   - hunks that only make x call its parameter (no summary of x
//     changes, ParamCalled does);
//   - hunks that take a lock and call it: what was found while deciding
//     (x looked up as the tree's, which calls nothing) is dropped with
//     the summaries, whether g calls its parameter included.
func TestFindNeutralParamCalls(t *testing.T) {
	files := map[string]string{
		"a.c": "void x(void (*cb)(void))\n{\n\tint y;\n\ty = 1;\n}\n",
		"b.c": "void slp(void)\n{\n\tsleep_long();\n}\n\nvoid g(void (*cb)(void))\n{\n\tx(cb);\n}\n\n" +
			"void top2(void)\n{\n\tg(slp);\n}\n",
	}
	m := testModel(t)
	ix := openCachedTree(t, files)
	hunk := func(text string) *cscan.Func {
		var lines []int
		for i := range strings.Count(text, "\n") + 1 {
			lines = append(lines, 3+i)
		}
		fn := cscan.ParseBody(text, lines)
		fn.Name, fn.File = "x", "a.c"
		return fn
	}
	top2 := ix.Funcs("top2")[0]
	for _, post := range []string{"\tcb();", "\tspin_lock(&k);\n\tcb();\n\ttop2();"} {
		t.Run(post, func(t *testing.T) {
			fn := hunk(post)
			patch := map[string][]*cscan.Func{"x": {fn}}
			r := NewPatchResolver(m, ix, patch, map[*cscan.Func]*cscan.Func{fn: hunk("\tint y;\n\ty = 1;")})
			if r.neutral["x"] {
				t.Error("x is neutral")
			}
			got := summary.Append(nil, r.SummaryOf(top2))
			want := summary.Append(nil, NewResolver(m, ix, patch).SummaryOf(top2))
			if string(got) != string(want) {
				t.Errorf("top2: %q after deciding, %q without", got, want)
			}
			if s, _ := summary.Decode(want); s == nil || s.Reach == nil || s.Reach.Prim != "sleep_long" {
				t.Errorf("top2 does not reach sleep_long through x's post-image: %q", want)
			}
		})
	}
}

// TestFindNeutralDecides: names are decided only when every function of
// the patch the tree defines has a pre-image; a function the tree does
// not define does not stop it.
func TestFindNeutralDecides(t *testing.T) {
	files := map[string]string{
		"a.c": "void x(int n)\n{\n\tint y;\n\ty = 1;\n}\n",
		"b.c": "void g(void)\n{\n\tx(1);\n}\n",
	}
	m := testModel(t)
	ix := openCachedTree(t, files)
	hunk := func(text string) *cscan.Func {
		fn := cscan.ParseBody(text, []int{3, 4})
		fn.Name, fn.File = "x", "a.c"
		return fn
	}
	other := func(name string) *cscan.Func {
		fn := cscan.ParseBody("\tquiet();", []int{3})
		fn.Name, fn.File, fn.Start, fn.BodyStart = name, "b.c", 1, 2
		return fn
	}
	for _, tc := range []struct {
		name    string
		beside  string // another function of the patch, without a pre-image
		neutral bool
	}{
		{"alone", "", true},
		{"beside a function the tree defines", "g", false},
		{"beside a new function", "newfn", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			post := hunk("\tint y;\n\ty = 2;")
			patch := map[string][]*cscan.Func{"x": {post}}
			if tc.beside != "" {
				patch[tc.beside] = []*cscan.Func{other(tc.beside)}
			}
			r := NewPatchResolver(m, ix, patch, map[*cscan.Func]*cscan.Func{post: hunk("\tint y;\n\ty = 1;")})
			if r.Neutral("x") != tc.neutral {
				t.Errorf("x neutral %v, want %v", r.Neutral("x"), tc.neutral)
			}
		})
	}
}

// openTree indexes files in a directory of their own, without a cache.
func openTree(t *testing.T, files map[string]string) *index.Index {
	t.Helper()
	return indextest.Open(t, files)
}

// TestStoredTinyCaches: over an index that keeps one page per file and
// one decoded record, every summary of the stored tree (pre-patch and
// under a patch) is the same as over one that keeps everything; Release
// drops the decoded records.
func TestStoredTinyCaches(t *testing.T) {
	m := testModel(t)
	ix := openStoreTree(t)
	if err := Prepare(context.Background(), m, ix, nil); err != nil {
		t.Fatal(err)
	}
	open := func(pageCache int64) *index.Index {
		t.Helper()
		o, err := index.Open(context.Background(), ix.Root, index.Options{CacheDir: ix.CacheDir(), PageCache: pageCache})
		if err != nil {
			t.Fatal(err)
		}
		return o
	}
	full, tiny := open(-1), open(1)
	patch := map[string][]byte{"a.c": []byte("void leaf(int x)\n{\n\tsleep_long();\n}\n\nvoid mid(int x)\n{\n\tleaf(x);\n}\n\nvoid top(void)\n{\n\tmid(1);\n}\n\nvoid other(void)\n{\n}\n")}
	summaries := func(base *index.Index, patched bool) map[string]*Summary {
		t.Helper()
		view, pf := base, map[string][]*cscan.Func(nil)
		if patched {
			view, pf = base.Overlay(patch), map[string][]*cscan.Func{}
			for _, fn := range view.File("a.c").Funcs {
				pf[fn.Name] = append(pf[fn.Name], fn)
			}
		}
		r := NewResolver(m, view, pf)
		out := map[string]*Summary{}
		var paths []string
		for p := range storeTree {
			paths = append(paths, p)
		}
		sort.Strings(paths)
		for _, p := range paths {
			for _, fn := range view.File(p).Funcs {
				out[p+":"+fn.Name] = r.SummaryOf(fn)
			}
		}
		return out
	}
	for _, patched := range []bool{false, true} {
		want, got := summaries(full, patched), summaries(tiny, patched)
		if len(want) < 10 || len(got) != len(want) {
			t.Fatalf("patched %v: %d summaries, want %d", patched, len(got), len(want))
		}
		for k, w := range want {
			if !reflect.DeepEqual(got[k], w) {
				t.Errorf("patched %v: %s with tiny caches %+v, want %+v", patched, k, got[k], w)
			}
		}
	}
	stats := func(ix *index.Index) sumstore.Stats {
		r := NewResolver(m, ix, nil)
		if r.view == nil {
			t.Fatal("no stored summaries")
		}
		return r.view.Stats()
	}
	if st := stats(tiny); st.Evicted == 0 || st.Cached != 1 || tiny.Pages().Evicted == 0 {
		t.Errorf("tiny caches: %d records evicted, %d cached, %d page bytes evicted", st.Evicted, st.Cached, tiny.Pages().Evicted)
	}
	if st := stats(full); st.Evicted != 0 || st.Cached < 10 {
		t.Errorf("unbounded: %d records evicted, %d cached", st.Evicted, st.Cached)
	}
	full.Release()
	if st := stats(full); st.Cached != 0 {
		t.Errorf("after Release: %d records cached", st.Cached)
	}
}
