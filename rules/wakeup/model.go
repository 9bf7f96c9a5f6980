package wakeup

import (
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/report"
)

// siteKind is what a wait-queue call does.
type siteKind int

const (
	siteWait siteKind = iota + 1
	siteWake
	siteEntry
	siteRemove
	siteActive
	// siteGatedWake: a call of a helper that wakes only after a lockless
	// test for sleepers (waitqueue_active() with no barrier): it obliges
	// the caller to order its stores before the call (barrier_removed.go), but
	// it is no wake-up another rule can count on or miss.
	siteGatedWake
	// siteDeepWake: a call that reaches a wake-up of the object it is
	// handed several calls down, under conditions there (deepwake.go):
	// owed by its caller, but no wake-up to cover or order with.
	siteDeepWake
	siteBarrier
	siteLock
	siteUnlock
)

// wsite is one wait-queue call in one version of one function.
type wsite struct {
	Kind siteKind
	Fn   *wfunc
	Call cscan.Call
	// Q is the normalised queue key ("" for entries and barriers).
	Q string
	// Arg is the raw queue argument text.
	Arg string
	// Entry is the wait-entry name (waits with an entry, entry set-ups,
	// removals).
	Entry string

	// Waiters.
	WKind     string
	Exclusive bool
	State     string

	// Wakers.
	Breadth string // one, nr, all
	Nr      string
	Mode    string // normal, interruptible
	Sync    bool
	PollKey string
	// Locked: a wake-up the caller must hold the queue's lock around.
	Locked bool

	// Obj is the variable a wake-up through a helper or a member call is
	// made on (siteObject), "" for a primitive's site.
	Obj string
	// Derived: a wake-up through a helper found through another helper, a
	// member call or a lockless sleeper check (wrapper.go, opswake.go):
	// evidence of a wake-up when removed, not of one that covers.
	Derived bool
	// Gated: a wake-up through a helper that tests for sleepers without a
	// barrier first (waitqueue_active(), or a lockless waker primitive).
	Gated bool

	// Entry set-ups: Autoremove is nil when the wake function is unknown.
	Autoremove *bool
	Func       string

	// Active checks: BuiltinBarrier is set for wq_has_sleeper.
	BuiltinBarrier bool

	// Inner is the wake-up a deep waker's call reaches (siteDeepWake).
	Inner *wsite

	// Cond is what ends an open-coded sleep on a task key
	// (taskwake_gated.go); wait_event-style waiters carry theirs in Call.
	Cond string
}

// step turns a site into a chain step.
func step(s *wsite, what string) report.Step {
	return report.Step{Func: s.Fn.Name, File: s.Fn.File, Line: s.Line(), What: what}
}

// Line returns the site's file line.
func (s *wsite) Line() int { return s.Call.Line }

// Changed reports whether the patch added (new side) or removed (old
// side) the site's line.
func (s *wsite) Changed() bool { return s.Fn.changed(s.Call.Line) }

// Text returns the source line of the site, trimmed.
func (s *wsite) Text() string { return strings.TrimSpace(s.Fn.text(s.Call.Line)) }

// wfunc is one version of one function with its wait-queue sites.
type wfunc struct {
	File string
	Name string
	// Side is '-' (before the patch), '+' (after) or ' ' (tree, outside
	// the patch).
	Side    byte
	Partial bool
	F       *cscan.Func
	Sites   []*wsite
	vt      *varTypes

	lines map[int]string
	chg   map[int]bool
}

func (f *wfunc) text(line int) string { return f.lines[line] }

func (f *wfunc) changed(line int) bool { return f.chg[line] }

// evidence formats a line as in a patch: "+\t..." for an added line on
// the new side, "-" for a removed one on the old side, " " otherwise.
func (f *wfunc) evidence(line int) string {
	op := " "
	if f.changed(line) {
		op = string(f.Side)
	}
	return op + f.text(line)
}

// newWfunc builds the view of a function from its text and scan.
func newWfunc(file, name string, side byte, text string, lines []int, changed []bool, partial bool, fn *cscan.Func) *wfunc {
	f := &wfunc{File: file, Name: name, Side: side, Partial: partial, F: fn, lines: map[int]string{}}
	for i, l := range strings.Split(text, "\n") {
		if i >= len(lines) {
			break
		}
		f.lines[lines[i]] = l
		if i < len(changed) && changed[i] {
			if f.chg == nil {
				f.chg = map[int]bool{}
			}
			f.chg[lines[i]] = true
		}
	}
	return f
}

// sitesOf classifies the calls of f.F; vt resolves variable types.
func (p *prims) sitesOf(f *wfunc, vt *varTypes) {
	f.vt = vt
	if f.F == nil {
		return
	}
	arg := func(c cscan.Call, i int) string {
		if i >= 0 && i < len(c.Args) {
			return c.Args[i]
		}
		return ""
	}
	for _, c := range f.F.Calls {
		if w := p.waiter(c.Name); w != nil {
			s := &wsite{Kind: siteWait, Fn: f, Call: c, Arg: arg(c, w.Queue), WKind: w.Kind, Exclusive: w.Exclusive}
			if w.ExclusiveArg != nil {
				v := strings.TrimSpace(arg(c, *w.ExclusiveArg))
				s.Exclusive = v != "" && v != "0" && v != "false"
			}
			if w.Entry != nil {
				s.Entry = entryName(arg(c, *w.Entry))
			}
			s.State = p.waiterState(w, c.Name, c.Args)
			s.Q = queueKey(s.Arg, vt, f.Name)
			if prefixedKind(w.Kind) {
				s.Q = w.Kind + ":" + s.Q
			}
			f.Sites = append(f.Sites, s)
			continue
		}
		if w := p.waker(c.Name); w != nil {
			s := &wsite{Kind: siteWake, Fn: f, Call: c, Arg: arg(c, w.Queue), Breadth: w.Breadth, Mode: w.Mode, Sync: w.Sync, Locked: w.Locked}
			if w.NrArg != nil {
				s.Nr = strings.TrimSpace(arg(c, *w.NrArg))
				switch s.Nr {
				case "0":
					s.Breadth = "all"
				case "1":
					s.Breadth = "one"
				}
			}
			if w.ModeArg != nil {
				if st := p.taskState(arg(c, *w.ModeArg)); st == "interruptible" {
					s.Mode = "interruptible"
				} else {
					s.Mode = "normal"
				}
			}
			if w.Key != nil {
				s.PollKey = strings.TrimSpace(arg(c, *w.Key))
			}
			s.WKind = w.Kind
			s.Q = queueKey(s.Arg, vt, f.Name)
			if prefixedKind(w.Kind) {
				s.Q = w.Kind + ":" + s.Q
			}
			f.Sites = append(f.Sites, s)
			continue
		}
		if e := p.entries[c.Name]; e != nil {
			s := &wsite{Kind: siteEntry, Fn: f, Call: c, Entry: entryName(arg(c, e.Entry)), Autoremove: e.Autoremove, Func: e.Func}
			if e.FuncArg != nil {
				s.Func = strings.TrimSpace(arg(c, *e.FuncArg))
			}
			if s.Func != "" {
				ar := p.autoremove[s.Func]
				s.Autoremove = &ar
			}
			f.Sites = append(f.Sites, s)
			continue
		}
		if r := p.removals[c.Name]; r != nil {
			s := &wsite{Kind: siteRemove, Fn: f, Call: c, Arg: arg(c, r.Queue), Entry: entryName(arg(c, r.Entry))}
			s.Q = queueKey(s.Arg, vt, f.Name)
			f.Sites = append(f.Sites, s)
			continue
		}
		if a := p.actives[c.Name]; a != nil {
			s := &wsite{Kind: siteActive, Fn: f, Call: c, Arg: arg(c, a.Queue), BuiltinBarrier: a.Barrier}
			s.Q = queueKey(s.Arg, vt, f.Name)
			f.Sites = append(f.Sites, s)
			continue
		}
		if p.barriers[c.Name] {
			f.Sites = append(f.Sites, &wsite{Kind: siteBarrier, Fn: f, Call: c})
			continue
		}
		if len(c.Args) > 0 {
			if q := lockQueueArg(c.Args[0]); q != "" {
				kind := siteKind(0)
				if lock, unlock := p.queueLock(c); lock {
					kind = siteLock
				} else if unlock {
					kind = siteUnlock
				}
				if kind != 0 {
					f.Sites = append(f.Sites, &wsite{Kind: kind, Fn: f, Call: c, Arg: q, Q: queueKey(q, vt, f.Name)})
				}
			}
		}
	}
}

// sitesOn returns f's sites of the given kind on queue q ("" = any).
func (f *wfunc) sitesOn(kind siteKind, q string) []*wsite {
	var out []*wsite
	for _, s := range f.Sites {
		if s.Kind == kind && (q == "" || s.Q == q) {
			out = append(out, s)
		}
	}
	return out
}

// breadthRank orders wake-up breadths: one < nr < all.
func breadthRank(b string) int {
	switch b {
	case "one":
		return 1
	case "nr":
		return 2
	case "all":
		return 3
	}
	return 0
}

// describeBreadth says in words how many exclusive waiters a waker wakes.
func describeBreadth(s *wsite) string {
	switch s.Breadth {
	case "one":
		return "wakes a single exclusive waiter"
	case "nr":
		return "wakes at most " + s.Nr + " exclusive waiters"
	}
	return "wakes every waiter"
}

// guardKey identifies a guard independent of line numbers.
func guardKey(g cscan.Guard) string {
	return g.Kind + ":" + strings.Join(strings.Fields(g.Cond), " ")
}

// extraGuards returns the guards of b that a does not have (by kind and
// condition).
func extraGuards(b, a []cscan.Guard) []cscan.Guard {
	have := map[string]int{}
	for _, g := range a {
		have[guardKey(g)]++
	}
	var out []cscan.Guard
	for _, g := range b {
		k := guardKey(g)
		if have[k] > 0 {
			have[k]--
			continue
		}
		out = append(out, g)
	}
	return out
}

// splitOr splits a condition at its top-level "||".
func splitOr(cond string) []string { return splitTop(cond, "||") }

// splitTop splits a condition at a top-level binary operator ("||" or
// "&&"), looking through parentheses that enclose the whole condition.
func splitTop(cond, op string) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(cond); i++ {
		switch cond[i] {
		case '(', '[':
			depth++
		case ')', ']':
			depth--
		default:
			if depth == 0 && strings.HasPrefix(cond[i:], op) {
				out = append(out, strings.TrimSpace(cond[start:i]))
				start = i + len(op)
				i += len(op) - 1
			}
		}
	}
	out = append(out, strings.TrimSpace(cond[start:]))
	if len(out) == 1 {
		if s := cscan.StripParens(out[0]); s != out[0] {
			return splitTop(s, op)
		}
	}
	return out
}
