package registrations

import (
	"fmt"
	"strings"
	"testing"
)

// TestWrapperParamHidesFunction: a wrapper's callback parameter is a
// parameter even when a function of the same name exists elsewhere in
// the tree ("handler"): drv_irq() registers what its callers pass.
func TestWrapperParamHidesFunction(t *testing.T) {
	tree := map[string]string{
		"other.c": "void handler(void)\n{\n}\n",
		"drv.c": "static int drv_isr(int irq, void *d)\n{\n\treturn 0;\n}\n\n" +
			"static int drv_irq(int irq, int (*handler)(int, void *), void *d)\n{\n\treturn request_irq(irq, handler, 0, \"drv\", d);\n}\n\n" +
			"int drv_probe(void)\n{\n\treturn drv_irq(1, drv_isr, NULL);\n}\n",
	}
	cbs := []Callback{{Names: []string{"request_irq"}, Arg: 1, Kind: "hardirq", Why: "a primary handler"}}
	tab := New(Config{Index: openTree(t, tree), ID: "test", Callbacks: cbs})
	if len(tab.Of("drv_isr")) == 0 {
		t.Errorf("drv_isr not registered through drv_irq(); rows %+v", tab.Rows())
	}
	if len(tab.Of("handler")) != 0 {
		t.Error("the function named like the wrapper's parameter is registered")
	}
}

// TestWrapperRowsBound: the bound on derived rows counts wrappers, not the
// table's own rows: with more table rows than the bound, a wrapper is
// still derived.
func TestWrapperRowsBound(t *testing.T) {
	var cbs []Callback
	for i := 0; i <= maxWrapperRows; i++ {
		cbs = append(cbs, Callback{Names: []string{fmt.Sprintf("reg_%d", i)}, Arg: 0, Kind: "softirq", Why: "a test row"})
	}
	cbs = append(cbs, Callback{Names: []string{"request_irq"}, Arg: 1, Kind: "hardirq", Why: "a primary handler"})
	tree := map[string]string{
		"drv.c": "static int drv_isr(int irq, void *d)\n{\n\treturn 0;\n}\n\n" +
			"static int drv_irq(int irq, int (*fn)(int, void *), void *d)\n{\n\treturn request_irq(irq, fn, 0, \"drv\", d);\n}\n\n" +
			"int drv_probe(void)\n{\n\treturn drv_irq(1, drv_isr, NULL);\n}\n",
	}
	rows := DeriveRows(openTree(t, tree), "test", cbs)
	if len(rows) != len(cbs)+1 || !strings.Contains(rows[len(rows)-1].Why, "drv_irq() passes its fn to request_irq()") {
		t.Fatalf("%d rows for %d table rows, want the wrapper's too", len(rows), len(cbs))
	}
}
