package wakeup

import (
	"regexp"
	"slices"
	"strings"
)

// A new exit that skips a wake-up owes it when some path to the exit
// stored what a waiter of the queue waits for, however far above the exit
// the store is: pipe_write() fills a slot (pipe->head = head + 1) in one
// round of its loop, finds the pipe full in the next and returns on a
// signal before the "out:" path wakes the readers.

// maxWaitersRead bounds the waiters whose conditions are read.
const maxWaitersRead = 16

// storeWaitedFor returns the latest store of f before exit, on a path to
// it, that writes state the condition of one of waiters reads, with no
// wake-up of n's queue after it on the way; "" if none.
func (r *checker) storeWaitedFor(f *wfunc, exit int, n *wsite, waiters []*wsite) string {
	type waited struct {
		text   string
		tokens map[string]bool
	}
	var conds []waited
	for _, w := range byNearness(waiters, f.File) {
		if len(conds) == maxWaitersRead {
			break
		}
		if c := r.condOf(w); c != "" {
			conds = append(conds, waited{c, stateTokens(r.withHelpers(c, w.Fn.File))})
		}
	}
	if len(conds) == 0 {
		return ""
	}
	fl := flowOf(f)
	wakes := f.sitesOn(siteWake, "")
	fresh := allocatedLocals(f)
	lines := sortedLines(f)
	slices.Reverse(lines)
	for _, l := range lines {
		t := codeOnly(f.lines[l])
		if l >= exit || !isStore(t) || !fl.reaches(l, exit) {
			continue
		}
		if span, ok := fresh[storeBase(t)]; ok && l > span[0] && l < span[1] {
			continue // into an object not handed on yet
		}
		st := stateTokens(t)
		made := slices.ContainsFunc(conds, func(c waited) bool {
			if !sharesState(st, c.tokens) {
				return false
			}
			// A constant stored that the condition cannot hold with makes
			// no waiter runnable; where the condition does not test the
			// member, a reset (done = false) is taken as such.
			m := constStoreRe.FindStringSubmatch(t)
			if m == nil {
				return true
			}
			if field := lastMember(normLvalue(m[1])); containsWord(c.text, field) {
				return condHoldsWith(c.text, field, m[2])
			}
			return !isResetValue(m[2])
		})
		if !made {
			continue
		}
		woken := slices.ContainsFunc(wakes, func(s *wsite) bool {
			return s.Line() > l && s.Line() < exit && r.sameQueue(s.Q, n.Q) && fl.reaches(l, s.Line())
		})
		if !woken && !exitTellsStore(f, fl, l, exit) {
			return strings.TrimSpace(f.lines[l])
		}
	}
	return ""
}

// isResetValue reports whether v is a value a store resets state to
// (0, false, NULL).
func isResetValue(v string) bool {
	return v == "0" || v == "false" || v == "NULL"
}

// allocRe finds "p = kzalloc(...)"-style assignments of a fresh object.
var allocRe = regexp.MustCompile(`(?:^|[^\w>.])([A-Za-z_]\w*)\s*=\s*\(?\s*(?:k[mz]?alloc\w*|kcalloc|kv[mz]?alloc\w*|v[mz]?alloc|kmem_cache_z?alloc\w*|kmemdup\w*|kstrdup\w*)\s*\(`)

// allocatedLocals returns, for each variable f assigns a freshly
// allocated object to, the lines from the allocation up to the first
// line that hands the object on (passes it to a call, stores it) or
// assigns the variable again: stores through it there are to an object
// no waiter can see yet.
func allocatedLocals(f *wfunc) map[string][2]int {
	out := map[string][2]int{}
	lines := sortedLines(f)
	for i, l := range lines {
		m := allocRe.FindStringSubmatch(codeOnly(f.lines[l]))
		if m == nil {
			continue
		}
		v := m[1]
		used := regexp.MustCompile(`\w\s*\([^;]*\b` + regexp.QuoteMeta(v) + `\b|=\s*&?\s*` + regexp.QuoteMeta(v) + `\b|(?:^|[^\w>.])` + regexp.QuoteMeta(v) + `\s*=[^=]`)
		end := f.F.End
		for _, k := range lines[i+1:] {
			if used.MatchString(codeOnly(f.lines[k])) {
				end = k
				break
			}
		}
		out[v] = [2]int{l, end}
	}
	return out
}

// storeBase returns the variable a store's lvalue starts from ("req" for
// "req->done = false;"), "" when it has none.
func storeBase(t string) string {
	if m := memberRe.FindStringSubmatch(strings.TrimSpace(strings.SplitN(t, "=", 2)[0])); m != nil {
		return m[1]
	}
	return ""
}

// exitTellsStore reports whether the exit at line of f is taken only when
// a variable that the path from the store at line store adds to on its
// way is still zero ("ret += copied;" after the store, "if (!ret) return
// -EAGAIN;"): a return for "nothing written" follows no store.
func exitTellsStore(f *wfunc, fl bodyFlow, store, exit int) bool {
	for _, c := range branchConds(f, exit) {
		m := zeroTestRe.FindStringSubmatch(normCond(c))
		if m == nil {
			continue
		}
		v := m[1] + m[2]
		for l, t := range f.lines {
			if l <= store || l >= exit {
				continue
			}
			if a := addStoreRe.FindStringSubmatch(codeOnly(t)); a != nil && a[1] == v && fl.reaches(store, l) {
				return true
			}
		}
	}
	return false
}

// addStoreRe finds a variable a line adds to ("ret += copied", "n++",
// "mask |= bit").
var addStoreRe = regexp.MustCompile(`(?:^|[^\w>.])([A-Za-z_]\w*)\s*(?:\+=|\|=|\+\+)`)

// zeroTestRe matches a test that a variable is zero: "!x" or "x == 0".
var zeroTestRe = regexp.MustCompile(`^(?:!\s*([A-Za-z_]\w*)|([A-Za-z_]\w*)\s*==\s*0)$`)
