package wakeup

import (
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/rules/lockctx"
)

// A task wake-up (wake_up_process() of a kthread, or a helper that makes
// it) has the obligations of a queue's wake-up: a condition the patch
// puts around it, or a return or goto it adds before it, leaves the task
// asleep on that path after a store its open-coded sleep checks. This
// file gives a task wake-up kept by the patch a queue key of its own
// ("task:" and the task's member, "task:pdev.task") and its sleepers
// (the sleeps on no queue of the waker's file, each with the events
// that end it), so that condwake_guards.go judges it as it judges a
// queue: a risk only when the path stores what a sleeper's condition
// reads and the new condition does not test it.

// taskKeyPrefix starts the queue key of a task wake-up.
const taskKeyPrefix = "task:"

// checkTaskWakeGates runs the gating and early-exit checks on each task
// wake-up the patch keeps (the same call text on both sides, in order).
func (r *checker) checkTaskWakeGates() {
	for i, nw := range r.news {
		ow := r.olds[i]
		if ow == nil || nw == nil || r.tree == nil {
			continue
		}
		olds := r.taskWakesOf(ow)
		used := make([]bool, len(olds))
		for _, n := range r.taskWakesOf(nw) {
			for j, o := range olds {
				if used[j] || lockctx.CallText(o.call) != lockctx.CallText(n.call) {
					continue
				}
				used[j] = true
				ns := r.taskSite(nw, n)
				if ns.Q != taskKeyPrefix {
					r.checkConditional(ow, nw, r.taskSite(ow, o), ns)
				}
				break
			}
		}
	}
}

// taskSite returns task wake-up tw of f as a wake site on the task's key,
// and records the task's sleepers for that key (postSites).
func (r *checker) taskSite(f *wfunc, tw taskWake) *wsite {
	s := &wsite{Kind: siteWake, Fn: f, Call: tw.call, Arg: tw.task, WKind: "task", Breadth: "one"}
	s.Q = taskKeyPrefix + queueKey(tw.task, f.vt, f.Name)
	files := []string{f.File}
	if tw.via != nil && tw.via.File != f.File {
		files = append(files, tw.via.File)
	}
	if r.taskWaiters == nil {
		r.taskWaiters, r.taskFiles = map[string][]*wsite{}, map[string]bool{}
	}
	for _, path := range files {
		if k := s.Q + "|" + path; !r.taskFiles[k] {
			r.taskFiles[k] = true
			r.taskWaiters[s.Q] = append(r.taskWaiters[s.Q], r.openSleepers(s.Q, path)...)
		}
	}
	return s
}

// fileViews returns the functions of file path other than skip: the
// patch's new sides and the tree's others.
func (r *checker) fileViews(path, skip string) []*wfunc {
	var views []*wfunc
	for _, nw := range r.news {
		if nw != nil && nw.File == path && nw.F != nil && nw.Name != skip {
			views = append(views, nw)
		}
	}
	if file := r.pass.Index.File(path); file != nil {
		for _, fn := range file.Funcs {
			if fn.Name != skip && !r.inPatch[path+":"+fn.Name] {
				views = append(views, r.tree.view(fn))
			}
		}
	}
	return views
}

// openSleepers returns the sleeps on no queue of file path
// (set_current_state() then schedule()), as wait sites on task key q
// with the events that end each one. A sleep after prepare_to_wait() or
// add_wait_queue() is a queue's: a task wake-up is not what ends it.
func (r *checker) openSleepers(q, path string) []*wsite {
	var out []*wsite
	for _, v := range r.fileViews(path, "") {
	calls:
		for _, c := range r.sleepCalls(v) {
			set := r.stateSetBefore(v, c.Line)
			if set == nil || strings.HasPrefix(set.Name, "prepare_to_wait") {
				continue
			}
			for _, s := range v.Sites {
				if s.Kind == siteEntry && s.Line() <= c.Line {
					continue calls
				}
			}
			if cond := openSleepCond(v, set.Line, c); cond != "" {
				out = append(out, &wsite{Kind: siteWait, Fn: v, Call: c, Q: q, WKind: "task", Cond: cond})
			}
		}
	}
	return out
}

// openSleepCond returns what ends an open-coded sleep at call c, its task
// state set at line set: the events its tests look for after the state
// set (sleepTerms: "if (d->done) break;", the negation of "if (!d->done)
// schedule();") and the negation of its loop's condition, joined with
// " || " ("" when none is seen).
func openSleepCond(f *wfunc, set int, c cscan.Call) string {
	terms, _ := sleepTerms(f, c, set)
	var conds []string
	for _, t := range terms {
		conds = append(conds, t.event)
	}
	for _, g := range c.Guards {
		if g.Kind == "loop" && strings.TrimSpace(g.Cond) != "" && !strings.Contains(g.Cond, ";") {
			conds = append(conds, negate(g.Cond))
		}
	}
	for i, cd := range conds {
		conds[i] = strings.Join(strings.Fields(cd), " ")
	}
	return strings.Join(conds, " || ")
}

// withoutTaskTests returns gate cond of task wake-up n without its
// top-level && terms that test for a sleeping task rather than for what
// it waits for ("" when every term does): the task itself ("d->task",
// "t"), or a flag its sleepers store before they sleep ("q->sleeping",
// or a local named after it). Skipping the wake-up of no sleeper is no
// lost wake-up; whether that test is ordered is the flag handshake's
// question (handshake.go).
func (r *checker) withoutTaskTests(cond string, n *wsite) string {
	var rest []string
	for _, t := range splitTop(cond, "&&") {
		if !r.testsTask(t, n) {
			rest = append(rest, strings.TrimSpace(t))
		}
	}
	return strings.Join(rest, " && ")
}

// testsTask reports whether cond reads the task of task wake-up n or a
// member its sleepers store before they sleep.
func (r *checker) testsTask(cond string, n *wsite) bool {
	names := map[string]bool{}
	if last := keyLast(lockKey(n.Arg)); last != "" {
		names[last] = true
	}
	for _, w := range r.taskWaiters[n.Q] {
		if w.Fn.Name == n.Fn.Name {
			continue // the waker's own later sleep
		}
		for l, t := range w.Fn.lines {
			if l < w.Line() && isStore(t) {
				for m := range stateTokens(t) {
					names[m] = true
				}
			}
		}
	}
	for _, w := range identWords(cond) {
		if names[w] {
			return true
		}
	}
	return false
}

// taskStoreBefore returns the last store of f before line exit that a
// task sleeper's condition reads, with those sleepers ("" and none when
// there is none). A task's sleepers are every sleep on no queue of the
// file: only one that checks what the path stored is left asleep by an
// exit that skips the wake-up.
func taskStoreBefore(f *wfunc, exit int, ws []*wsite) (string, []*wsite) {
	start := 0
	if f.F != nil {
		start = f.F.BodyStart
	}
	for l := exit - 1; l > start; l-- {
		t, ok := f.lines[l]
		if !ok || !isStore(t) {
			continue
		}
		st := stateTokens(t)
		var out []*wsite
		for _, w := range ws {
			if sharesState(st, stateTokens(waitCond(w))) {
				out = append(out, w)
			}
		}
		if len(out) > 0 {
			return strings.TrimSpace(t), out
		}
	}
	return "", nil
}

// fileTaskWakes returns the task wake-ups of the functions of f's file
// other than f (the patch's new sides and the tree's), as wake sites on
// their task keys: the wakers of an open-coded sleep on no queue.
func (r *checker) fileTaskWakes(f *wfunc) []*wsite {
	var out []*wsite
	for _, v := range r.fileViews(f.File, f.Name) {
		for _, tw := range r.taskWakesOf(v) {
			out = append(out, r.taskSite(v, tw))
		}
	}
	return out
}
