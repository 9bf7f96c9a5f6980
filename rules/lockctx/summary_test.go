package lockctx

import (
	"testing"

	"github.com/autosel-bot/autosel-bot/cscan"
)

// TestMayChoose: a reach found later can still be a summary's only when
// the ones before it are all uncertain and it is certain, or when there
// are none.
func TestMayChoose(t *testing.T) {
	weak, sure := &Reach{Weak: true}, &Reach{}
	for _, tc := range []struct {
		before []*Reach
		weak   bool
		want   bool
	}{
		{nil, true, true},
		{nil, false, true},
		{[]*Reach{weak}, false, true},
		{[]*Reach{weak}, true, false},
		{[]*Reach{weak, weak}, false, true},
		{[]*Reach{sure}, false, false},
		{[]*Reach{weak, sure}, false, false},
	} {
		if got := mayChoose(tc.before, tc.weak); got != tc.want {
			t.Errorf("mayChoose(%d before, weak %v) = %v, want %v", len(tc.before), tc.weak, got, tc.want)
		}
	}
}

// TestComponentReadAfterReturn: a function that reads the summary of a
// recursive component's member after that member returned, while the
// component's root is still being summarised, belongs to the component
// (Tarjan: the member is still on the component's stack). It is redone
// with the component's rounds, so its summary does not depend on where
// the component was entered: d reaches sleep_now() through m -> r
// whether r, m or d is summarised first. In the second tree the frame m
// returned to (f) has itself returned, provisional, before d reads m, at
// the stack position f had.
func TestComponentReadAfterReturn(t *testing.T) {
	for _, src := range []string{
		"void r(int x)\n{\n\tm(x);\n\td(x);\n\tsleep_now();\n}\n\n" +
			"void m(int x)\n{\n\tif (x)\n\t\tr(x);\n}\n\n" +
			"void d(int x)\n{\n\tm(x);\n}\n",
		"void r(int x)\n{\n\tf(x);\n\td(x);\n\tsleep_now();\n}\n\n" +
			"void f(int x)\n{\n\tm(x);\n\tif (x)\n\t\tr(x);\n}\n\n" +
			"void m(int x)\n{\n\tif (x)\n\t\tf(x);\n}\n\n" +
			"void d(int x)\n{\n\tm(x);\n}\n",
	} {
		f := cscan.ParseFile("a.c", []byte(src))
		patch := map[string][]*cscan.Func{}
		for _, fn := range f.Funcs {
			patch[fn.Name] = append(patch[fn.Name], fn)
		}
		for _, entry := range f.Funcs {
			r := NewResolver(testModel(t), nil, patch)
			r.SummaryOf(entry)
			for _, fn := range f.Funcs {
				if s := r.SummaryOf(fn); s.Reach == nil {
					t.Errorf("%d functions, entered at %s: %s has no reach", len(f.Funcs), entry.Name, fn.Name)
				}
			}
		}
	}
}

// argTarget is target with alloc(mask) reaching it when passed KERNEL.
type argTarget struct{ target }

func (argTarget) ArgDependent(c cscan.Call) (int, bool) {
	return 0, c.Name == "alloc" && len(c.Args) == 1 && c.Args[0] != "KERNEL" && c.Args[0] != "ATOMIC"
}

func (argTarget) ArgPrimitive(c cscan.Call) bool { return c.Name == "alloc" && len(c.Args) == 1 }

func (argTarget) ReachesWith(c cscan.Call, expr string) (string, bool) {
	return "allocates", expr == "KERNEL"
}

// TestComponentArgReachRounds: a component's rounds go on while the
// parameters its members' argument-dependent reaches depend on change
// (nothing else does here): m passes its mask to r, which allocates with
// it, whichever of the two is summarised first.
func TestComponentArgReachRounds(t *testing.T) {
	src := "void r(gfp_t g)\n{\n\tm(g);\n\talloc(g);\n}\n\n" +
		"void m(gfp_t g)\n{\n\tr(g);\n}\n"
	ix := openTree(t, map[string]string{"a.c": src})
	m, err := Compile("test", testLocks(), &Tables{}, argTarget{})
	if err != nil {
		t.Fatal(err)
	}
	for _, entry := range []string{"r", "m"} {
		r := NewResolver(m, ix, nil)
		r.SummaryOf(funcNamed(t, ix, entry))
		for _, name := range []string{"r", "m"} {
			if got := argParams(r.SummaryOf(funcNamed(t, ix, name))); got != 1 {
				t.Errorf("entered at %s: %s depends on parameters %b, want the first", entry, name, got)
			}
		}
	}
}
