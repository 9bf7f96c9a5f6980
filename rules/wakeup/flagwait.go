package wakeup

import (
	"fmt"
	"regexp"
	"slices"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/report"
)

// A sleep that relies on a flag its entry's wake function sets
// (category wait-entry): wait_woken() sets the task state, sleeps only
// while WQ_FLAG_WOKEN is clear and clears it after; woken_wake_function()
// sets the flag, with a barrier, before it wakes the task and leaves the
// entry queued. The flag is what makes `while (!cond) wait_woken(...)`
// safe against a wake-up between the test and the sleep. With an entry
// from DEFINE_WAIT(), init_wait(), DECLARE_WAITQUEUE() or any wake
// function that does not set it, that wake-up finds the task running and
// is lost: the task sleeps out its timeout (or for ever), and an
// auto-removing entry is off the queue after the first wake-up, so the
// later ones never reach the loop at all.

// checkFlagWaits reports a flag-relying sleep of nw whose entry, set up
// in nw, gets a wake function that does not set the flag, when the patch
// made the pair (changed the set-up or the sleep) and the old side did
// not have the same pair.
func (r *checker) checkFlagWaits(old, nw *wfunc) {
	if nw == nil || nw.F == nil || len(r.p.flagWaits) == 0 {
		return
	}
	for _, c := range nw.F.Calls {
		row := r.p.flagWaits[c.Name]
		if row == nil {
			continue
		}
		entry := entryName(argAt(c.Args, row.Entry))
		set := setupBefore(nw, entry, c.Line)
		if set == nil {
			continue
		}
		fn := funcStoredBefore(nw, entry, set.Line(), c.Line, set.Func)
		if sets, known := r.setsFlag(fn, nw.File, row.Needs); sets || !known {
			continue
		}
		if !nw.changed(c.Line) && !set.Changed() {
			continue
		}
		if old != nil && old.F != nil && callsName(old.F, c.Name) {
			if o := setupBefore(old, entry, old.F.End); o != nil && funcStoredBefore(old, entry, o.Line(), old.F.End, o.Func) == fn {
				continue // the pair was there before the patch
			}
		}
		r.reportFlagWait(nw, c, set, fn, row)
	}
}

// flagWaitServed reports whether entry set-up n gives its entry the wake
// function a flag-relying sleep of f on that entry needs (a
// wait_woken() loop whose entry becomes woken_wake_function()'s): the
// entry then stays queued by design, nothing to note.
func (r *checker) flagWaitServed(f *wfunc, n *wsite) bool {
	if f.F == nil {
		return false
	}
	for _, c := range f.F.Calls {
		if row := r.p.flagWaits[c.Name]; row != nil && entryName(argAt(c.Args, row.Entry)) == n.Entry {
			if sets, _ := r.setsFlag(funcStoredBefore(f, n.Entry, n.Line(), c.Line, n.Func), f.File, row.Needs); sets {
				return true
			}
		}
	}
	return false
}

// setupBefore returns the last set-up of entry in f before line, nil if
// f sets none up there.
func setupBefore(f *wfunc, entry string, line int) *wsite {
	var out *wsite
	for _, s := range f.sitesOn(siteEntry, "") {
		if s.Entry == entry && s.Line() < line {
			out = s
		}
	}
	return out
}

// callsName reports whether fn calls name.
func callsName(fn *cscan.Func, name string) bool {
	for _, c := range fn.Calls {
		if c.Name == name {
			return true
		}
	}
	return false
}

// setsFlag reports whether wake function name is one of needs or, as
// seen from file, a custom one that calls one of them; known is false
// when name is neither a library wake function nor found (a custom one
// outside the view), which decides nothing.
func (r *checker) setsFlag(name, file string, needs []string) (sets, known bool) {
	if name == "" {
		return false, false
	}
	if slices.Contains(needs, name) {
		return true, true
	}
	if r.p.entryWakers[name] {
		return false, true
	}
	for _, f := range r.funcsNamed(name, file) {
		if f.F == nil {
			continue
		}
		known = true
		for _, n := range needs {
			if callsName(f.F, n) {
				return true, true
			}
		}
	}
	return false, known
}

// funcStoredBefore returns the wake function entry gets last between
// lines from and to of f: one stored in its func member
// ("wait.func = woken_wake_function;"), else fn, the set-up's.
func funcStoredBefore(f *wfunc, entry string, from, to int, fn string) string {
	re := regexp.MustCompile(`\b` + regexp.QuoteMeta(entry) + `\s*(?:\.|->)\s*func\s*=\s*&?\s*([A-Za-z_]\w*)\s*;`)
	for l := from + 1; l < to; l++ {
		if m := re.FindStringSubmatch(codeOnly(f.lines[l])); m != nil {
			fn = m[1]
		}
	}
	return fn
}

// reportFlagWait reports sleep c on entry set up by set, whose wake
// function does not set the flag the sleep relies on.
func (r *checker) reportFlagWait(nw *wfunc, c cscan.Call, set *wsite, fn string, row *flagWaitRow) {
	q := r.entryQueue(nw, set.Entry)
	f := report.Finding{
		Category: CategoryWaitEntry,
		Severity: report.SeverityRisk,
		File:     nw.File, Func: nw.Name, Line: c.Line, Key: q,
		Message: fmt.Sprintf("%s() sleeps on entry %s whose wake function %s() never sets the flag it relies on (set by %s())",
			c.Name, set.Entry, fn, row.Needs[0]),
		Evidence: []string{nw.evidence(set.Line()), nw.evidence(c.Line)},
	}
	f.Chain = append(f.Chain, report.Step{Func: nw.Name, File: nw.File, Line: set.Line(), What: "sets up the entry with " + fn + "(): " + set.Text()})
	f.Chain = append(f.Chain, report.Step{Func: nw.Name, File: nw.File, Line: c.Line, What: "sleeps with " + c.Name + "(), which skips the sleep only if the flag is set"})
	f.Evidence = append(f.Evidence, interleaving(nw.Name+"()", "waker", [][2]string{
		{"tests its condition: false", ""},
		{"", "makes the condition true"},
		{"", "wakes the queue: " + fn + "() wakes a running task, sets no flag"},
		{c.Name + "(): flag clear, sleeps", ""},
		{"sleeps with the condition true (until the timeout)", ""},
	})...)
	f.Explanation = fmt.Sprintf("%s() decides whether to sleep from the entry's WQ_FLAG_WOKEN, which only %s() sets, so that a wake-up between the sleeper's test and its sleep is not lost. %s() sets up %s with %s(), which does not set it: a wake-up that comes after the test finds the task still running and is lost, and the task sleeps with its condition true until its timeout.%s Use DEFINE_WAIT_FUNC(%s, %s) (or init_wait_func()), or sleep with prepare_to_wait()/schedule() instead.",
		c.Name, row.Needs[0], nw.Name, set.Entry, fn, autoremoveNote(r.p.autoremove[fn]), set.Entry, row.Needs[0])
	r.add(f)
}

// autoremoveNote adds what an auto-removing entry makes worse.
func autoremoveNote(autoremove bool) string {
	if autoremove {
		return " The entry is also taken off the queue by the first wake-up, so the next ones never reach this loop."
	}
	return ""
}

// flagWaitRow describes a sleep that relies on a flag the entry's wake
// function sets (wait_woken() and WQ_FLAG_WOKEN): Entry is the entry
// argument, Needs the wake functions that set the flag.
type flagWaitRow struct {
	Name  string   `yaml:"name"`
	Entry int      `yaml:"entry"`
	Needs []string `yaml:"needs"`
}
