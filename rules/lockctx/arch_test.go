package lockctx

import (
	"reflect"
	"testing"

	"github.com/autosel-bot/autosel-bot/cscan"
)

func TestBuildable(t *testing.T) {
	gen := &cscan.Func{Name: "f", File: "drivers/gpio/gpiolib.c"}
	stub := &cscan.Func{Name: "f", File: "include/linux/gpio.h", Static: true}
	inline := &cscan.Func{Name: "f", File: "include/linux/gpio.h", Static: true, Calls: []cscan.Call{{Name: "g"}}}
	m68k := &cscan.Func{Name: "f", File: "arch/m68k/include/asm/mcfgpio.h", Static: true}
	x86 := &cscan.Func{Name: "f", File: "arch/x86/lib/f.c"}
	arm := &cscan.Func{Name: "f", File: "arch/arm/lib/f.c"}
	for _, tc := range []struct {
		name string
		defs []*cscan.Func
		from string
		want []*cscan.Func
	}{
		{"generic caller drops arch variants and config stubs", []*cscan.Func{m68k, gen, stub}, "drivers/net/x.c", []*cscan.Func{gen}},
		{"a header inline that calls something is no stub", []*cscan.Func{gen, inline}, "drivers/net/x.c", []*cscan.Func{gen, inline}},
		{"only config stubs: kept", []*cscan.Func{stub, stub}, "drivers/net/x.c", []*cscan.Func{stub, stub}},
		{"arch caller keeps its own", []*cscan.Func{m68k, gen, x86}, "arch/m68k/kernel/y.c", []*cscan.Func{m68k, gen}},
		{"only arch variants: all kept", []*cscan.Func{x86, arm}, "kernel/z.c", []*cscan.Func{x86, arm}},
		{"one definition", []*cscan.Func{m68k}, "drivers/net/x.c", []*cscan.Func{m68k}},
		{"arch caller never reaches another arch", []*cscan.Func{x86, arm}, "arch/parisc/kernel/cache.c", nil},
		{"arch caller, one definition of another arch", []*cscan.Func{x86}, "arch/parisc/kernel/cache.c", nil},
		{"arch caller, its own single definition", []*cscan.Func{x86}, "arch/x86/kernel/y.c", []*cscan.Func{x86}},
		{"arch/ file at top level is not an arch", []*cscan.Func{{Name: "f", File: "arch/Kconfig"}, gen}, "drivers/x.c", []*cscan.Func{{Name: "f", File: "arch/Kconfig"}, gen}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := buildable(tc.defs, tc.from); !reflect.DeepEqual(got, tc.want) {
				var g []string
				for _, f := range got {
					g = append(g, f.File)
				}
				t.Errorf("got %v", g)
			}
		})
	}
}
