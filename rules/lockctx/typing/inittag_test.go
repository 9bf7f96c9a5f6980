package typing

import (
	"slices"
	"strings"
	"testing"

	"github.com/autosel-bot/autosel-bot/index"
)

// initTagTree holds the initializers InitTag types: nested designated
// ones, a declaration by a struct's typedef, a compound literal, and one
// whose typedef no visible file defines.
var initTagTree = map[string]string{
	"include/linux/kdb.h": "typedef int (*kdb_func_t)(int, const char **);\n\n" +
		"typedef struct _kdbtab {\n\tchar *name;\n\tkdb_func_t func;\n} kdbtab_t;\n",
	"block/elevator.h": "struct elevator_mq_ops {\n\tvoid (*finish_request)(struct request *);\n};\n\n" +
		"struct elevator_type {\n\tstruct elevator_mq_ops ops;\n\tconst char *elevator_name;\n};\n",
	"include/linux/iommu.h": "struct iommu_domain_ops {\n\tint (*unmap_pages)(void);\n};\n\n" +
		"struct iommu_ops {\n\tconst struct iommu_domain_ops *default_domain_ops;\n};\n",
	"drivers/x/x.c": `#include <linux/kdb.h>
#include <linux/iommu.h>
#include "../../block/elevator.h"

static kdbtab_t x_cmd = {
	.name = "x",
	.func = x_kdb,
};

static struct elevator_type x_sched = {
	.ops = {
		.finish_request = x_finish,
	},
};

static const struct iommu_ops x_iommu = {
	.default_domain_ops = &(const struct iommu_domain_ops) {
		.unmap_pages = x_unmap,
	},
};

static unknown_t x_other = {
	.func = x_other_fn,
};
`,
}

// TestInitTag: the struct an initializer's assignment fills, however the
// object is declared.
func TestInitTag(t *testing.T) {
	ix := openTree(t, initTagTree)
	ty := New(ix, nil)
	src := initTagTree["drivers/x/x.c"]
	for _, tc := range []struct{ fn, want string }{
		{"x_kdb", "_kdbtab"},
		{"x_finish", "elevator_mq_ops"},
		{"x_unmap", "iommu_domain_ops"},
		{"x_other_fn", ""},
	} {
		line := lineOf(t, src, tc.fn)
		if got := ty.InitTag("drivers/x/x.c", line, tc.fn); got != tc.want {
			t.Errorf("InitTag(%s) = %q, want %q", tc.fn, got, tc.want)
		}
	}
}

// TestTypedAssignsNested: NestedAssignsOf types the assignments of nested
// designated initializers, which the index leaves untyped, and keeps those
// of another struct out; PlainAssignsOf leaves the tree's to it.
func TestTypedAssignsNested(t *testing.T) {
	tree := map[string]string{
		"block/elevator.h": initTagTree["block/elevator.h"] +
			"\nstruct other_type {\n\tstruct other_ops ops;\n};\n\nstruct other_ops {\n\tvoid (*finish_request)(struct request *);\n};\n",
		"block/a.c":    "#include \"elevator.h\"\n\nstatic struct elevator_type a_type = {\n\t.ops = {\n\t\t.finish_request = a_finish,\n\t},\n};\n",
		"block/b.c":    "#include \"elevator.h\"\n\nstatic struct other_type b_type = {\n\t.ops = {\n\t\t.finish_request = b_finish,\n\t},\n};\n",
		"block/core.c": "#include \"elevator.h\"\n\nvoid core(struct elevator_type *e, struct request *rq)\n{\n\te->ops.finish_request(rq);\n}\n",
	}
	ix := openTree(t, tree)
	ty := New(ix, nil)
	as := ix.AssignsTo("finish_request")
	got := ty.NestedAssignsOf("elevator_mq_ops", as, funcNamed(t, ix, "core"))
	if len(got) != 1 || got[0].Func != "a_finish" || got[0].Struct != "elevator_mq_ops" {
		t.Errorf("NestedAssignsOf(elevator_mq_ops, finish_request) = %+v, want a_finish alone", describe(got))
	}
	if got := ty.PlainAssignsOf("elevator_mq_ops", as, funcNamed(t, ix, "core")); len(got) != 0 {
		t.Errorf("PlainAssignsOf(elevator_mq_ops, finish_request) = %+v, want none (no file is the patch's)", describe(got))
	}
}

// TestExprTagGlobal: an object declared at file scope is typed by its
// declaration when the function does not declare the name with any type;
// struct members and prototype parameters of the file are no globals.
func TestExprTagGlobal(t *testing.T) {
	src := "struct x_priv {\n\tstruct foo_ops *ops;\n};\n\nvoid x_helper(struct foo *p);\n\n" +
		"static struct preempt_ops x_ops;\nstatic int x_count;\n\n" +
		"void x_init(void)\n{\n\tx_ops.sched_in = x_in;\n}\n\n" +
		"void x_local(void)\n{\n\tstruct other *x_ops = x_get();\n\n\tx_ops->sched_in = x_in;\n}\n\n" +
		"void x_int(void)\n{\n\tint *x_ops = x_get();\n\n\tx_ops[0] = 1;\n}\n\n" +
		"void x_param(int x_ops)\n{\n\tx_use(x_ops);\n}\n\n" +
		"void x_other(struct bar *b)\n{\n\tb->ops->run(p, ops);\n}\n"
	ix := openTree(t, map[string]string{"virt/x.c": src})
	ty := New(ix, nil)
	for _, tc := range []struct{ fn, expr, want string }{
		{"x_init", "x_ops", "preempt_ops"},
		{"x_local", "x_ops", "other"},
		{"x_int", "x_ops", ""},
		{"x_param", "x_ops", ""},
		{"x_init", "x_count", ""},
		{"x_other", "p", ""},
		{"x_other", "ops", ""},
	} {
		if got := ty.ExprTag(tc.expr, funcNamed(t, ix, tc.fn)); got != tc.want {
			t.Errorf("ExprTag(%s in %s) = %q, want %q", tc.expr, tc.fn, got, tc.want)
		}
	}
}

// lineOf returns the 1-based line of src holding s.
func lineOf(t *testing.T, src, s string) int {
	t.Helper()
	i := strings.Index(src, s)
	if i < 0 {
		t.Fatalf("%q not in source", s)
	}
	return strings.Count(src[:i], "\n") + 1
}

// describe lists the functions of assignments, for messages.
func describe(as []index.Assign) []string {
	var out []string
	for _, a := range as {
		out = append(out, a.Func+"@"+a.File+":"+a.Struct)
	}
	return out
}

// TestTypedefTagNotes: a typedef's struct is noted as a dependency on
// every answer, the cached ones too, so that each summary typed through
// it records it.
func TestTypedefTagNotes(t *testing.T) {
	ix := openTree(t, initTagTree)
	var noted []string
	ty := New(ix, func(k string) { noted = append(noted, k) })
	line := lineOf(t, initTagTree["drivers/x/x.c"], "x_kdb")
	for i := 0; i < 2; i++ {
		noted = nil
		if got := ty.InitTag("drivers/x/x.c", line, "x_kdb"); got != "_kdbtab" {
			t.Fatalf("InitTag(x_kdb) = %q, want _kdbtab", got)
		}
		if !slices.Contains(noted, StructKey("_kdbtab")) {
			t.Errorf("call %d noted %q, want %q among them", i+1, noted, StructKey("_kdbtab"))
		}
	}
}
