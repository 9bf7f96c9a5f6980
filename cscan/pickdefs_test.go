package cscan

import (
	"fmt"
	"testing"
)

func TestPickDefs(t *testing.T) {
	many := make([]*Func, 10)
	for i := range many {
		many[i] = &Func{Name: "f", File: fmt.Sprintf("arch/a%d/f.c", i)}
	}
	tests := []struct {
		name string
		fns  []*Func
		from string
		want []string
	}{
		{"same file first", []*Func{{File: "a.c"}, {File: "b.c"}, {File: "b.c", Static: true}}, "b.c", []string{"b.c"}},
		{"static elsewhere is not reached", []*Func{{File: "a.c", Static: true}, {File: "c.c"}}, "b.c", []string{"c.c"}},
		{"static inline in a header is", []*Func{{File: "x.h", Static: true}}, "b.c", []string{"x.h"}},
		{"at most 8 globals", many, "b.c", []string{"arch/a0/f.c", "arch/a1/f.c", "arch/a2/f.c", "arch/a3/f.c", "arch/a4/f.c", "arch/a5/f.c", "arch/a6/f.c", "arch/a7/f.c"}},
		{"none", nil, "b.c", nil},
		{"kernel code does not reach a host program's", []*Func{{File: "mm/slab_common.c"}, {File: "tools/testing/radix-tree/linux.c"}}, "drivers/x.c", []string{"mm/slab_common.c"}},
		{"a host program reaches its own side", []*Func{{File: "mm/slab_common.c"}, {File: "tools/testing/radix-tree/linux.c"}}, "tools/testing/radix-tree/main.c", []string{"tools/testing/radix-tree/linux.c"}},
		{"only a host program defines it", []*Func{{File: "scripts/kconfig/util.c"}}, "kernel/fork.c", nil},
		{"a test module under tools/ is kernel code", []*Func{{File: "drivers/nvdimm/bus.c"}}, "tools/testing/nvdimm/test/nfit.c", []string{"drivers/nvdimm/bus.c"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, fn := range PickDefs(tt.fns, tt.from) {
				got = append(got, fn.File)
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("PickDefs = %v, want %v", got, tt.want)
			}
		})
	}
}
