package wakeup

import (
	"regexp"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/rules/lockmodel"
)

// handoffWaiters returns the waits on queue q that the new version nw of
// a function still makes, when the function f holding a wake-up of q at
// line (the old version for a removed wake-up, nw itself for one a new
// exit skips) waits on q before it: a thread does not wake itself, so
// the sleeper a wake-up after the function's own wait wakes is another
// thread running the same function. That is how a function hands a busy
// state on (wait_event(q, !busy) ... busy = false; wake_up(q): "wake up
// other pending commands"), and losing the wake-up leaves those threads
// asleep. A wait under a sleeping lock held on every path through to the
// wake-up is left out (no other thread reaches the wait while this one
// holds it), and so is a function only one thread runs at a time (a
// kernel thread's or a work item's). The sites returned are the new
// side's, whose lines the report cites.
func (r *checker) handoffWaiters(f *wfunc, line int, q string, nw *wfunc) []*wsite {
	var now []*wsite
	for _, s := range nw.sitesOn(siteWait, "") {
		if r.sameQueue(s.Q, q) {
			now = append(now, s)
		}
	}
	if len(now) == 0 || r.singleInstance(nw) {
		return nil
	}
	for _, s := range f.sitesOn(siteWait, "") {
		if s.Line() < line && r.sameQueue(s.Q, q) && !r.serializedBetween(f, s.Line(), line) {
			return now
		}
	}
	return nil
}

// serializedBetween reports whether f holds one sleeping lock (a mutex,
// an rwsem, a semaphore) on every path at both lines.
func (r *checker) serializedBetween(f *wfunc, from, to int) bool {
	for _, a := range r.locksAt(f, from) {
		if !a.must || !lockmodel.Sleeping[a.kind] {
			continue
		}
		for _, b := range r.locksAt(f, to) {
			if b.must && b.key == a.key {
				return true
			}
		}
	}
	return false
}

// singleRunnerRe matches a registration that runs a function as a kernel
// thread or a work item, $1 its arguments.
var singleRunnerRe = regexp.MustCompile(`\b(?:kthread_run|kthread_create|kthread_create_on_node|kthread_create_on_cpu|kthread_run_on_cpu|INIT_WORK|INIT_DELAYED_WORK|INIT_WORK_ONSTACK|INIT_RCU_WORK|DECLARE_WORK|DECLARE_DELAYED_WORK)\s*\(([^;]*)\)`)

// singleInstance reports whether f's file runs f as a kernel thread or a
// work item: one thread runs it at a time (per object), so a wake-up
// after its own wait hands nothing to another instance of it.
func (r *checker) singleInstance(f *wfunc) bool {
	if r.pass == nil || r.pass.Index == nil {
		return false
	}
	src, err := r.pass.Index.ReadFile(f.File)
	if err != nil {
		return false
	}
	for _, m := range singleRunnerRe.FindAllSubmatch(src, -1) {
		if cscan.ContainsWord(string(m[1]), f.Name) {
			return true
		}
	}
	return false
}
