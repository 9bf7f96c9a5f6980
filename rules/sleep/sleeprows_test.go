package sleep

import (
	"fmt"
	"strings"
	"testing"

	"github.com/autosel-bot/autosel-bot/report"
	"github.com/autosel-bot/autosel-bot/rules"
	"github.com/autosel-bot/autosel-bot/rules/rulestest"
)

// TestEverySleepingPrimitive checks every sleeping primitive of the
// built-in table (each name of a "sleep" row, and a name made from each
// prefix) end to end: a patch adds a call of it to a function that runs
// under a spinlock its caller takes, and it must be a risk there, its
// chain naming the primitive. A name another list of the table lifts
// (an allocator, a regmap call, a primitive that is safe in interrupt
// context) or a misspelt row fails here, whether or not a case covers it.
// A row with zero_arg gets a non-zero value in that argument.
func TestEverySleepingPrimitive(t *testing.T) {
	var tb tables
	if err := rules.LoadTables("sleep", nil, &tb); err != nil {
		t.Fatal(err)
	}
	rule := sleepRule(t)
	for _, row := range tb.Sleep {
		names := append([]string(nil), row.Names...)
		for _, p := range row.Prefix {
			names = append(names, p+"_generated")
		}
		for _, name := range names {
			t.Run(name, func(t *testing.T) {
				call := sleepingCall(name, row.ZeroArg)
				if row.Releases > 0 {
					// The lock it releases is the caller's.
					call = fmt.Sprintf("%s(d->wq, d->n, d->lock);", name)
				}
				// A primitive that sleeps with the caller's spinlock
				// released (releases, releases_queue) must still be a
				// risk inside rcu_read_lock().
				released := row.Releases > 0 || row.ReleasesQueue
				pre := sleepRowSource("", released)
				post := sleepRowSource(call, released)
				fs := rulestest.RunGenerated(t, rule, "drivers/misc/sleeprow.c", pre, post)
				for _, f := range fs {
					if f.Severity == report.SeverityRisk && f.Category == "sleep-in-atomic" &&
						f.Func == "sr_update" && chainNames(f.Chain, name) {
						return
					}
				}
				t.Errorf("%s: no risk on sr_update naming it; findings:\n%s", call, describe(fs))
			})
		}
	}
}

// sleepingCall writes a call of name with plain arguments: enough of
// them to reach zeroArg (1-based; 0 for none), which gets a non-zero
// value.
func sleepingCall(name string, zeroArg int) string {
	args := []string{"d"}
	for len(args) < zeroArg {
		args = append(args, "10")
	}
	return fmt.Sprintf("%s(%s);", name, strings.Join(args, ", "))
}

// sleepRowSource returns a file where sr_update() runs under the
// spinlock sr_outer() takes, and inside rcu_read_lock() too when rcu is
// set, with call (if any) added to it.
func sleepRowSource(call string, rcu bool) string {
	body := "\td->n++;\n"
	if call != "" {
		body = "\t" + call + "\n" + body
	}
	inner := "\tspin_lock(&d->lock);\n\tsr_update(d);\n\tspin_unlock(&d->lock);\n"
	if rcu {
		inner = "\trcu_read_lock();\n" + inner + "\trcu_read_unlock();\n"
	}
	return "#include <linux/spinlock.h>\n\n" +
		"struct sr {\n\tspinlock_t lock;\n\tint n;\n};\n\n" +
		"static void sr_update(struct sr *d)\n{\n" + body + "}\n\n" +
		"void sr_outer(struct sr *d)\n{\n" + inner + "}\n"
}

// chainNames reports whether a step of chain names the call name.
func chainNames(chain []report.Step, name string) bool {
	for _, s := range chain {
		if strings.Contains(s.What, name) {
			return true
		}
	}
	return false
}
