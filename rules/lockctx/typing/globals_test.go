package typing

import "testing"

// TestGlobalTagFromExternInHeader: a global ops object filled in at init
// by another file than the one defining it ("x86_pmu.handle_irq = f;" in
// amd/core.c) is typed by the extern declaration of the subsystem header
// the file includes, attributes after the name included; a local of that
// name hides it, and a name no header declares stays untyped.
func TestGlobalTagFromExternInHeader(t *testing.T) {
	tree := map[string]string{
		"arch/x86/events/perf_event.h": "struct x86_pmu {\n\tint (*handle_irq)(void);\n};\n\nextern struct x86_pmu x86_pmu __read_mostly;\n",
		"arch/x86/events/core.c":       "#include \"perf_event.h\"\n\nstruct x86_pmu x86_pmu __read_mostly;\n",
		"arch/x86/events/amd/core.c": "#include \"../perf_event.h\"\n\nstatic int amd_irq(void)\n{\n\treturn 0;\n}\n\n" +
			"void amd_init(void)\n{\n\tx86_pmu.handle_irq = amd_irq;\n\tother.handle_irq = amd_irq;\n}\n\n" +
			"void amd_local(void)\n{\n\tstruct foo x86_pmu;\n\n\tx86_pmu.handle_irq = amd_irq;\n}\n",
	}
	ix := openTree(t, tree)
	ty := New(ix, nil)
	for _, tc := range []struct{ fn, name, want string }{
		{"amd_init", "x86_pmu", "x86_pmu"},
		{"amd_init", "other", ""},
		{"amd_local", "x86_pmu", ""},
	} {
		if got := ty.globalTag(funcNamed(t, ix, tc.fn), tc.name); got != tc.want {
			t.Errorf("globalTag(%s, %s) = %q, want %q", tc.fn, tc.name, got, tc.want)
		}
	}
}
