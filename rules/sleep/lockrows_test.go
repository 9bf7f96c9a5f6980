package sleep

import (
	"fmt"
	"strings"
	"testing"

	"github.com/autosel-bot/autosel-bot/report"
	"github.com/autosel-bot/autosel-bot/rules"
	"github.com/autosel-bot/autosel-bot/rules/lockmodel"
	"github.com/autosel-bot/autosel-bot/rules/rulestest"
)

// TestEveryAtomicAcquire checks every call of the lock table that enters
// an atomic context, end to end, in the two shapes a context reaches a
// function the patch makes sleep from away: taken by a caller two calls
// up, and taken by a helper that returns with it held (released by
// another helper after the call). The patch adds msleep() to the
// function; each must be a risk on it.
func TestEveryAtomicAcquire(t *testing.T) {
	var locks lockmodel.Table
	if err := rules.LoadTables("locks", nil, &locks); err != nil {
		t.Fatal(err)
	}
	rule := sleepRule(t)
	for _, row := range locks.Acquire {
		if !lockmodel.Atomic[row.Kind] {
			continue
		}
		rel, ok := releaseOf(locks.Release, row.Kind)
		if !ok {
			t.Errorf("no release row of kind %s for %v", row.Kind, row.Names)
			continue
		}
		for _, name := range row.Names {
			for _, shape := range []string{"caller", "helper"} {
				t.Run(name+"/"+shape, func(t *testing.T) {
					acq := lockCall(name, argOf(row, name))
					unl := lockCall(rel.Names[0], argOf(rel, rel.Names[0]))
					pre := lockShapeSource(shape, acq, unl)
					post := strings.Replace(pre, "{\n\td->n++;", "{\n\tmsleep(1);\n\td->n++;", 1)
					fs := rulestest.RunGenerated(t, rule, "drivers/misc/lockcheck.c", pre, post)
					for _, f := range fs {
						if f.Severity == report.SeverityRisk && f.Category == "sleep-in-atomic" && f.Func == "lk_target" {
							return
						}
					}
					t.Errorf("%s (%s): no risk on lk_target; findings:\n%s\nsource:\n%s", name, shape, describe(fs), pre)
				})
			}
		}
	}
}

// releaseOf returns the first release row of kind.
func releaseOf(rows []lockmodel.Row, kind string) (lockmodel.Row, bool) {
	for _, r := range rows {
		if r.Kind == kind && len(r.Names) > 0 {
			return r, true
		}
	}
	return lockmodel.Row{}, false
}

// argOf returns the argument of row's call name that names its lock.
func argOf(row lockmodel.Row, name string) int {
	if a, ok := row.ArgOf[name]; ok {
		return a
	}
	return row.Arg
}

// lockCall writes a call of name with the lock &d->lock as argument arg
// (none when arg is -1), the flags after it for the irqsave and
// irqrestore forms, and plain values before it.
func lockCall(name string, arg int) string {
	var args []string
	for i := 0; i < arg; i++ {
		args = append(args, "0")
	}
	if arg >= 0 {
		args = append(args, "&d->lock")
	}
	if strings.Contains(name, "irqsave") || strings.Contains(name, "irqrestore") {
		args = append(args, "flags")
	}
	return fmt.Sprintf("%s(%s);", name, strings.Join(args, ", "))
}

// lockShapeSource returns a file where lk_target() runs with the context
// acq enters: taken by lk_outer(), which calls lk_mid(), which calls
// lk_target() (caller), or taken by lk_lock(), which returns with it held
// to lk_outer() before the call (helper).
func lockShapeSource(shape, acq, unl string) string {
	target := "void lk_target(struct lk *d)\n{\n\td->n++;\n}\n\n"
	if shape == "caller" {
		return target +
			"static void lk_mid(struct lk *d)\n{\n\tlk_target(d);\n}\n\n" +
			"void lk_outer(struct lk *d)\n{\n\tunsigned long flags;\n\n\t" + acq + "\n\tlk_mid(d);\n\t" + unl + "\n}\n"
	}
	return target +
		"static unsigned long lk_lock(struct lk *d)\n{\n\tunsigned long flags = 0;\n\n\t" + acq + "\n\treturn flags;\n}\n\n" +
		"static void lk_unlock(struct lk *d, unsigned long flags)\n{\n\t" + unl + "\n}\n\n" +
		"void lk_outer(struct lk *d)\n{\n\tunsigned long flags = lk_lock(d);\n\n\tlk_target(d);\n\tlk_unlock(d, flags);\n}\n"
}
