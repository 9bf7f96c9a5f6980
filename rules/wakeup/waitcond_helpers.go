package wakeup

import "strings"

// Condition helpers.
//
// The function a waiter calls in its condition (test_reply() of
// wait_event(req->wq, test_reply(req))) runs on the sleeper's side of the
// protocol: its loads are the sleeper's re-check, and the ordering they
// need (a read barrier after the state test, an acquire load) is the
// sleeper's ordering.

// maxCondCallers bounds the callers examined for a condition helper.
const maxCondCallers = 16

// condHelperQueues returns the queues of the waiters that call function
// name in their wait condition (tree callers of name whose call sits in a
// wait primitive's condition).
func (r *checker) condHelperQueues(name string) []string {
	if r.tree == nil || name == "" {
		return nil
	}
	callers := r.pass.Index.Callers(name)
	if len(callers) > maxCondCallers {
		callers = callers[:maxCondCallers]
	}
	var out []string
	for _, cs := range callers {
		if cs.Func == nil || r.inPatch[r.tree.relPath(cs.Func.File)+":"+cs.Func.Name] {
			continue
		}
		for _, w := range r.tree.view(cs.Func).sitesOn(siteWait, "") {
			if w.Q != "" && w.WKind == "wait" && containsWord(waitCond(w), name) && !strings.HasPrefix(w.Q, "local:") {
				out = appendUnique(out, w.Q)
			}
		}
	}
	return out
}
