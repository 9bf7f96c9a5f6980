package sleep

import (
	"fmt"
	"strings"
	"testing"

	"github.com/autosel-bot/autosel-bot/report"
	"github.com/autosel-bot/autosel-bot/rules"
	"github.com/autosel-bot/autosel-bot/rules/lockctx"
	"github.com/autosel-bot/autosel-bot/rules/rulestest"
)

// TestEveryCallbackRow checks every callback row of the built-in table
// end to end: a file registers one function per registration call, macro
// or struct member of the row, the way the row says the kernel registers
// it, and a patch makes each of them take a mutex. Each must be a risk: a
// row with a wrong argument index, a misspelt member or a macro another
// row shadows fails here, whether or not a case file covers it. (Objects
// are declared "static struct X", and member rows are also checked with
// their functions named by address in an array of such objects;
// typedef'd, nested and compound-literal declarations have typing tests
// and case files of their own.)
// Rows whose context comes from another member (held_from) are checked
// by their case files.
func TestEveryCallbackRow(t *testing.T) {
	var tb tables
	if err := rules.LoadTables("sleep", nil, &tb); err != nil {
		t.Fatal(err)
	}
	rule := sleepRule(t)
	for i, c := range tb.Callbacks {
		if c.HeldFrom != "" {
			continue
		}
		t.Run(fmt.Sprintf("%03d-%s", i, rowLabel(c)), func(t *testing.T) {
			pre, post, cbs := rowSources(c)
			fs := rulestest.RunGenerated(t, rule, "drivers/misc/rowcheck.c", pre, post)
			risky := map[string]bool{}
			for _, f := range fs {
				if f.Severity == report.SeverityRisk && f.Category == "sleep-in-atomic" {
					risky[f.Func] = true
				}
			}
			for _, cb := range cbs {
				if !risky[cb.fn] {
					t.Errorf("%s registered by %s: no risk; findings:\n%s", cb.fn, cb.by, describe(fs))
				}
			}
		})
	}
}

// rowCallback is one function a generated file registers, and how.
type rowCallback struct{ fn, by string }

// rowLabel names a row in subtest names.
func rowLabel(c lockctx.Callback) string {
	switch {
	case c.Struct != "":
		return c.Struct
	case len(c.Names) > 0:
		return c.Names[0]
	case len(c.Prefix) > 0:
		return c.Prefix[0]
	default:
		return strings.Join(c.Container, "-")
	}
}

// rowSources returns a file registering functions as row c says, before
// and after a patch that makes each of them take a mutex, and the
// functions with how each is registered.
func rowSources(c lockctx.Callback) (pre, post string, cbs []rowCallback) {
	var regs []string // registrations, in a function or at file scope
	var fileScope []string
	newCB := func(by string) string {
		fn := fmt.Sprintf("rc_cb%d", len(cbs))
		cbs = append(cbs, rowCallback{fn: fn, by: by})
		return fn
	}
	for _, n := range c.Names {
		fileScope, regs = registerByName(c, n, newCB, fileScope, regs)
	}
	for _, p := range c.Prefix {
		fileScope, regs = registerByName(c, p+"rc_event", newCB, fileScope, regs)
	}
	if c.Struct != "" {
		var b strings.Builder
		fmt.Fprintf(&b, "static struct %s rc_obj = {\n", c.Struct)
		for _, m := range c.Members {
			fmt.Fprintf(&b, "\t.%s = %s,\n", m, newCB(c.Struct+"."+m))
		}
		for _, o := range c.Only {
			fmt.Fprintf(&b, "\t%s,\n", o)
		}
		b.WriteString("};\n\n")
		// The same members named by address in a table of objects
		// (".enter = &fn" in a struct cpuidle_state array).
		fmt.Fprintf(&b, "static struct %s rc_objs[] = {\n\t{\n", c.Struct)
		for _, m := range c.Members {
			fmt.Fprintf(&b, "\t\t.%s = &%s,\n", m, newCB(c.Struct+"."+m+" by address"))
		}
		for _, o := range c.Only {
			fmt.Fprintf(&b, "\t\t%s,\n", o)
		}
		b.WriteString("\t},\n};\n")
		fileScope = append(fileScope, b.String())
	}
	var body = map[string]string{}
	for _, m := range c.Container {
		// A callback reaching its object through the container macro.
		fn := newCB(m + "()")
		body[fn] = fmt.Sprintf("struct rc_dev *d = %s(d, p, work);", m)
	}
	var before, after strings.Builder
	before.WriteString("static DEFINE_MUTEX(rc_lock);\nstatic int rc_count;\n\n")
	after.WriteString(before.String())
	for _, cb := range cbs {
		first := body[cb.fn]
		if first == "" {
			first = "rc_touch(p);"
		}
		head := fmt.Sprintf("static int %s(void *p)\n{\n\t%s\n", cb.fn, first)
		tail := "\trc_count++;\n\treturn 0;\n}\n\n"
		before.WriteString(head + tail)
		after.WriteString(head + "\tmutex_lock(&rc_lock);\n" + tail)
	}
	var rest strings.Builder
	for _, s := range fileScope {
		rest.WriteString(s + "\n")
	}
	rest.WriteString("int rc_probe(struct rc_dev *d)\n{\n")
	for _, call := range c.OnlyCalls {
		fmt.Fprintf(&rest, "\t%s(d->dev);\n", call)
	}
	for _, r := range regs {
		rest.WriteString("\t" + r + "\n")
	}
	rest.WriteString("\treturn 0;\n}\n")
	return before.String() + rest.String(), after.String() + rest.String(), cbs
}

// registerByName registers a new callback with the registration call or
// declaration macro name, its argument where row c says: the function
// itself, an array holding it (Array), or an object whose Via member
// holds it.
func registerByName(c lockctx.Callback, name string, newCB func(string) string, fileScope, regs []string) ([]string, []string) {
	arg := c.Arg
	if a, ok := c.ArgOf[name]; ok {
		arg = a
	}
	n := max(arg, c.ArgHas.Arg) + 2
	args := make([]string, n)
	for i := range args {
		args[i] = fmt.Sprintf("d->a%d", i)
	}
	if len(c.ArgHas.Any) > 0 {
		// A text that is part of an identifier ("_STARTING") is
		// completed into one; a whole one is the argument.
		args[c.ArgHas.Arg] = "CPUHP" + c.ArgHas.Any[0]
		if c.ArgHas.Whole {
			args[c.ArgHas.Arg] = c.ArgHas.Any[0]
		}
	}
	fn := newCB(name + "()")
	switch {
	case c.Array:
		obj := "rc_cbs_" + fn
		fileScope = append(fileScope, fmt.Sprintf("static void *%s[] = { NULL, %s };\n", obj, fn))
		args[arg] = obj
	case c.Via != "":
		obj := "rc_obj_" + fn
		fileScope = append(fileScope, fmt.Sprintf("static struct notifier_block %s = {\n\t.%s = %s,\n};\n", obj, c.Via, fn))
		args[arg] = "&" + obj
	default:
		args[arg] = fn
	}
	call := fmt.Sprintf("%s(%s);", name, strings.Join(args, ", "))
	if c.Decl {
		return append(fileScope, "static "+call+"\n"), regs
	}
	return fileScope, append(regs, call)
}
