package sleep

import (
	"slices"
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/rules/lockctx"
	"github.com/autosel-bot/autosel-bot/rules/lockmodel"
)

// tables is the "sleep" section of the primitive tables
// (rules/tables/sleep.yaml, extendable from config): the engine's
// callbacks and the sleeping primitives (the locks are the lock model's,
// rules/tables/locks.yaml).
type tables struct {
	lockctx.Tables `yaml:",inline"`
	Sleep          []sleepRow     `yaml:"sleep"`
	Alloc          map[string]int `yaml:"alloc"`
	GFPSleep       []string       `yaml:"gfp_sleep"`
	GFPAtomic      []string       `yaml:"gfp_atomic"`
	TrueConds      []string       `yaml:"true_conds"`
	CondSleep      []string       `yaml:"cond_sleep_guards"`
	// CondSleepElse are the context tests whose if branch is the atomic
	// case: a sleeping call in the else branch of a test that holds one
	// of them, not negated, is not counted (lockctx.ElseTarget).
	CondSleepElse []string       `yaml:"cond_sleep_else_guards"`
	FileSleep     []fileSleepRow `yaml:"file_sleep"`
	MaskSleep     []maskSleepRow `yaml:"mask_sleep"`
	// SleepGuards are the guard classes whose lock sleeps, with why:
	// guard(mutex)(&m) and scoped_guard(mutex, &m) take a mutex.
	SleepGuards map[string]string `yaml:"sleep_guards"`
	// InterruptSafe are sleeping primitives that do not sleep in
	// interrupt context (in_interrupt(): hard or soft interrupt, or
	// bottom halves disabled), where they defer their work instead
	// (vfree()).
	InterruptSafe []string `yaml:"interrupt_safe"`
	// RegmapBus are the regmaps on sleeping buses that must not ask for
	// a spinlock (regmapbus.go).
	RegmapBus regmapBusRules `yaml:"regmap_bus"`
	// Boot are the functions that run while the kernel is booting on one
	// CPU: the contexts they enter make no sleep a bug (shutdown.go).
	Boot []string `yaml:"boot"`
	// ShutdownSafe are the sleeping primitives that work atomically in
	// restart and power-off handlers (shutdown.go).
	ShutdownSafe []shutdownSafeRow `yaml:"shutdown_safe"`
	// FaultRegion is the region in which the "fault" rows do not sleep.
	FaultRegion faultRegion `yaml:"fault_region"`
	// ContextTests say when each test of the running context a GFP mask
	// may be chosen by is true (contextmask.go).
	ContextTests []contextTestRow `yaml:"context_tests"`
	// ProcessDeferrals are the calls that hand work to a worker in
	// process context (liftedcaller.go).
	ProcessDeferrals []string `yaml:"process_deferrals"`
}

// faultRegion names the calls that open and close a region in which a
// user access does not fault pages in (pagefault_disable() ...
// pagefault_enable()): it fails instead of sleeping.
type faultRegion struct {
	Open  []string `yaml:"open"`
	Close []string `yaml:"close"`
}

// sleepRow lists sleeping primitives.
type sleepRow struct {
	Names  []string `yaml:"names"`
	Prefix []string `yaml:"prefix"`
	Why    string   `yaml:"why"`
	// ZeroArg, when set, is the argument that makes the primitive not
	// sleep when it is the literal 0 (the sleep_us of the iopoll macros,
	// which busy-wait without sleeping then). Written 1-based in the
	// table (zero_arg: 4 is the fourth argument) so that 0 means none.
	ZeroArg int `yaml:"zero_arg"`
	// Fault is set for primitives that sleep only by faulting user pages
	// in: inside the table's fault_region they do not sleep.
	Fault bool `yaml:"fault"`
	// Releases, when set, is the argument holding a spinlock the
	// primitive must be called with and releases while it sleeps
	// (wait_event_lock_irq()'s lock), 1-based like ZeroArg;
	// ReleasesQueue says it releases the lock of the wait queue its
	// first argument names (wait_event_interruptible_locked()).
	Releases      int  `yaml:"releases"`
	ReleasesQueue bool `yaml:"releases_queue"`
}

// sleeper is the compiled sleeping part of the table: the lockctx.Target
// of the rule ("may sleep").
type sleeper struct {
	sleep map[string]string
	// zeroArg is, by primitive, the 0-based argument that makes it not
	// sleep when it is the literal 0 (sleepRow.ZeroArg).
	zeroArg map[string]int
	// releases is, by primitive, the 0-based argument naming the lock it
	// sleeps with released, -1 for its wait queue's lock
	// (sleepRow.Releases, ReleasesQueue).
	releases            map[string]int
	sleepPrefix         []sleepRow
	alloc               map[string]int
	gfpSleep, gfpAtomic []string
	trueConds           map[string]bool
	condSleep           []string
	condSleepElse       []string
	// fileSleep are the file_sleep rows, fileSleepOf their index by
	// primitive name (filesleep.go).
	fileSleep   []fileSleepRow
	fileSleepOf map[string]int
	// maskSleep are the mask_sleep rows by primitive name (maskargs.go).
	maskSleep map[string]maskSleepRow
	// sleepGuards are the sleeping guard classes (tables.SleepGuards).
	sleepGuards map[string]string
	// fault are the primitives of the "fault" rows, faultRegion the
	// region that keeps them from sleeping (lockctx.RegionTarget).
	fault       map[string]bool
	faultRegion faultRegion
	// shutdownSafe are the shutdown_safe rows by primitive name
	// (shutdown.go).
	shutdownSafe map[string]shutdownSafeRow
	// contextTests are the context_tests rows by test name
	// (contextmask.go).
	contextTests map[string]contextTestRow
	// boot are the table's boot functions (shutdown.go).
	boot []string
	// processDeferrals are the table's process_deferrals.
	processDeferrals map[string]bool
}

// compile builds the engine model of t over the lock table locks.
func compile(t *tables, locks *lockmodel.Table) (*lockctx.Model, error) {
	sl, err := newSleeper(t)
	if err != nil {
		return nil, err
	}
	return lockctx.Compile("sleep", locks, &t.Tables, sl)
}

// newSleeper compiles the sleeping primitives of t.
func newSleeper(t *tables) (*sleeper, error) {
	sl := &sleeper{sleep: map[string]string{}, zeroArg: map[string]int{}, releases: map[string]int{}, alloc: t.Alloc, gfpSleep: t.GFPSleep, gfpAtomic: t.GFPAtomic,
		trueConds: map[string]bool{}, condSleep: t.CondSleep, condSleepElse: t.CondSleepElse, sleepGuards: t.SleepGuards,
		fault: map[string]bool{}, faultRegion: t.FaultRegion, boot: t.Boot, processDeferrals: map[string]bool{}}
	for _, n := range t.ProcessDeferrals {
		sl.processDeferrals[n] = true
	}
	for _, r := range t.Sleep {
		for _, n := range r.Names {
			sl.sleep[n] = r.Why
			if r.Fault {
				sl.fault[n] = true
			}
			if r.ZeroArg > 0 {
				sl.zeroArg[n] = r.ZeroArg - 1
			}
			switch {
			case r.ReleasesQueue:
				sl.releases[n] = -1
			case r.Releases > 0:
				sl.releases[n] = r.Releases - 1
			}
		}
		if len(r.Prefix) > 0 {
			sl.sleepPrefix = append(sl.sleepPrefix, r)
		}
	}
	for _, c := range t.TrueConds {
		sl.trueConds[c] = true
	}
	sl.compileMaskSleep(t.MaskSleep)
	if err := sl.compileFileSleep(t.FileSleep); err != nil {
		return nil, err
	}
	if err := sl.compileShutdownSafe(t.ShutdownSafe, t.FileSleep); err != nil {
		return nil, err
	}
	if err := sl.compileContextTests(t.ContextTests); err != nil {
		return nil, err
	}
	return sl, nil
}

// ReleasedWhileSleeping returns the key of the spinlock that sleeping
// primitive c must be called with and releases while it sleeps:
// wait_event_lock_irq(wq, cond, lock) sleeps with lock released,
// wait_event_interruptible_locked(wq, cond) with wq's own lock
// (lockctx.SleepReleaser).
func (m *sleeper) ReleasedWhileSleeping(c cscan.Call) (string, bool) {
	i, ok := m.releases[c.Name]
	if !ok || i >= len(c.Args) || len(c.Args) == 0 {
		return "", false
	}
	// The macros take the lock (or the queue) as an lvalue: "*lock" and
	// "lock[0]" name the lock a "spinlock_t *lock" points to, which its
	// caller took as spin_lock_irq(lock).
	arg, sep := cscan.StripParens(strings.TrimSpace(c.Args[max(i, 0)])), "."
	if p, ok := strings.CutPrefix(arg, "*"); ok {
		arg, sep = p, "->"
	} else if p, ok := strings.CutSuffix(arg, "[0]"); ok {
		arg, sep = p, "->"
	}
	if i < 0 {
		return lockmodel.Key(arg) + sep + "lock", true
	}
	return lockmodel.Key(arg), true
}

// Decides reports whether a row of the tables names name: whatever a
// call's arguments, its answer is the tables' (lockctx.TableTarget).
func (m *sleeper) Decides(name string) bool {
	if _, ok := m.sleep[name]; ok {
		return true
	}
	if _, ok := m.alloc[name]; ok {
		return true
	}
	if _, ok := m.maskSleep[name]; ok {
		return true
	}
	if _, ok := m.fileSleepOf[name]; ok {
		return true
	}
	for _, r := range m.sleepPrefix {
		for _, p := range r.Prefix {
			if strings.HasPrefix(name, p) {
				return true
			}
		}
	}
	return name == "might_sleep_if" || name == "guard" || name == "scoped_guard"
}

// Reaches reports whether call c is a primitive that may sleep, and why.
func (m *sleeper) Reaches(c cscan.Call) (string, bool) {
	if why, ok := m.sleep[c.Name]; ok {
		if i, ok := m.zeroArg[c.Name]; ok && i < len(c.Args) && strings.TrimSpace(c.Args[i]) == "0" {
			return "", false
		}
		return why, true
	}
	for _, r := range m.sleepPrefix {
		for _, p := range r.Prefix {
			if strings.HasPrefix(c.Name, p) {
				return r.Why, true
			}
		}
	}
	if r, ok := m.maskSleep[c.Name]; ok && r.Arg < len(c.Args) && r.maskReaches(c.Args[r.Arg]) {
		return r.Why, true
	}
	if i, ok := m.alloc[c.Name]; ok && i >= 0 && i < len(c.Args) {
		if m.gfpSleeps(c.Args[i]) {
			return "allocates with " + c.Args[i] + " (direct reclaim may sleep)", true
		}
	}
	if (c.Name == "guard" || c.Name == "scoped_guard") && len(c.Args) > 0 {
		if why, ok := m.sleepGuards[strings.TrimSpace(c.Args[0])]; ok {
			return why, true
		}
	}
	if c.Name == "might_sleep_if" && len(c.Args) == 1 {
		cond := strings.TrimSpace(c.Args[0])
		if m.trueConds[cond] {
			return "might_sleep_if(" + cond + ")", true
		}
		if strings.HasPrefix(cond, "gfpflags_allow_blocking(") && m.gfpSleeps(strings.TrimSuffix(strings.TrimPrefix(cond, "gfpflags_allow_blocking("), ")")) {
			return "might_sleep_if(" + cond + ")", true
		}
	}
	return "", false
}

// Region returns the region in which primitive prim does not sleep: a
// user access inside pagefault_disable() fails instead of faulting.
func (m *sleeper) Region(prim string) (opening, closing []string, ok bool) {
	if !m.fault[prim] || len(m.faultRegion.Open) == 0 {
		return nil, nil, false
	}
	return m.faultRegion.Open, m.faultRegion.Close, true
}

// Conditional reports whether a call's guards make its sleeping
// conditional on the last reference going away or on the context allowing
// it (see cond_sleep_guards, and cond_sleep_else_guards negated).
func (m *sleeper) Conditional(gs []cscan.Guard) bool {
	for _, g := range gs {
		for _, p := range m.condSleep {
			if strings.Contains(g.Cond, p) {
				return true
			}
		}
		if g.Kind != "if" {
			continue
		}
		// The then branch of a negated test whose true case is the
		// atomic one (if (!oops_in_progress) console_lock();) is that
		// test's else branch.
		for _, t := range lockctx.Terms(g.Cond, "&&") {
			if strings.HasPrefix(t, "!") && !strings.HasPrefix(t, "!=") && len(lockctx.Terms(t, "||")) == 1 && m.ElseConditional(strings.TrimSpace(t[1:])) {
				return true
			}
		}
	}
	return false
}

// ElseConditional reports whether the else branch of an if testing cond
// sleeps only outside atomic context: cond holds, without a negation, a
// test whose true case is the atomic one (cond_sleep_else_guards).
func (m *sleeper) ElseConditional(cond string) bool {
	if strings.Contains(cond, "!") {
		return false
	}
	for _, p := range m.condSleepElse {
		if strings.Contains(cond, p) {
			return true
		}
	}
	return false
}

// gfpAtomicMask reports whether GFP mask arg holds one of the table's
// atomic masks (GFP_ATOMIC, GFP_NOWAIT).
func (m *sleeper) gfpAtomicMask(arg string) bool {
	a := strings.ReplaceAll(arg, " ", "")
	return slices.ContainsFunc(m.gfpAtomic, func(f string) bool {
		return cscan.ContainsWord(a, strings.ReplaceAll(f, " ", ""))
	})
}

// maskArg returns the argument of call c that decides whether it sleeps
// (an allocator's GFP mask, a mask_sleep row's flags) and whether its
// value is a known constant; ok is false for another call, or one without
// that argument.
func (m *sleeper) maskArg(c cscan.Call) (i int, known, ok bool) {
	if r, ok := m.maskSleep[c.Name]; ok {
		if r.Arg >= len(c.Args) {
			return 0, false, false
		}
		return r.Arg, r.maskKnown(c.Args[r.Arg]), true
	}
	i, ok = m.alloc[c.Name]
	if !ok || i < 0 || i >= len(c.Args) {
		return 0, false, false
	}
	a := strings.TrimSpace(c.Args[i])
	if chosenAtRunTime(a) {
		// Chosen at run time (active ? GFP_KERNEL : GFP_ATOMIC, or-ed
		// with constant flags or not): the words of both branches
		// decide nothing alone.
		return i, false, true
	}
	return i, m.gfpSleeps(a) || m.gfpKnownAtomic(a), true
}

// chosenAtRunTime reports whether mask expression a is, or ors in, a
// conditional expression: `atomic ? GFP_ATOMIC : GFP_KERNEL`, or
// `__GFP_COMP | (atomic ? GFP_ATOMIC : GFP_KERNEL)`.
func chosenAtRunTime(a string) bool {
	a = cscan.StripParens(strings.TrimSpace(a))
	if q, _ := cscan.Ternary(a); q >= 0 {
		return true
	}
	for _, o := range splitMaskOps(a) {
		if q, _ := cscan.Ternary(cscan.StripParens(strings.TrimSpace(o.text))); q >= 0 && o.op != '&' {
			return true
		}
	}
	return false
}

// ArgDependent returns the GFP argument of an allocator call whose mask
// is not a known constant (a variable, typically the caller's gfp_t
// parameter): whether it sleeps depends on what is passed down.
func (m *sleeper) ArgDependent(c cscan.Call) (int, bool) {
	if i, known, ok := m.maskArg(c); ok && !known {
		return i, true
	}
	return 0, false
}

// ArgPrimitive reports whether c is an allocator or a mask_sleep row's
// call with its deciding argument present: the mask decides whether it
// sleeps (ReachesWith), not what its definition reaches.
func (m *sleeper) ArgPrimitive(c cscan.Call) bool {
	_, _, ok := m.maskArg(c)
	return ok
}

// ReachesWith reports whether passing mask expr to call c sleeps: a GFP
// mask to an allocator, or to a call that its guards run only when the
// mask allows blocking (lockctx.ArgGuard), or the flags of a mask_sleep
// row.
func (m *sleeper) ReachesWith(c cscan.Call, expr string) (string, bool) {
	if r, ok := m.maskSleep[c.Name]; ok {
		if r.maskReaches(expr) {
			return r.Why, true
		}
		return "", false
	}
	if !m.gfpSleeps(expr) {
		return "", false
	}
	if _, ok := m.alloc[c.Name]; !ok {
		return c.Name + "() runs when the GFP mask allows direct reclaim, and " + strings.TrimSpace(expr) + " does", true
	}
	return "allocates with " + strings.TrimSpace(expr) + " (direct reclaim may sleep)", true
}

// Contract reports whether a parameter declared as decl is a gfp_t: an
// interface taking a GFP mask lets every implementation allocate with
// it, so passing a sleeping mask through a function pointer is wrong in
// atomic context whichever implementation runs.
func (m *sleeper) Contract(decl string) bool {
	return cscan.ContainsWord(decl, "gfp_t")
}

// gfpKnownAtomic reports a mask that never sleeps.
func (m *sleeper) gfpKnownAtomic(arg string) bool {
	a := strings.ReplaceAll(arg, " ", "")
	for _, f := range m.gfpAtomic {
		if cscan.ContainsWord(a, strings.ReplaceAll(f, " ", "")) {
			return true
		}
	}
	return false
}

// gfpSleeps reports whether a GFP argument allows direct reclaim. Unknown
// masks (variables) are not known to sleep.
func (m *sleeper) gfpSleeps(arg string) bool {
	if m.gfpAtomicMask(arg) {
		return false
	}
	a := strings.ReplaceAll(arg, " ", "")
	for _, f := range m.gfpSleep {
		if cscan.ContainsWord(a, f) {
			return true
		}
	}
	return false
}
