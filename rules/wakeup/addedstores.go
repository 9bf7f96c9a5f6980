package wakeup

import "strings"

// The stores of constants to members that a patch adds, shared by the
// checks of what added code owes its waiters (storeorder_added.go,
// storeorder_wrongqueue.go, storeorder_unannounced.go).

// addedStore is one store the patch adds: its line, the member chain
// stored to (spaces removed) and the value class stored ("0" or "1").
type addedStore struct {
	line     int
	lhs, val string
}

// addedFlagStores returns, in line order, the stores of a constant to a
// member that new version nw makes on changed lines and that old version
// old (nil for none) did not make on any line.
func addedFlagStores(old, nw *wfunc) []addedStore {
	had := map[string]bool{}
	if old != nil {
		for _, t := range old.lines {
			had[normLine(t)] = true
		}
	}
	var out []addedStore
	for _, l := range sortedLines(nw) {
		t := nw.lines[l]
		if !nw.changed(l) || had[normLine(t)] {
			continue
		}
		m := flagStoreRe.FindStringSubmatch(codeOnly(t))
		if m == nil {
			continue
		}
		lhs := strings.Join(strings.Fields(m[1]+m[3]), "")
		val := storeValue(m[2] + m[4])
		if val == "" || wakeObject(lhs) == "" {
			continue
		}
		out = append(out, addedStore{line: l, lhs: lhs, val: val})
	}
	return out
}

// eachAddedStore calls check with every added store of every function's
// new version, in line order, until it reports one (returns true) for
// that function.
func (r *checker) eachAddedStore(check func(nw *wfunc, line int, lhs, val string) bool) {
	for i, nw := range r.news {
		if nw == nil {
			continue
		}
		for _, st := range addedFlagStores(r.oldVersion(i), nw) {
			if check(nw, st.line, st.lhs, st.val) {
				break
			}
		}
	}
}

// oldVersion returns the version before the patch of the i-th function of
// the change: its own, or for a function the patch adds, that of a
// function of the same name the patch deletes (moved to another file),
// so code that moved is not read as new; nil when there is none.
func (r *checker) oldVersion(i int) *wfunc {
	if r.olds[i] != nil || r.news[i] == nil {
		return r.olds[i]
	}
	name := r.news[i].Name
	for j, o := range r.olds {
		if o != nil && j != i && o.Name == name && r.news[j] == nil {
			return o
		}
	}
	return nil
}

// waitsFor reports whether waiter w's condition has a term that value
// class val of member makes true, read through the object holding w's
// queue.
func waitsFor(w *wsite, member, val string) bool {
	wobj := wakeObject(w.Arg)
	for _, term := range splitTop(waitCond(w), "&&") {
		for _, t := range splitOr(term) {
			chain, need := termNeeds(t)
			if need == val && wakeObject(chain) == wobj && wakeMember(chain) == member {
				return true
			}
		}
	}
	return false
}
