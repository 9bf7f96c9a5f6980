package wakeup

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// A broadcast condition from the protocol model rather than the waker's
// name: before the wake-up, its path stores a final value (NULL, true,
// an upper-case constant such as SHUTDOWN_MASK) into a member that an
// exclusive waiter's condition reads. Unlike an item queued or a count
// raised, which one woken waiter consumes, such a state stays true for
// every waiter at once: each of them must be woken.

// terminalStoreRe finds a store of a final value into a member; the
// capture is the member.
var terminalStoreRe = regexp.MustCompile(`(?:->|\.)\s*(\w+)\s*=\s*(?:NULL|true|[A-Z][A-Z0-9_]{2,})\s*;|\bWRITE_ONCE\s*\([^,;]*(?:->|\.)\s*(\w+)\s*,\s*(?:NULL|true|[A-Z][A-Z0-9_]{2,})\s*\)`)

// terminalStores returns the members stored a final value before line in
// f, with the text of each store.
func terminalStores(f *wfunc, line int) map[string]string {
	out := map[string]string{}
	for l, t := range f.lines {
		if l >= line {
			continue
		}
		for _, m := range terminalStoreRe.FindAllStringSubmatch(codeOnly(t), -1) {
			name := m[1] + m[2]
			if name != "" && name != "lock" {
				out[name] = normLine(t)
			}
		}
	}
	return out
}

// terminalBroadcast returns the broadcast evidence of waker w from the
// final values its path stores (in its function before the wake-up, or
// in a caller before the call) that one of the exclusive waiters excl
// tests; nil if none.
func (r *checker) terminalBroadcast(w *wsite, excl []*wsite) *broadcast {
	type src struct {
		fn     string
		stores map[string]string
	}
	srcs := []src{{w.Fn.Name, terminalStores(w.Fn, w.Line())}}
	for _, c := range r.callerViews(w.Fn) {
		srcs = append(srcs, src{c.f.Name, terminalStores(c.f, c.line)})
	}
	for _, s := range srcs {
		names := make([]string, 0, len(s.stores))
		for n := range s.stores {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			for _, e := range excl {
				if !r.waiterTests(e, n) {
					continue
				}
				return &broadcast{
					reasons: []string{fmt.Sprintf("%s() stores a final value before it (`%s`), which %s() tests to stop waiting: it holds for every waiter at once", s.fn, s.stores[n], e.Fn.Name)},
					flags:   []string{n},
					strong:  true,
				}
			}
		}
	}
	return nil
}

// waiterTests reports whether waiter e's condition reads member: the
// condition of a wait_event-style wait, or the lines after an open-coded
// queueing (prepare_to_wait, add_wait_queue) up to its sleep.
func (r *checker) waiterTests(e *wsite, member string) bool {
	if waitCond(e) != "" || e.WKind == "completion" {
		return r.condReads(e, []string{member})
	}
	if e.WKind != "add" {
		return false
	}
	var b strings.Builder
	for l := e.Line() + 1; l <= e.Line()+afterWaitLines; l++ {
		t, ok := e.Fn.lines[l]
		if !ok {
			continue
		}
		if strings.Contains(t, "schedule") || strings.Contains(t, "wait_woken") {
			break
		}
		b.WriteString(t)
		b.WriteByte('\n')
	}
	return containsWord(strings.ReplaceAll(b.String(), "->", "."), member) && memberUsed(b.String(), member)
}

// memberUsed reports whether text uses member as a member ("->m", ".m").
func memberUsed(text, member string) bool {
	for _, f := range fieldsIn(text) {
		if f == member {
			return true
		}
	}
	return false
}
