package wakeup

import (
	"fmt"
	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/rules/lockctx"
	"github.com/autosel-bot/autosel-bot/rules/lockmodel"
	"regexp"
	"strings"
)

// tables is the "wakeup" section of the primitive tables
// (rules/tables/wakeup.yaml, extendable from config).
type tables struct {
	Waiters         []waiterRow       `yaml:"waiters"`
	StateWords      []stateWord       `yaml:"state_words"`
	TaskStates      map[string]string `yaml:"task_states"`
	Wakers          []wakerRow        `yaml:"wakers"`
	Entries         []entryRow        `yaml:"entries"`
	FlagWaits       []flagWaitRow     `yaml:"flag_waits"`
	AutoremoveFuncs []string          `yaml:"autoremove_funcs"`
	EntryWakers     []string          `yaml:"entry_wakers"`
	WakeQFlush      []string          `yaml:"wake_q_flush"`
	WakeQInert      []string          `yaml:"wake_q_inert"`
	Removals        []queueArgRow     `yaml:"removals"`
	ActiveChecks    []activeRow       `yaml:"active_checks"`
	Barriers        []string          `yaml:"barriers"`
	Broadcast       broadcastHints    `yaml:"broadcast"`
	ChainVars       []string          `yaml:"chain_vars"`
	Ordering        []orderRow        `yaml:"ordering"`
	TaskWakers      []taskWakerRow    `yaml:"task_wakers"`
	Sleeps          []string          `yaml:"sleeps"`
	StateSets       []string          `yaml:"state_sets"`
	Unlinks         []unlinkRow       `yaml:"unlinks"`
	TaskGets        []string          `yaml:"task_gets"`
	TaskPuts        []string          `yaml:"task_puts"`
	Rearms          []rearmRow        `yaml:"rearms"`
	RearmInert      []string          `yaml:"rearm_inert"`
	// The tables below are left out of tablesID (json:"-"): the stored
	// tree sites do not depend on them.
	Deferrals     deferralTables   `yaml:"deferrals" json:"-"`
	StopConds     []string         `yaml:"stop_conds" json:"-"`
	HandshakeOps  []handshakeRow   `yaml:"handshake_ops" json:"-"`
	Notifications []string         `yaml:"notifications" json:"-"`
	ContextFills  []contextFillRow `yaml:"context_fills" json:"-"`
	ContextTests  []string         `yaml:"context_tests" json:"-"`
}

// rearmRow describes a call that re-arms a completion for its next wait.
type rearmRow struct {
	Name  string `yaml:"name"`
	Queue int    `yaml:"queue"`
}

// orderRow describes a memory-ordering operation.
type orderRow struct {
	Name     string `yaml:"name"`
	Match    string `yaml:"match"`
	Strength string `yaml:"strength"`
}

// taskWakerRow describes a call that wakes one task directly.
type taskWakerRow struct {
	Name     string `yaml:"name"`
	Task     int    `yaml:"task"`
	Deferred bool   `yaml:"deferred"`
}

// unlinkRow describes a list unlink used on a wait entry.
type unlinkRow struct {
	Name    string `yaml:"name"`
	Careful bool   `yaml:"careful"`
}

// waiterRow describes a sleeper or queue insertion primitive.
type waiterRow struct {
	Name         string `yaml:"name"`
	Match        string `yaml:"match"`
	Queue        int    `yaml:"queue"`
	Entry        *int   `yaml:"entry"`
	Kind         string `yaml:"kind"`
	Exclusive    bool   `yaml:"exclusive"`
	ExclusiveArg *int   `yaml:"exclusive_arg"`
	State        string `yaml:"state"`
	StateArg     *int   `yaml:"state_arg"`
}

type stateWord struct {
	Word  string `yaml:"word"`
	State string `yaml:"state"`
}

// wakerRow describes a wake-up primitive.
type wakerRow struct {
	Name    string `yaml:"name"`
	Match   string `yaml:"match"`
	Queue   int    `yaml:"queue"`
	Breadth string `yaml:"breadth"`
	NrArg   *int   `yaml:"nr_arg"`
	Mode    string `yaml:"mode"`
	ModeArg *int   `yaml:"mode_arg"`
	Sync    bool   `yaml:"sync"`
	Key     *int   `yaml:"key"`
	Kind    string `yaml:"kind"`
	// Locked: the caller must hold the queue's own lock; Unlocked names
	// the wake-up that takes it itself.
	Locked   bool   `yaml:"locked"`
	Unlocked string `yaml:"unlocked"`
	// Lockless: the wake-up tests for sleepers without the queue lock
	// (waitqueue_active() inside), so it orders nothing by itself.
	Lockless bool `yaml:"lockless"`
	// NeedsBarrier: the wake-up has no barrier of its own before that
	// test, so its caller must order the store it announces before the
	// call with a full one (the kernel-doc of wake_up_bit() and
	// wake_up_var()).
	NeedsBarrier bool `yaml:"needs_barrier"`
	// Stores: the wake-up itself makes the waiters' condition true
	// (complete() raises the count wait_for_completion() waits for).
	Stores bool `yaml:"stores"`
}

// entryRow describes a wait-entry set-up primitive.
type entryRow struct {
	Name  string `yaml:"name"`
	Entry int    `yaml:"entry"`
	// Autoremove, for a set-up that names no wake function, says whether
	// the wake-up takes the entry off the queue; otherwise it follows
	// from Func (autoremove_funcs).
	Autoremove *bool `yaml:"autoremove"`
	FuncArg    *int  `yaml:"func_arg"`
	// Func is the wake function the set-up gives the entry when no
	// argument names it (DEFINE_WAIT: autoremove_wake_function).
	Func     string `yaml:"func"`
	Declares bool   `yaml:"declares"`
}

type queueArgRow struct {
	Name  string `yaml:"name"`
	Queue int    `yaml:"queue"`
	Entry int    `yaml:"entry"`
}

type activeRow struct {
	Name    string `yaml:"name"`
	Queue   int    `yaml:"queue"`
	Barrier bool   `yaml:"barrier"`
}

type broadcastHints struct {
	Funcs     []string   `yaml:"funcs"`
	PollKeys  []string   `yaml:"poll_keys"`
	ZeroConds []zeroCond `yaml:"zero_conds"`
}

// prims is the compiled form of tables.
type prims struct {
	t tables
	// id is a digest of t, naming the stores computed with it
	// (tree_sitestore.go); "" when it cannot be computed.
	id           string
	waiterNames  map[string]*waiterRow
	waiterRes    []*regexp.Regexp
	waiterReRows []*waiterRow
	wakerNames   map[string]*wakerRow
	wakerRes     []*regexp.Regexp
	wakerReRows  []*wakerRow
	entries      map[string]*entryRow
	flagWaits    map[string]*flagWaitRow
	autoremove   map[string]bool
	entryWakers  map[string]bool
	wakeQFlush   map[string]bool
	wakeQInert   map[string]bool
	removals     map[string]*queueArgRow
	actives      map[string]*activeRow
	barriers     map[string]bool
	bcFuncs      []*regexp.Regexp
	pollKeys     []string
	zeroConds    []*regexp.Regexp
	zeroTests    []bool
	chainVars    []*regexp.Regexp
	orderNames   map[string]string
	orderRes     []*regexp.Regexp
	orderReStr   []string
	taskWakers   map[string]*taskWakerRow
	sleeps       map[string]bool
	stateSets    map[string]bool
	unlinks      map[string]*unlinkRow
	// locks is the lock model's locks (lockmodel.IsLock kinds): what
	// orders the two sides of a sleeper/waker pair.
	locks *lockmodel.Model
	// walkModel is the same locks compiled for lockctx's walker, which
	// answers the locks held at a line (heldlocks.go).
	walkModel *lockctx.Model
	taskGets  map[string]bool
	taskPuts  map[string]bool
	// rearms and rearmInert: rearm_completion.go.
	rearms     map[string]*rearmRow
	rearmInert []*regexp.Regexp
	// deferQueue and deferInit index the deferral rows by call name
	// (deferred.go).
	deferQueue map[string]*deferQueueRow
	deferInit  map[string]*deferInitRow
	// stopConds: waitcond_dropped.go.
	stopConds map[string]bool
	// handshake indexes HandshakeOps by call name (handshake.go).
	handshake map[string]*handshakeRow
	// notifications: storeorder_state.go.
	notifications map[string]bool
	// contextFills indexes ContextFills by call name (contextptr.go).
	contextFills map[string]*contextFillRow
	// contextTests: condwake_guards.go (contextGate).
	contextTests map[string]bool
}

func compile(t tables, lt *lockmodel.Table) (*prims, error) {
	lm, err := lockmodel.Compile(lt, lockmodel.IsLock)
	if err != nil {
		return nil, err
	}
	wm, err := lockctx.CompileLocks("wakeup", lt, lockmodel.IsLock)
	if err != nil {
		return nil, err
	}
	p := &prims{
		t:             t,
		id:            tablesID(t, lt),
		locks:         lm,
		walkModel:     wm,
		waiterNames:   map[string]*waiterRow{},
		wakerNames:    map[string]*wakerRow{},
		entries:       map[string]*entryRow{},
		flagWaits:     map[string]*flagWaitRow{},
		autoremove:    setOf(t.AutoremoveFuncs),
		entryWakers:   setOf(t.EntryWakers),
		wakeQFlush:    setOf(t.WakeQFlush),
		wakeQInert:    setOf(t.WakeQInert),
		removals:      map[string]*queueArgRow{},
		actives:       map[string]*activeRow{},
		barriers:      setOf(t.Barriers),
		pollKeys:      t.Broadcast.PollKeys,
		orderNames:    map[string]string{},
		taskWakers:    map[string]*taskWakerRow{},
		sleeps:        setOf(t.Sleeps),
		stateSets:     setOf(t.StateSets),
		unlinks:       map[string]*unlinkRow{},
		taskGets:      setOf(t.TaskGets),
		taskPuts:      setOf(t.TaskPuts),
		rearms:        map[string]*rearmRow{},
		deferQueue:    map[string]*deferQueueRow{},
		deferInit:     map[string]*deferInitRow{},
		stopConds:     setOf(t.StopConds),
		notifications: setOf(t.Notifications),
		contextTests:  setOf(t.ContextTests),
	}
	p.handshake = byName(t.HandshakeOps, func(r *handshakeRow) []string { return r.Names })
	p.contextFills = byName(t.ContextFills, func(r *contextFillRow) []string { return r.Names })
	for i := range t.Deferrals.Queue {
		p.deferQueue[t.Deferrals.Queue[i].Name] = &t.Deferrals.Queue[i]
	}
	for i := range t.Deferrals.Inits {
		p.deferInit[t.Deferrals.Inits[i].Name] = &t.Deferrals.Inits[i]
	}
	for i := range t.Rearms {
		p.rearms[t.Rearms[i].Name] = &t.Rearms[i]
	}
	for i := range t.Entries {
		p.entries[t.Entries[i].Name] = &t.Entries[i]
	}
	for i := range t.FlagWaits {
		p.flagWaits[t.FlagWaits[i].Name] = &t.FlagWaits[i]
	}
	for i := range t.Removals {
		p.removals[t.Removals[i].Name] = &t.Removals[i]
	}
	for i := range t.ActiveChecks {
		p.actives[t.ActiveChecks[i].Name] = &t.ActiveChecks[i]
	}
	for i := range t.TaskWakers {
		p.taskWakers[t.TaskWakers[i].Name] = &t.TaskWakers[i]
	}
	for i := range t.Unlinks {
		p.unlinks[t.Unlinks[i].Name] = &t.Unlinks[i]
	}
	for _, step := range []func(*prims) error{(*prims).compileWaiters, (*prims).compileWakers, (*prims).compilePatterns, (*prims).compileOrdering} {
		if err := step(p); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// tableRe compiles a regular expression of the table, naming the list it
// comes from in the error.
func tableRe(what, s string) (*regexp.Regexp, error) {
	r, err := regexp.Compile(s)
	if err != nil {
		return nil, fmt.Errorf("wakeup table %s %q: %w", what, s, err)
	}
	return r, nil
}

// compileWaiters indexes the waiter rows by name and by pattern.
func (p *prims) compileWaiters() error {
	for i := range p.t.Waiters {
		w := &p.t.Waiters[i]
		switch {
		case w.Name != "":
			p.waiterNames[w.Name] = w
		case w.Match != "":
			r, err := tableRe("waiter", w.Match)
			if err != nil {
				return err
			}
			p.waiterRes = append(p.waiterRes, r)
			p.waiterReRows = append(p.waiterReRows, w)
		default:
			return fmt.Errorf("wakeup table: waiter row %d has neither name nor match", i)
		}
	}
	return nil
}

// compileWakers indexes the waker rows by name and by pattern and checks
// their breadth.
func (p *prims) compileWakers() error {
	for i := range p.t.Wakers {
		w := &p.t.Wakers[i]
		switch {
		case w.Name != "":
			p.wakerNames[w.Name] = w
		case w.Match != "":
			r, err := tableRe("waker", w.Match)
			if err != nil {
				return err
			}
			p.wakerRes = append(p.wakerRes, r)
			p.wakerReRows = append(p.wakerReRows, w)
		default:
			return fmt.Errorf("wakeup table: waker row %d has neither name nor match", i)
		}
		switch w.Breadth {
		case "one", "nr", "all":
		default:
			return fmt.Errorf("wakeup table: waker %q: breadth %q is not one, nr or all", w.Name+w.Match, w.Breadth)
		}
	}
	// A _locked waker names the waker that takes the queue lock itself.
	for _, w := range p.t.Wakers {
		if !w.Locked && w.Unlocked == "" {
			continue
		}
		u := p.wakerNames[w.Unlocked]
		if !w.Locked || u == nil || u.Locked {
			return fmt.Errorf("wakeup table: waker %q: locked %v, unlocked %q must name a waker of the table that takes the queue lock itself", w.Name+w.Match, w.Locked, w.Unlocked)
		}
	}
	return nil
}

// compilePatterns compiles the pattern lists: broadcast functions, zero
// conditions, chain variables and the calls inert to a re-arm.
func (p *prims) compilePatterns() error {
	for _, s := range p.t.RearmInert {
		r, err := tableRe("rearm_inert", s)
		if err != nil {
			return err
		}
		p.rearmInert = append(p.rearmInert, r)
	}
	for _, s := range p.t.Broadcast.Funcs {
		r, err := tableRe("broadcast func", s)
		if err != nil {
			return err
		}
		p.bcFuncs = append(p.bcFuncs, r)
	}
	for _, z := range p.t.Broadcast.ZeroConds {
		r, err := tableRe("zero condition", z.Re)
		if err != nil {
			return err
		}
		p.zeroConds = append(p.zeroConds, r)
		p.zeroTests = append(p.zeroTests, z.Tests)
	}
	for _, s := range p.t.ChainVars {
		r, err := tableRe("chain var", s)
		if err != nil {
			return err
		}
		p.chainVars = append(p.chainVars, r)
	}
	return nil
}

// compileOrdering indexes the memory-ordering rows and checks their
// strength.
func (p *prims) compileOrdering() error {
	for i, o := range p.t.Ordering {
		switch o.Strength {
		case "full", "acquire", "release", "read", "write":
		default:
			return fmt.Errorf("wakeup table: ordering row %d: strength %q is not full, acquire, release, read or write", i, o.Strength)
		}
		switch {
		case o.Name != "":
			p.orderNames[o.Name] = o.Strength
		case o.Match != "":
			r, err := tableRe("ordering", o.Match)
			if err != nil {
				return err
			}
			p.orderRes = append(p.orderRes, r)
			p.orderReStr = append(p.orderReStr, o.Strength)
		default:
			return fmt.Errorf("wakeup table: ordering row %d has neither name nor match", i)
		}
	}
	return nil
}

// ordering returns the strength of a memory-ordering operation, "" when
// name is not one.
func (p *prims) ordering(name string) string {
	if s, ok := p.orderNames[name]; ok {
		return s
	}
	for i, r := range p.orderRes {
		if r.MatchString(name) {
			return p.orderReStr[i]
		}
	}
	return ""
}

func setOf(l []string) map[string]bool {
	m := make(map[string]bool, len(l))
	for _, s := range l {
		m[s] = true
	}
	return m
}

func (p *prims) waiter(name string) *waiterRow {
	if w := p.waiterNames[name]; w != nil {
		return w
	}
	for i, r := range p.waiterRes {
		if r.MatchString(name) {
			return p.waiterReRows[i]
		}
	}
	return nil
}

func (p *prims) waker(name string) *wakerRow {
	if w := p.wakerNames[name]; w != nil {
		return w
	}
	for i, r := range p.wakerRes {
		if r.MatchString(name) {
			return p.wakerReRows[i]
		}
	}
	return nil
}

// isPrimitive reports whether name is any wait-queue primitive the rule
// follows (used to filter the tree's call sites).
func (p *prims) isPrimitive(name string) bool {
	if p.waiter(name) != nil || p.waker(name) != nil || hashedQueues[name] != "" {
		return true // hashed-queue lookups: their argument names the queue's key
	}
	return p.actives[name] != nil
}

// waiterState returns the task state a waiter sleeps in.
func (p *prims) waiterState(w *waiterRow, name string, args []string) string {
	if w.StateArg != nil && *w.StateArg < len(args) {
		if s := p.taskState(args[*w.StateArg]); s != "" {
			return s
		}
	}
	if w.State != "" {
		return w.State
	}
	for _, sw := range p.t.StateWords {
		if strings.Contains(name, sw.Word) {
			return sw.State
		}
	}
	return "uninterruptible"
}

// taskState maps a TASK_* expression to a state, "" when unknown.
func (p *prims) taskState(arg string) string {
	arg = strings.TrimSpace(arg)
	if s, ok := p.t.TaskStates[arg]; ok {
		return s
	}
	// TASK_INTERRUPTIBLE | TASK_FREEZABLE and the like: the first known word.
	for _, w := range strings.FieldsFunc(arg, func(r rune) bool { return r == '|' || r == ' ' || r == '(' || r == ')' }) {
		if s, ok := p.t.TaskStates[w]; ok {
			return s
		}
	}
	return ""
}

// isBroadcastFunc reports whether a function name marks a teardown path.
func (p *prims) isBroadcastFunc(name string) bool {
	for _, r := range p.bcFuncs {
		if r.MatchString(name) {
			return true
		}
	}
	return false
}

// zeroCounters returns the counters a condition tests for zero (or drops to
// zero), and whether it matched at all. With decremented non-nil, plain
// tests of a member ("!x->f", "x->f == 0") only count when f is in it: on
// a waker's path such a test is a broadcast only if the count was just
// dropped.
func (p *prims) zeroCounters(cond string, decremented []string) ([]string, bool) {
	var out []string
	matched := false
	for i, r := range p.zeroConds {
		for _, m := range r.FindAllStringSubmatch(cond, -1) {
			c := ""
			if len(m) > 1 {
				c = m[1]
			}
			if decremented != nil && p.zeroTests[i] && !contains(decremented, c) {
				continue
			}
			matched = true
			if c != "" {
				out = appendUnique(out, c)
			}
		}
	}
	return out, matched
}

func (p *prims) isChainVar(name string) bool {
	for _, r := range p.chainVars {
		if r.MatchString(name) {
			return true
		}
	}
	return false
}

// zeroCond is a condition pattern that tests a counter for zero.
type zeroCond struct {
	Re    string `yaml:"re"`
	Tests bool   `yaml:"tests"`
}

// lockCall returns the key of the lock c takes, when the lock model says
// it takes one.
func (p *prims) lockCall(c cscan.Call) (string, bool) {
	a := p.locks.Classify(c)
	if a.Op != lockmodel.Take {
		return "", false
	}
	return lockKeyOf(c, a.Arg), true
}

// unlockCall returns the key of the lock c releases, when it releases one.
func (p *prims) unlockCall(c cscan.Call) (string, bool) {
	a := p.locks.Classify(c)
	if a.Op != lockmodel.Drop {
		return "", false
	}
	return lockKeyOf(c, a.Arg), true
}

// takesLock reports whether name takes a lock that orders.
func (p *prims) takesLock(name string) bool {
	return p.locks.Classify(cscan.Call{Name: name}).Op == lockmodel.Take
}

// queueLock reports whether c takes (lock) or releases a spinlock: a
// "&q.lock" or "&q->lock" argument is then queue q's own lock.
func (p *prims) queueLock(c cscan.Call) (lock, unlock bool) {
	a := p.locks.Classify(c)
	if (a.Kind != "spin" && a.Kind != "raw_spin") || a.Arg != 0 {
		return false, false
	}
	return a.Op == lockmodel.Take, a.Op == lockmodel.Drop
}

// lockKeyOf is the key of argument i of c ("" when c has none).
func lockKeyOf(c cscan.Call, i int) string {
	if i < 0 || i >= len(c.Args) {
		return ""
	}
	return lockKey(c.Args[i])
}
