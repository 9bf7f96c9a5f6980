package lockctx

import (
	"testing"

	"github.com/autosel-bot/autosel-bot/cscan"
)

// TestDropChainKeepsEnds: a release made three calls down reaches the
// top function's summary as two steps, its own call and the release
// itself, however deep the chain (the middle steps are never read and
// would be copied into every caller's summary).
func TestDropChainKeepsEnds(t *testing.T) {
	src := "void d(spinlock_t *l)\n{\n\tspin_unlock(l);\n}\n\n" +
		"void c(spinlock_t *l)\n{\n\td(l);\n}\n\n" +
		"void b(spinlock_t *l)\n{\n\tc(l);\n}\n\n" +
		"void a(spinlock_t *l)\n{\n\tb(l);\n}\n"
	f := cscan.ParseFile("a.c", []byte(src))
	patch := map[string][]*cscan.Func{}
	for _, fn := range f.Funcs {
		patch[fn.Name] = append(patch[fn.Name], fn)
	}
	r := NewResolver(testModel(t), nil, patch)
	for _, name := range []string{"a", "b", "c"} {
		s := r.SummaryOf(patch[name][0])
		if len(s.Drops) != 1 {
			t.Fatalf("%s: drops %+v, want one", name, s.Drops)
		}
		steps := s.Drops[0].Steps
		if len(steps) != 2 || steps[0].Func != name || steps[1].Func != "d" || steps[1].What != "spin_unlock(l)" {
			t.Errorf("%s: drop steps %+v, want %s's call and d's spin_unlock(l)", name, steps, name)
		}
	}
}
