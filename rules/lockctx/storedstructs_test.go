package lockctx

import (
	"context"
	"strings"
	"testing"

	"github.com/autosel-bot/autosel-bot/cscan"
)

// structDepTree: via_holder() calls h->ops->run(), typed through struct
// holder, defined in t.h (which h.c includes through wrap.h), whose ops
// member is a struct my_ops: the call reaches drv_run(), which does not
// sleep. drv2.c installs a sleeping run in a struct other_ops.
var structDepTree = map[string]string{
	"t.h":    "struct my_ops {\n\tvoid (*run)(void);\n};\n\nstruct other_ops {\n\tvoid (*run)(void);\n};\n\nstruct holder {\n\tstruct my_ops *ops;\n};\n",
	"h.c":    "#include \"wrap.h\"\n\nvoid via_holder(struct holder *h)\n{\n\th->ops->run();\n}\n",
	"wrap.h": "#include \"t.h\"\n",
	// t2.h holds another struct holder, whose ops are other_ops.
	"t2.h":   "struct holder {\n\tstruct other_ops *ops;\n};\n",
	"drv.c":  "#include \"t.h\"\n\nstatic void drv_run(void)\n{\n}\n\nstatic const struct my_ops drv_ops = {\n\t.run = drv_run,\n};\n",
	"drv2.c": "#include \"t.h\"\n\nstatic void drv2_run(void)\n{\n\tsleep_long();\n}\n\nstatic const struct other_ops drv2_ops = {\n\t.run = drv2_run,\n};\n",
}

// TestStoredStructRetyped: a patch that changes the struct type of a
// member in a header changes how calls through it resolve in functions
// the patch does not touch; their stored summaries do not hold, and the
// view summarises them as it would without a store.
func TestStoredStructRetyped(t *testing.T) {
	m := testModel(t)
	ix := openCachedTree(t, structDepTree)
	if err := Prepare(context.Background(), m, ix, nil); err != nil {
		t.Fatal(err)
	}
	// Prepare notes via_holder() under typing.StructKey("holder") and
	// typing.MemberKey("holder", "ops"): the cases below that change
	// them climb from it (sumstore's member index).
	for _, tc := range []struct {
		name string
		file string
		text string
		// sleeps: via_holder() reaches the target in the view; climbs:
		// the patch changes what its typing read.
		sleeps, climbs bool
	}{
		{"member retyped", "t.h", strings.Replace(structDepTree["t.h"], "struct my_ops *ops;", "struct other_ops *ops;", 1), true, true},
		{"another member added", "t.h", strings.Replace(structDepTree["t.h"], "struct my_ops *ops;", "struct my_ops *ops;\n\tstruct other_ops *more;", 1), false, false},
		{"definition moved down", "t.h", "struct other_ops {\n\tvoid (*run)(void);\n};\n\n\n" + strings.Replace(structDepTree["t.h"], "struct other_ops {\n\tvoid (*run)(void);\n};\n\n", "", 1), false, false},
		{"another definition included first", "wrap.h", "#include \"t2.h\"\n#include \"t.h\"\n", true, true},
		{"the definition's header no longer included", "wrap.h", "\n", false, true},
		// Nothing includes a file the patch adds.
		{"another definition in a new header", "t3.h", structDepTree["t2.h"], false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			view := ix.Overlay(map[string][]byte{tc.file: []byte(tc.text)})
			r := NewResolver(m, view, map[string][]*cscan.Func{})
			fn := view.Funcs("via_holder")[0]
			plain := NewResolver(m, view, map[string][]*cscan.Func{})
			plain.view = nil
			stored, computed := r.SummaryOf(fn).Reach != nil, plain.SummaryOf(fn).Reach != nil
			if computed != tc.sleeps {
				t.Fatalf("without the store via_holder() reaches: %v, want %v", computed, tc.sleeps)
			}
			if stored != computed {
				t.Errorf("via_holder() reaches: %v with the store, %v without", stored, computed)
			}
			// Only a change of what typing read climbs at all.
			if climbed := r.view.Stats().Climbed; (climbed > 0) != tc.climbs {
				t.Errorf("the climb summarised %d functions", climbed)
			}
		})
	}
}
