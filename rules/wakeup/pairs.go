package wakeup

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
)

// Helpers shared by the checks that reason about the two sides of a
// sleeper/waker pair (barrier_removed.go, storeorder_publish.go, wakefunc.go): the role a
// function plays, the locks it holds at a line, the fields a line reads or
// writes, and the two-column interleaving shown in findings.

// roles is what a function does in a sleep/wake protocol.
type roles struct {
	// waitQs and wakeQs are the queues it waits on and wakes.
	waitQs, wakeQs []string
	// sleeps: an open-coded sleep (schedule() after setting the state).
	sleeps bool
	// wakesTask: it wakes a task directly (wake_up_process, wake_q_add).
	wakesTask bool
	// checks: a lockless "are there sleepers?" check.
	checks bool
}

func (ro roles) sleeper() bool { return len(ro.waitQs) > 0 || ro.sleeps }
func (ro roles) waker() bool   { return len(ro.wakeQs) > 0 || ro.wakesTask || ro.checks }

// rolesOf returns the union of the roles of the given views.
func (r *checker) rolesOf(fs ...*wfunc) roles {
	var ro roles
	for _, f := range fs {
		if f == nil {
			continue
		}
		for _, s := range f.Sites {
			switch s.Kind {
			case siteWait:
				if s.WKind != "poll" && s.Q != "" {
					ro.waitQs = appendUnique(ro.waitQs, s.Q)
				}
			case siteWake, siteGatedWake:
				if s.Q != "" {
					ro.wakeQs = appendUnique(ro.wakeQs, s.Q)
				}
			case siteActive:
				ro.checks = true
			}
		}
		if f.F == nil {
			continue
		}
		if openSleep(r, f) != 0 {
			ro.sleeps = true
		}
		for _, c := range f.F.Calls {
			if r.p.taskWakers[c.Name] != nil {
				ro.wakesTask = true
			}
		}
	}
	return ro
}

// heldLock is a lock held at a point of a function.
type heldLock struct {
	key  string // normalised lock expression ("bg_lock", "wqh.lock")
	kind string // the lock model's kind (spin, mutex, ...)
	text string // the call that took it
	line int
	// typed is the lock named by the type of the object that holds it
	// ("dm_bufio_client.lock"), the same in every function; "" when the
	// object's type is not known.
	typed string
	// must: held on every path to the line; callers: held by every
	// caller of the function (heldlocks_callers.go), which callers names.
	must    bool
	callers string
}

// stmtEnd returns the last line of a statement tree.
func stmtEnd(s cscan.Stmt) int {
	end := 0
	cscan.Inspect(s, func(x cscan.Stmt) {
		if b, ok := x.(*cscan.Block); ok && b.EndLine > end {
			end = b.EndLine
		}
		if l := cscan.StmtLine(x); l > end {
			end = l
		}
	})
	return end
}

// lockKey normalises a lock expression to its last two member names
// ("&fc->bg_lock" -> "bg_lock", "&ctx->wqh.lock" -> "wqh.lock").
func lockKey(arg string) string {
	a := stripAddr(arg)
	parts := strings.FieldsFunc(a, func(r rune) bool { return r == '.' || r == '>' || r == '-' || r == ' ' })
	if len(parts) == 0 {
		return ""
	}
	if len(parts) >= 2 && parts[len(parts)-1] == "lock" {
		return parts[len(parts)-2] + ".lock"
	}
	return parts[len(parts)-1]
}

// queueLockOf reports whether the lock key is the own lock of one of the
// queues (every wake_up()/prepare_to_wait() takes it).
func queueLockOf(key string, queues []string) bool {
	for _, q := range queues {
		if l := keyLast(strings.TrimPrefix(strings.TrimPrefix(q, "var:"), "completion:")); l != "" && key == l+".lock" {
			return true
		}
	}
	return false
}

var memberUseRe = regexp.MustCompile(`(?:->|\.)\s*([A-Za-z_]\w*)`)

// fieldsIn returns the member names a line uses ("urb->use_count" ->
// use_count), without call names and without "lock".
func fieldsIn(text string) []string {
	var out []string
	for _, m := range memberUseRe.FindAllStringSubmatchIndex(text, -1) {
		name := text[m[2]:m[3]]
		rest := strings.TrimSpace(text[m[1]:])
		if strings.HasPrefix(rest, "(") {
			continue
		}
		out = appendUnique(out, name)
	}
	return out
}

// codeLine returns the nearest line of f before (dir -1) or after (+1) line
// that holds code (not blank, not a comment), and its number.
func codeLine(f *wfunc, line, dir int) (string, int) {
	lines := make([]int, 0, len(f.lines))
	for l := range f.lines {
		lines = append(lines, l)
	}
	sort.Ints(lines)
	inComment := false
	var cands []int
	for _, l := range lines {
		t := strings.TrimSpace(f.lines[l])
		switch {
		case inComment:
			if strings.Contains(t, "*/") {
				inComment = false
			}
			continue
		case strings.HasPrefix(t, "/*"):
			if !strings.Contains(t, "*/") {
				inComment = true
			}
			continue
		case t == "" || strings.HasPrefix(t, "//") || t == "{" || t == "}" || strings.HasPrefix(t, "*"):
			continue
		}
		cands = append(cands, l)
	}
	best := 0
	for _, l := range cands {
		if dir < 0 && l < line {
			best = l
		}
		if dir > 0 && l > line {
			best = l
			break
		}
	}
	if best == 0 {
		return "", 0
	}
	return strings.TrimSpace(f.lines[best]), best
}

// columnWidth is the width of the left column of an interleaving.
const columnWidth = 46

// interleaving renders two CPUs' steps side by side, the way
// memory-barriers.txt and fix messages show a race: rows are
// {CPU 0 step, CPU 1 step}, either may be empty.
func interleaving(cpu0, cpu1 string, rows [][2]string) []string {
	pad := func(s string) string {
		if len(s) >= columnWidth {
			return s + " "
		}
		return s + strings.Repeat(" ", columnWidth-len(s))
	}
	out := []string{pad("CPU 0: "+cpu0) + "| CPU 1: " + cpu1}
	for _, r := range rows {
		out = append(out, strings.TrimRight(pad(clip(r[0]))+"| "+clip(r[1]), " "))
	}
	return out
}

// clip shortens a step to keep the columns readable.
func clip(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 70 {
		return s[:67] + "..."
	}
	return s
}

// siteWhere names a site as "func() file:line".
func siteWhere(s *wsite) string {
	return fmt.Sprintf("%s() %s:%d", s.Fn.Name, s.Fn.File, s.Line())
}

// waitCond returns the condition a waiter waits for, as text: the
// wait_event condition argument, "" for open-coded waits.
func waitCond(s *wsite) string {
	if s.WKind == "task" {
		return s.Cond
	}
	if s.WKind == "wait" || s.WKind == "var" {
		if len(s.Call.Args) > 1 {
			return strings.Join(strings.Fields(s.Call.Args[1]), " ")
		}
	}
	if s.WKind == "bit" && len(s.Call.Args) > 1 {
		// wait_on_bit*(word, bit, ...) sleeps until the bit is clear.
		return fmt.Sprintf("!test_bit(%s, %s)", strings.TrimSpace(s.Call.Args[1]), strings.TrimSpace(s.Call.Args[0]))
	}
	return ""
}

// otherSides returns the post-patch sites on the other side of f's
// queues: the wakers of the queues f waits on and the waiters of the
// queues f wakes, outside f itself.
func (r *checker) otherSides(f *wfunc, ro roles) (wakers, waiters []*wsite) {
	seen := map[*wsite]bool{}
	for _, q := range ro.waitQs {
		for _, s := range r.wakersOf(q) {
			if s.Fn.Name != f.Name && !seen[s] {
				seen[s] = true
				wakers = append(wakers, s)
			}
		}
	}
	for _, q := range ro.wakeQs {
		for _, s := range r.waitersOf(q) {
			if s.Fn.Name != f.Name && !seen[s] && s.WKind != "poll" {
				seen[s] = true
				waiters = append(waiters, s)
			}
		}
	}
	return wakers, waiters
}

// condOf returns the condition waiter s waits for: waitCond's, and for a
// queued entry (prepare_to_wait(), add_wait_queue()) what ends the
// open-coded sleep that follows it (openCondOf).
func (r *checker) condOf(s *wsite) string {
	if c := waitCond(s); c != "" || s.WKind != "add" {
		return c
	}
	c, ok := r.openConds[s]
	if !ok {
		c = r.openCondOf(s)
		if r.openConds == nil {
			r.openConds = map[*wsite]string{}
		}
		r.openConds[s] = c
	}
	return c
}

// withBody returns f with its statement tree: f itself, or for a tree
// function, which the index holds without statements, a copy of f with
// the function re-parsed (f when that fails).
func (r *checker) withBody(f *wfunc) *wfunc {
	if f.F == nil || f.F.Body != nil || r.pass.Index == nil {
		return f
	}
	if v, ok := r.bodies[f]; ok {
		return v
	}
	if r.bodies == nil {
		r.bodies = map[*wfunc]*wfunc{}
	}
	r.bodies[f] = f
	if full := r.pass.Index.Full(f.F); full != nil {
		v := *f
		v.F = full
		r.bodies[f] = &v
	}
	return r.bodies[f]
}

// openCondOf returns what ends the open-coded sleep after queued entry s
// in its function (openSleepCond: the tests between the task state set
// and the sleep call, and its loop's condition), "" when none is seen.
func (r *checker) openCondOf(s *wsite) string {
	if s.Fn.F == nil {
		return ""
	}
	f := r.withBody(s.Fn)
	if f.F.Body == nil {
		return ""
	}
	// The sleep must come while the entry is queued: no removal of it
	// (finish_wait(), remove_wait_queue()) on the way from the queueing.
	fl := flowOf(f)
	removed := func(c cscan.Call) bool {
		return slices.ContainsFunc(s.Fn.sitesOn(siteRemove, ""), func(x *wsite) bool {
			return x.Line() > s.Line() && x.Line() < c.Line && (s.Entry == "" || x.Entry == s.Entry) && fl.reaches(x.Line(), c.Line)
		})
	}
	for _, c := range f.F.Calls {
		if c.Line <= s.Line() || !r.p.sleeps[c.Name] && r.p.flagWaits[c.Name] == nil || removed(c) {
			continue
		}
		set := 0
		if st := r.stateSetBefore(f, c.Line); st != nil && st.Line >= s.Line() {
			set = st.Line
		} else if l := loopOf(c); l != nil && l.Line < s.Line() {
			set = s.Line() // the entry is queued inside the loop
		}
		// An if around the whole wait decides whether to wait at all:
		// it is no test the sleep makes once queued.
		c.Guards = slices.DeleteFunc(slices.Clone(c.Guards), func(g cscan.Guard) bool { return g.Kind == "if" && g.Line < s.Line() })
		return expandLocals(f, openSleepCond(f, set, c), s.Line(), c.Line)
	}
	return ""
}

// expandLocals replaces in cond each plain variable that f assigns
// between lines from and to (the last such assignment) by the value
// assigned: "sched = !shutdown && !count; if (sched) schedule();" waits
// for "!(!shutdown && !count)".
func expandLocals(f *wfunc, cond string, from, to int) string {
	if cond == "" || f.F == nil || f.F.Body == nil {
		return cond
	}
	vals := map[string]string{}
	cscan.Inspect(f.F.Body, func(st cscan.Stmt) {
		if e, ok := st.(*cscan.ExprStmt); ok && e.Line > from && e.Line < to {
			if m := declAssignRe.FindStringSubmatch(strings.Join(strings.Fields(codeOnly(e.Text)), " ")); m != nil {
				vals[declaredName(m[1])] = "(" + m[2] + ")"
			}
		}
	})
	if len(vals) == 0 {
		return cond
	}
	var b strings.Builder
	at := 0
	for _, m := range guardIdentRe.FindAllStringSubmatchIndex(cond, -1) {
		id := cond[m[2]:m[3]]
		before := strings.TrimRight(cond[:m[2]], " \t")
		v, ok := vals[id]
		if !ok || strings.HasSuffix(before, "->") || strings.HasSuffix(before, ".") {
			continue // a member of that name is no local
		}
		b.WriteString(cond[at:m[2]])
		b.WriteString(v)
		at = m[3]
	}
	b.WriteString(cond[at:])
	return b.String()
}
