package lockctx

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/rules/lockmodel"
)

// target marks calls named "sleep*" as targets, except under a guard
// whose condition mentions "may_block".
type target struct{}

func (target) Reaches(c cscan.Call) (string, bool) {
	return "reaches", strings.HasPrefix(c.Name, "sleep")
}

func (target) Conditional(gs []cscan.Guard) bool {
	for _, g := range gs {
		if strings.Contains(g.Cond, "may_block") {
			return true
		}
	}
	return false
}

func testModel(t *testing.T) *Model {
	t.Helper()
	m, err := Compile("test", testLocks(), &Tables{}, target{})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// testLocks is the lock table of testModel.
func testLocks() *lockmodel.Table {
	return &lockmodel.Table{
		Acquire: []lockmodel.Row{{Names: []string{"spin_lock"}, Kind: "spin", Arg: 0}, {Names: []string{"rcu_read_lock"}, Kind: "rcu", Arg: -1},
			{Names: []string{"mutex_lock"}, Kind: "mutex", Arg: 0}},
		Release: []lockmodel.Row{{Names: []string{"spin_unlock"}, Kind: "spin", Arg: 0}, {Names: []string{"rcu_read_unlock"}, Kind: "rcu", Arg: -1},
			{Names: []string{"mutex_unlock"}, Kind: "mutex", Arg: 0}},
		Trylock: []lockmodel.Row{{Names: []string{"spin_trylock"}, Kind: "spin", Arg: 0}},
		Guards:  map[string]string{"spinlock": "spin", "mutex": "mutex"},
	}
}

// held renders the contexts held at each visited call: "name:kind key
// (some)|..." for calls whose name starts with "x" or "sleep".
func heldAt(t *testing.T, m *Model, src string) []string {
	t.Helper()
	f := cscan.ParseFile("a.c", []byte(src))
	patch := map[string][]*cscan.Func{}
	for _, fn := range f.Funcs {
		patch[fn.Name] = append(patch[fn.Name], fn)
	}
	r := NewResolver(m, nil, patch)
	var out []string
	Walk(r, patch["f"][0], func(v Visit) {
		if !strings.HasPrefix(v.Call.Name, "x") && !strings.HasPrefix(v.Call.Name, "sleep") && !strings.HasPrefix(v.Call.Name, "helper") {
			return
		}
		var hs []string
		for _, h := range v.State.Held {
			s := h.Kind
			if h.Key != "" {
				s += " " + h.Key
			}
			if !h.Must {
				s += " (some)"
			}
			hs = append(hs, s)
		}
		sort.Strings(hs)
		s := v.Call.Name + ":" + strings.Join(hs, ",")
		if v.Reach != nil {
			s += " reach " + v.Reach.Prim
		}
		out = append(out, s)
	})
	return out
}

func TestWalkContexts(t *testing.T) {
	m := testModel(t)
	tests := []struct {
		name, body string
		want       []string
	}{
		{"lock region", "spin_lock(&d->l);\n x1();\n spin_unlock(&d->l);\n x2();",
			[]string{"x1:spin d->l", "x2:"}},
		{"nested and rcu", "rcu_read_lock();\n spin_lock(&(d->l));\n sleep_a();\n spin_unlock(&d->l);\n x1();\n rcu_read_unlock();",
			[]string{"sleep_a:rcu,spin d->l reach sleep_a", "x1:rcu"}},
		{"one branch", "if (d->y)\n spin_lock(&l);\n x1();",
			[]string{"x1:spin l (some)"}},
		{"both branches", "if (d->y)\n spin_lock(&l);\n else\n spin_lock(&l);\n x1();",
			[]string{"x1:spin l"}},
		{"trylock", "if (spin_trylock(&l)) {\n x1();\n spin_unlock(&l);\n } else {\n x2();\n }\n x3();",
			[]string{"x1:spin l", "x2:", "x3:"}},
		{"goto unlock", "spin_lock(&l);\n if (d->y)\n goto out;\n x1();\nout:\n spin_unlock(&l);\n x2();",
			[]string{"x1:spin l", "x2:"}},
		{"return in region", "spin_lock(&l);\n if (d->y) {\n spin_unlock(&l);\n return 1;\n }\n x1();\n spin_unlock(&l);",
			[]string{"x1:spin l"}},
		{"guard to block end", "{\n guard(spinlock)(&l);\n x1();\n }\n x2();",
			[]string{"x1:spin l", "x2:"}},
		{"mutex guard not atomic", "guard(mutex)(&m);\n x1();",
			[]string{"x1:"}},
		{"scoped_guard", "scoped_guard(spinlock, &l) {\n x1();\n }\n x2();",
			[]string{"x1:spin l", "x2:"}},
		{"conditional target", "spin_lock(&l);\n if (may_block)\n sleep_b();\n spin_unlock(&l);",
			[]string{"sleep_b:spin l"}},
		{"callee effects", "helper_lock(d);\n x1();\n helper_sleep();\n helper_unlock(d);\n x2();",
			[]string{"helper_lock:", "x1:spin d->l", "helper_sleep:spin d->l reach sleep_c", "helper_unlock:spin d->l", "x2:"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src := "static void helper_lock(struct d *d)\n{\n\tspin_lock(&d->l);\n}\n\n" +
				"static void helper_unlock(struct d *d)\n{\n\tspin_unlock(&d->l);\n}\n\n" +
				"static void helper_sleep(void)\n{\n\tsleep_c();\n}\n\n" +
				"static int f(struct d *d)\n{\n " + tc.body + "\n return 0;\n}\n"
			got := heldAt(t, m, src)
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
}

func TestSummaryEffects(t *testing.T) {
	m := testModel(t)
	src := "static void lock_it(struct d *d)\n{\n\tspin_lock(&d->l);\n}\n\n" +
		"static bool try_it(struct d *d)\n{\n\tif (!spin_trylock(&d->l))\n\t\treturn false;\n\treturn true;\n}\n\n" +
		"static void drop_it(void)\n{\n\trcu_read_unlock();\n\tsleep_x();\n\trcu_read_lock();\n}\n"
	f := cscan.ParseFile("a.c", []byte(src))
	patch := map[string][]*cscan.Func{}
	for _, fn := range f.Funcs {
		patch[fn.Name] = append(patch[fn.Name], fn)
	}
	r := NewResolver(m, nil, patch)
	if s := r.SummaryOf(patch["lock_it"][0]); len(s.Acquires) != 1 || s.Acquires[0].Kind != "spin" || s.Reach != nil {
		t.Errorf("lock_it: %+v", s)
	}
	if s := r.SummaryOf(patch["try_it"][0]); len(s.CondAcquires) != 1 || len(s.Acquires) != 0 {
		t.Errorf("try_it: %+v", s)
	}
	s := r.SummaryOf(patch["drop_it"][0])
	if s.Reach == nil || s.Reach.Prim != "sleep_x" || len(s.Reach.Drops) != 1 || s.Reach.Drops[0].Kind != "rcu" {
		t.Errorf("drop_it: %+v", s)
	}
	for _, n := range r.Unresolved() {
		if patch[n] != nil {
			t.Errorf("%s is in the patch but unresolved", n)
		}
	}
}

func TestCompileErrors(t *testing.T) {
	if _, err := Compile("x", &lockmodel.Table{Acquire: []lockmodel.Row{{Names: []string{"a"}, Kind: "bogus"}}}, &Tables{}, nil); err == nil || !strings.Contains(err.Error(), "locks.acquire[0]") {
		t.Errorf("bad kind: %v", err)
	}
	if _, err := Compile("x", &lockmodel.Table{Guards: map[string]string{"g": "bogus"}}, &Tables{}, nil); err == nil {
		t.Error("bad guard kind accepted")
	}
	for _, cb := range []Callback{
		{Arg: 0, Kind: "preempt", Why: "no registration"},
		{Prefix: []string{"register_trace_"}, Decl: true, Kind: "preempt", Why: "a declaration prefix"},
		{Prefix: []string{""}, Kind: "preempt", Why: "an empty prefix"},
	} {
		if _, err := Compile("x", &lockmodel.Table{}, &Tables{Callbacks: []Callback{cb}}, target{}); err == nil || !strings.Contains(err.Error(), "x.callbacks[0]") {
			t.Errorf("%+v: %v", cb, err)
		}
	}
	if _, err := Compile("x", &lockmodel.Table{}, &Tables{Callbacks: []Callback{{Prefix: []string{"register_trace_"}, Kind: "preempt", Why: "a probe"}}}, target{}); err != nil {
		t.Errorf("prefix row: %v", err)
	}
}
