package registrations

import (
	"strings"
	"testing"
)

// TestMemberWrappers: a helper that stores its function-pointer parameter
// in a member of a member row's struct registers what its callers pass
// (a DMA helper's txdesc->callback = callback); one storing it in a
// member of the same name of another struct does not.
func TestMemberWrappers(t *testing.T) {
	tree := map[string]string{
		"dma.h": "struct dma_desc {\n\tvoid (*callback)(void *);\n\tvoid *param;\n};\n" +
			"struct other {\n\tvoid (*callback)(void *);\n};\n",
		"core.c": "#include \"dma.h\"\n" +
			"int core_prep(struct dma_desc *txdesc, void (*callback)(void *), void *arg)\n{\n\ttxdesc->callback = callback;\n\ttxdesc->param = arg;\n\treturn 0;\n}\n\n" +
			"int other_prep(struct other *o, void (*callback)(void *))\n{\n\to->callback = callback;\n\treturn 0;\n}\n",
		"drv.c": "#include \"dma.h\"\n" +
			"static void drv_done(void *p)\n{\n}\n\n" +
			"static void drv_other(void *p)\n{\n}\n\n" +
			"int drv_xfer(struct dma_desc *d, struct other *o)\n{\n\tcore_prep(d, drv_done, d);\n\treturn other_prep(o, drv_other);\n}\n",
	}
	cbs := []Callback{{Struct: "dma_desc", Members: []string{"callback"}, Kind: "softirq", Why: "DMA completions run from the engine's tasklet"}}
	tab := New(Config{Index: openTree(t, tree), ID: "test", Callbacks: cbs})
	regs := tab.Of("drv_done")
	if len(regs) == 0 {
		t.Fatalf("drv_done not registered through core_prep(); rows %+v", tab.Rows())
	}
	if !strings.Contains(regs[0].Row.Why, "core_prep() stores its callback in dma_desc.callback") {
		t.Errorf("why %q does not name the helper and the member", regs[0].Row.Why)
	}
	if len(tab.Of("drv_other")) != 0 {
		t.Error("a function stored in another struct's member of the same name is registered")
	}
}
