package sleep

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/rules/lockctx"
)

// A GFP mask chosen by a test of the context (in_interrupt() ?
// GFP_ATOMIC : GFP_KERNEL) is only as good as the test. in_interrupt()
// and its kin see interrupt and softirq context and disabled bottom
// halves, not a spinlock, an RCU read-side section or disabled
// preemption; irqs_disabled() sees only interrupts. Under spin_lock() in
// process context such a test picks GFP_KERNEL, which may sleep. The
// context_tests rows say under which held contexts each test is true
// (or false); the engine knows what the call holds (lockctx's
// ContextArgTarget), and a test not listed decides nothing.

// contextTestRow says when a context test is true: under any of
// TrueUnder, else under none of FalseUnder.
type contextTestRow struct {
	Name       string   `yaml:"name"`
	TrueUnder  []string `yaml:"true_under"`
	FalseUnder []string `yaml:"false_under"`
}

// testCallRe matches a context test call with no arguments, negated or
// not, wrapped or not in likely()/unlikely().
var testCallRe = regexp.MustCompile(`^(!?)\s*(?:(?:un)?likely\s*\(\s*)?(!?)\s*([A-Za-z_]\w*)\s*\(\s*\)\s*\)?$`)

// ContextArg returns the GFP argument of an allocator (lockctx.ContextArgTarget).
func (m *sleeper) ContextArg(c cscan.Call) (int, bool) {
	i, ok := m.alloc[c.Name]
	return i, ok && i >= 0 && len(m.contextTests) > 0
}

// ReachesUnder reports whether mask expr, a choice by a context test,
// picks a sleeping mask with the contexts held in process context
// (lockctx.ContextArgTarget).
func (m *sleeper) ReachesUnder(c cscan.Call, expr string, held []lockctx.Held, assigned bool) (string, bool) {
	q, colon := cscan.Ternary(expr)
	if q < 0 {
		return "", false
	}
	t := testCallRe.FindStringSubmatch(cscan.StripParens(strings.TrimSpace(expr[:q])))
	if t == nil {
		return "", false
	}
	row, ok := m.contextTests[t[3]]
	if !ok || assigned && !row.ownContextOnly() {
		return "", false
	}
	kinds := heldKinds(held)
	raw := row.holds(kinds)
	val := raw != negated(t)
	pick := strings.TrimSpace(expr[colon+1:])
	if val {
		pick = strings.TrimSpace(expr[q+1 : colon])
	}
	if !m.gfpSleeps(pick) {
		return "", false
	}
	return fmt.Sprintf("allocates with %s: %s() is %v with %s held", pick, t[3], raw, strings.Join(kinds, ", ")), true
}

// compileContextTests indexes the context_tests rows by name, checking
// that each names atomic kinds the engine knows (lockctx.Kinds: bh and
// irq included) and only one of its lists.
func (m *sleeper) compileContextTests(rows []contextTestRow) error {
	m.contextTests = map[string]contextTestRow{}
	for _, r := range rows {
		if r.Name == "" || (len(r.TrueUnder) > 0) == (len(r.FalseUnder) > 0) {
			return fmt.Errorf("sleep table context_tests row %q: a name and one of true_under or false_under", r.Name)
		}
		for _, k := range append(append([]string(nil), r.TrueUnder...), r.FalseUnder...) {
			if !lockctx.Kinds[k] {
				return fmt.Errorf("sleep table context_tests row %q: unknown kind %q", r.Name, k)
			}
		}
		m.contextTests[r.Name] = r
	}
	return nil
}

// ownContextOnly reports whether the test depends only on the context
// the code runs in (interrupt or softirq), not on what it holds: its
// value is the same wherever in the function it was taken.
func (r contextTestRow) ownContextOnly() bool {
	for _, k := range append(append([]string(nil), r.TrueUnder...), r.FalseUnder...) {
		if k != "hardirq" && k != "softirq" {
			return false
		}
	}
	return true
}

// holds reports the value of the test with the kinds held.
func (r contextTestRow) holds(kinds []string) bool {
	if len(r.TrueUnder) > 0 {
		for _, k := range kinds {
			if slices.Contains(r.TrueUnder, k) {
				return true
			}
		}
		return false
	}
	for _, k := range kinds {
		if slices.Contains(r.FalseUnder, k) {
			return false
		}
	}
	return true
}

// irqCallRe matches the name of a call that takes a lock with
// interrupts off (spin_lock_irqsave, raw_spin_lock_irq_nested), bhCallRe
// one with bottom halves off.
var (
	bhCallRe  = regexp.MustCompile(`_bh$`)
	irqCallRe = regexp.MustCompile(`_irq(?:save)?(?:_nested)?$`)
)

// heldKinds returns the kinds of the held contexts, with "bh" and "irq"
// for a lock taken by a call that also disables bottom halves or
// interrupts (the lock model keeps one kind per lock).
func heldKinds(held []lockctx.Held) []string {
	var out []string
	add := func(k string) {
		if !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	for _, h := range held {
		add(h.Kind)
		name := h.AcquiringCall()
		if bhCallRe.MatchString(name) {
			add("bh")
		}
		if irqCallRe.MatchString(name) {
			add("irq")
		}
	}
	return out
}

// testValue returns the value of term, a context test call negated or
// not (!in_interrupt()), with kinds held; ok is false for any other term.
func (m *sleeper) testValue(term string, kinds []string) (val, ok bool) {
	t := testCallRe.FindStringSubmatch(cscan.StripParens(strings.TrimSpace(term)))
	if t == nil {
		return false, false
	}
	row, ok := m.contextTests[t[3]]
	if !ok {
		return false, false
	}
	return row.holds(kinds) != negated(t), true
}

// negated reports whether a testCallRe match t negates its test: one of
// its two places for "!" holds one.
func negated(t []string) bool {
	return (t[1] == "!") != (t[2] == "!")
}
