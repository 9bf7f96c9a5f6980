package sleep

import (
	"fmt"
	"slices"
	"strings"

	"github.com/autosel-bot/autosel-bot/report"
)

// A function that newly sleeps is often called in atomic context from
// many places: gether_disconnect() from the set_alt and disable ops of
// every USB gadget function that holds the composite device's lock. One
// finding per caller would repeat the same line, sleep and context a
// dozen times: more than maxCallerFindings reverse findings on one line
// for one sleep in one context are reported once, with the first
// caller's chain and the others named.

// maxCallerFindings is how many callers' findings of one sleep in one
// context are reported each with its own chain.
const maxCallerFindings = 3

// maxCallersNamed bounds the other callers a merged finding names.
const maxCallersNamed = 8

// callerFinding is the reverse findings of one sleep in one context, held
// back until every caller is known, with their callers.
type callerFinding struct {
	fs      []report.Finding
	callers []string
}

// holdReverse keeps reverse finding f, whose sleep is reached from
// caller, to be reported by flushReverse: merged with the findings of
// other callers on the same line for the same chain below callee.
func (r *checker) holdReverse(f report.Finding, caller, callee string) {
	key := reverseKey(f, callee)
	h, ok := r.reverseHeld[key]
	if !ok {
		if r.reverseHeld == nil {
			r.reverseHeld = map[string]*callerFinding{}
		}
		h = &callerFinding{}
		r.reverseHeld[key] = h
		r.reverseOrder = append(r.reverseOrder, key)
	}
	h.fs = append(h.fs, f)
	if !slices.Contains(h.callers, caller) {
		h.callers = append(h.callers, caller)
	}
}

// flushReverse reports the held reverse findings, in the order they were
// found, each naming the other callers it stands for.
func (r *checker) flushReverse() {
	for _, k := range r.reverseOrder {
		h := r.reverseHeld[k]
		if len(h.callers) <= maxCallerFindings {
			for _, f := range h.fs {
				r.p.Report(f)
			}
			continue
		}
		f := h.fs[0]
		names, more := h.callers[1:], ""
		if n := len(names); n > maxCallersNamed {
			names, more = names[:maxCallersNamed], fmt.Sprintf(" and %d more", n-maxCallersNamed)
		}
		f.Message += fmt.Sprintf("; so do %s()%s", strings.Join(names, "(), "), more)
		f.Explanation += fmt.Sprintf(" %d other callers reach it in the same context: %s()%s.", len(h.callers)-1, strings.Join(names, "(), "), more)
		r.p.Report(f)
	}
	r.reverseHeld, r.reverseOrder = nil, nil
}

// reverseKey identifies the sleep and context a reverse finding reports:
// its place, level, context key and the chain from the function that
// newly sleeps down.
func reverseKey(f report.Finding, callee string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s|%s|%s:%d|%s|%s", f.Category, f.Severity, f.File, f.Line, f.Func, f.Key)
	from := false
	for _, s := range f.Chain {
		if s.Func == callee {
			from = true
		}
		if from {
			fmt.Fprintf(&b, "|%s:%d", s.Func, s.Line)
		}
	}
	return b.String()
}
