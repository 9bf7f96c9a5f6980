package rules

import (
	"fmt"
	"regexp"
	"strings"
)

// wakeupTables is the "wakeup" section of the primitive tables
// (rules/tables/wakeup.yaml, extendable from config).
type wakeupTables struct {
	Waiters         []wkWaiterRow     `yaml:"waiters"`
	StateWords      []wkStateWord     `yaml:"state_words"`
	TaskStates      map[string]string `yaml:"task_states"`
	Wakers          []wkWakerRow      `yaml:"wakers"`
	Entries         []wkEntryRow      `yaml:"entries"`
	AutoremoveFuncs []string          `yaml:"autoremove_funcs"`
	Removals        []wkQueueArgRow   `yaml:"removals"`
	ActiveChecks    []wkActiveRow     `yaml:"active_checks"`
	Barriers        []string          `yaml:"barriers"`
	QueueLocks      []string          `yaml:"queue_locks"`
	Broadcast       wkBroadcastHints  `yaml:"broadcast"`
	ChainVars       []string          `yaml:"chain_vars"`
}

// waiterRow describes a sleeper or queue insertion primitive.
type wkWaiterRow struct {
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

type wkStateWord struct {
	Word  string `yaml:"word"`
	State string `yaml:"state"`
}

// wakerRow describes a wake-up primitive.
type wkWakerRow struct {
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
}

// entryRow describes a wait-entry set-up primitive.
type wkEntryRow struct {
	Name       string `yaml:"name"`
	Entry      int    `yaml:"entry"`
	Autoremove *bool  `yaml:"autoremove"`
	FuncArg    *int   `yaml:"func_arg"`
	Declares   bool   `yaml:"declares"`
}

type wkQueueArgRow struct {
	Name  string `yaml:"name"`
	Queue int    `yaml:"queue"`
	Entry int    `yaml:"entry"`
}

type wkActiveRow struct {
	Name    string `yaml:"name"`
	Queue   int    `yaml:"queue"`
	Barrier bool   `yaml:"barrier"`
}

type wkBroadcastHints struct {
	Funcs     []string     `yaml:"funcs"`
	PollKeys  []string     `yaml:"poll_keys"`
	ZeroConds []wkZeroCond `yaml:"zero_conds"`
}

// wakeupPrims is the compiled form of wakeupTables.
type wakeupPrims struct {
	t            wakeupTables
	waiterNames  map[string]*wkWaiterRow
	waiterRes    []*regexp.Regexp
	waiterReRows []*wkWaiterRow
	wakerNames   map[string]*wkWakerRow
	wakerRes     []*regexp.Regexp
	wakerReRows  []*wkWakerRow
	entries      map[string]*wkEntryRow
	autoremove   map[string]bool
	removals     map[string]*wkQueueArgRow
	actives      map[string]*wkActiveRow
	barriers     map[string]bool
	queueLocks   map[string]bool
	bcFuncs      []*regexp.Regexp
	pollKeys     []string
	zeroConds    []*regexp.Regexp
	zeroTests    []bool
	chainVars    []*regexp.Regexp
}

func compileWakeupTables(t wakeupTables) (*wakeupPrims, error) {
	p := &wakeupPrims{
		t:           t,
		waiterNames: map[string]*wkWaiterRow{},
		wakerNames:  map[string]*wkWakerRow{},
		entries:     map[string]*wkEntryRow{},
		autoremove:  wkSet(t.AutoremoveFuncs),
		removals:    map[string]*wkQueueArgRow{},
		actives:     map[string]*wkActiveRow{},
		barriers:    wkSet(t.Barriers),
		queueLocks:  wkSet(t.QueueLocks),
		pollKeys:    t.Broadcast.PollKeys,
	}
	re := func(what, s string) (*regexp.Regexp, error) {
		r, err := regexp.Compile(s)
		if err != nil {
			return nil, fmt.Errorf("wakeup table %s %q: %w", what, s, err)
		}
		return r, nil
	}
	for i := range t.Waiters {
		w := &t.Waiters[i]
		switch {
		case w.Name != "":
			p.waiterNames[w.Name] = w
		case w.Match != "":
			r, err := re("waiter", w.Match)
			if err != nil {
				return nil, err
			}
			p.waiterRes = append(p.waiterRes, r)
			p.waiterReRows = append(p.waiterReRows, w)
		default:
			return nil, fmt.Errorf("wakeup table: waiter row %d has neither name nor match", i)
		}
	}
	for i := range t.Wakers {
		w := &t.Wakers[i]
		switch {
		case w.Name != "":
			p.wakerNames[w.Name] = w
		case w.Match != "":
			r, err := re("waker", w.Match)
			if err != nil {
				return nil, err
			}
			p.wakerRes = append(p.wakerRes, r)
			p.wakerReRows = append(p.wakerReRows, w)
		default:
			return nil, fmt.Errorf("wakeup table: waker row %d has neither name nor match", i)
		}
		switch w.Breadth {
		case "one", "nr", "all":
		default:
			return nil, fmt.Errorf("wakeup table: waker %q: breadth %q is not one, nr or all", w.Name+w.Match, w.Breadth)
		}
	}
	for i := range t.Entries {
		p.entries[t.Entries[i].Name] = &t.Entries[i]
	}
	for i := range t.Removals {
		p.removals[t.Removals[i].Name] = &t.Removals[i]
	}
	for i := range t.ActiveChecks {
		p.actives[t.ActiveChecks[i].Name] = &t.ActiveChecks[i]
	}
	for _, s := range t.Broadcast.Funcs {
		r, err := re("broadcast func", s)
		if err != nil {
			return nil, err
		}
		p.bcFuncs = append(p.bcFuncs, r)
	}
	for _, z := range t.Broadcast.ZeroConds {
		r, err := re("zero condition", z.Re)
		if err != nil {
			return nil, err
		}
		p.zeroConds = append(p.zeroConds, r)
		p.zeroTests = append(p.zeroTests, z.Tests)
	}
	for _, s := range t.ChainVars {
		r, err := re("chain var", s)
		if err != nil {
			return nil, err
		}
		p.chainVars = append(p.chainVars, r)
	}
	return p, nil
}

func wkSet(l []string) map[string]bool {
	m := make(map[string]bool, len(l))
	for _, s := range l {
		m[s] = true
	}
	return m
}

func (p *wakeupPrims) waiter(name string) *wkWaiterRow {
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

func (p *wakeupPrims) waker(name string) *wkWakerRow {
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
func (p *wakeupPrims) isPrimitive(name string) bool {
	if p.waiter(name) != nil || p.waker(name) != nil {
		return true
	}
	return p.actives[name] != nil
}

// waiterState returns the task state a waiter sleeps in.
func (p *wakeupPrims) waiterState(w *wkWaiterRow, name string, args []string) string {
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
func (p *wakeupPrims) taskState(arg string) string {
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
func (p *wakeupPrims) isBroadcastFunc(name string) bool {
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
func (p *wakeupPrims) zeroCounters(cond string, decremented []string) ([]string, bool) {
	var out []string
	matched := false
	for i, r := range p.zeroConds {
		for _, m := range r.FindAllStringSubmatch(cond, -1) {
			c := ""
			if len(m) > 1 {
				c = m[1]
			}
			if decremented != nil && p.zeroTests[i] && !wkContains(decremented, c) {
				continue
			}
			matched = true
			if c != "" {
				out = wkAppendUnique(out, c)
			}
		}
	}
	return out, matched
}

func (p *wakeupPrims) isChainVar(name string) bool {
	for _, r := range p.chainVars {
		if r.MatchString(name) {
			return true
		}
	}
	return false
}

// wkZeroCond is a condition pattern that tests a counter for zero.
type wkZeroCond struct {
	Re    string `yaml:"re"`
	Tests bool   `yaml:"tests"`
}
