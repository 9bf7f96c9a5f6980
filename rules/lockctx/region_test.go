package lockctx

import (
	"strings"
	"testing"

	"github.com/autosel-bot/autosel-bot/cscan"
)

// regionTarget is target with "sleep_fault" masked between nofault_on()
// and nofault_off().
type regionTarget struct{ target }

func (regionTarget) Region(prim string) ([]string, []string, bool) {
	return []string{"nofault_on"}, []string{"nofault_off"}, prim == "sleep_fault"
}

// TestMaskedRegion: a primitive a region masks does not reach the target
// inside it, on the region's path only, and masks no other sleep of a
// callee.
func TestMaskedRegion(t *testing.T) {
	m, err := Compile("test", testLocks(), &Tables{}, regionTarget{})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, body string
		want       []string
	}{
		{"inside", "spin_lock(&l); nofault_on(); sleep_fault(); nofault_off(); spin_unlock(&l);", nil},
		{"after the region", "spin_lock(&l); nofault_on(); nofault_off(); sleep_fault(); spin_unlock(&l);",
			[]string{"sleep_fault"}},
		{"another primitive inside", "spin_lock(&l); nofault_on(); sleep_other(); nofault_off(); spin_unlock(&l);",
			[]string{"sleep_other"}},
		{"nested, one closed", "spin_lock(&l); nofault_on(); nofault_on(); nofault_off(); sleep_fault(); nofault_off(); spin_unlock(&l);", nil},
		{"closed before opened", "spin_lock(&l); nofault_off(); sleep_fault(); nofault_on(); spin_unlock(&l);",
			[]string{"sleep_fault"}},
		{"through a helper", "spin_lock(&l); helper(); spin_unlock(&l);", nil},
		{"a helper called in the region", "spin_lock(&l); nofault_on(); helper2(); nofault_off(); spin_unlock(&l);", nil},
		{"a helper called outside it", "spin_lock(&l); helper2(); spin_unlock(&l);", []string{"sleep_fault"}},
		{"an error path closing it and returning", "spin_lock(&l); nofault_on(); if (!p) { nofault_off(); return; } sleep_fault(); nofault_off(); spin_unlock(&l);", nil},
		{"opened under a condition only", "spin_lock(&l); if (atomic) nofault_on(); sleep_fault(); spin_unlock(&l);",
			[]string{"sleep_fault"}},
		{"opened and reached on one line", "spin_lock(&l); nofault_on();sleep_fault();nofault_off(); spin_unlock(&l);", nil},
		{"a helper whose other sleep the region does not mask", "spin_lock(&l); nofault_on(); helper3(); nofault_off(); spin_unlock(&l);",
			[]string{"sleep_other"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := "void helper(void)\n{\n\tnofault_on();\n\tsleep_fault();\n\tnofault_off();\n}\n" +
				"void helper2(void)\n{\n\tsleep_fault();\n}\n" +
				"void helper3(void)\n{\n\tsleep_fault();\n\tsleep_other();\n}\n" +
				"void f(void)\n{\n\t" + strings.ReplaceAll(tt.body, "; ", ";\n\t") + "\n}\n"
			f := cscan.ParseFile("a.c", []byte(src))
			patch := map[string][]*cscan.Func{}
			for _, fn := range f.Funcs {
				patch[fn.Name] = append(patch[fn.Name], fn)
			}
			r := NewResolver(m, nil, patch)
			var got []string
			Walk(r, patch["f"][0], func(v Visit) {
				if v.Reach != nil && !v.State.Empty() {
					got = append(got, v.Reach.Prim)
				}
			})
			if strings.Join(got, ",") != strings.Join(tt.want, ",") {
				t.Errorf("reached under the lock: %v, want %v", got, tt.want)
			}
		})
	}
}
