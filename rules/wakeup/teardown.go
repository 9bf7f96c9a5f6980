package wakeup

import (
	"fmt"
	"strings"

	"github.com/autosel-bot/autosel-bot/report"
)

// Teardown and keyed wake-ups of pollers.
//
// A wake-up whose key carries POLLFREE announces that the queue head is
// about to be freed: every entry on it (poll tables, epoll items, which
// may be exclusive with EPOLLEXCLUSIVE) must be woken and unhooked, and
// the waker must wait for RCU readers of the head (wake_up_pollfree()
// does both). A single wake-up there leaves entries on freed memory.
//
// A keyed wake-up (wake_up_poll(q, EPOLLIN | ...)) is filtered by each
// poll entry against the events it asked for; dropping a bit from the
// key hides the wake-up from waiters that asked for that bit only, even
// though the poll function reports it.

// freeKeys are the key bits that announce the queue's end.
var freeKeys = []string{"POLLFREE", "EPOLLFREE"}

// pollBits returns the EPOLL*/POLL* identifiers of a key expression.
func pollBits(key string) []string {
	var out []string
	for _, w := range identWords(key) {
		if strings.HasPrefix(w, "EPOLL") || strings.HasPrefix(w, "POLL") {
			out = appendUnique(out, w)
		}
	}
	return out
}

// bitName strips the E of EPOLL* so that EPOLLIN and POLLIN compare equal.
func bitName(b string) string { return strings.TrimPrefix(b, "E") }

// teardownNarrowed reports whether a narrowed wake-up n of o is the last
// wake-up of a queue being freed; why says how it is known.
func teardownNarrowed(o, n *wsite) (bool, string) {
	for _, k := range freeKeys {
		if containsWord(n.PollKey, k) {
			return true, "its key carries " + k + ": the queue head is freed after it"
		}
	}
	if strings.HasSuffix(o.Call.Name, "_pollfree") {
		return true, o.Call.Name + "() announced that the queue head is freed after it"
	}
	return false, ""
}

// riskTeardown turns a narrowed-wake-up finding into a teardown risk.
func (r *checker) riskTeardown(f *report.Finding, o, n *wsite, why string) {
	f.Severity = report.SeverityRisk
	f.Message = fmt.Sprintf("last wake-up of %s before it is freed narrowed: %s -> %s", n.Q, o.Call.Name, n.Call.Name)
	var pollers []*wsite
	for _, s := range r.waitersOf(n.Q) {
		if s.WKind == "poll" || s.Exclusive {
			pollers = append(pollers, s)
		}
	}
	peer := "an epoll item (EPOLLEXCLUSIVE)"
	if len(pollers) > 0 {
		peer = pollers[0].Fn.Name + "() entry"
		f.Chain = append(f.Chain, step(pollers[0], "registers on "+n.Q+": "+pollers[0].Text()))
	}
	f.Chain = append(f.Chain, step(n, "wakes a single exclusive entry: "+n.Text()))
	f.Evidence = append(f.Evidence, interleaving(n.Fn.Name+"()", peer, [][2]string{
		{n.Text(), ""},
		{"  wakes the first exclusive entry only", "(second exclusive entry: not woken)"},
		{"frees the queue head", "still linked on the freed head"},
		{"", "ep_remove()/poll cleanup: list_del on freed memory"},
	})...)
	f.Explanation = fmt.Sprintf("%s() sends the final wake-up of %s (%s) with %s, which %s. Exclusive entries (epoll items added with EPOLLEXCLUSIVE) after the first are not woken and stay linked on a queue head that is freed next; their later removal writes freed memory. wake_up_pollfree() wakes every entry with POLLFREE and waits for RCU readers of the head: use it for the last wake-up of a queue that dies.",
		n.Fn.Name, n.Q, why, n.Call.Name, describeBreadth(n))
}

// checkPollKey reports a keyed wake-up whose key lost event bits that a
// poller of the queue reports: epoll items asking for those bits only no
// longer see it.
func (r *checker) checkPollKey(o, n *wsite) {
	if o.PollKey == "" || n.PollKey == "" || o.Q != n.Q || (!o.Changed() && !n.Changed()) {
		return
	}
	have := map[string]bool{}
	for _, b := range pollBits(n.PollKey) {
		have[bitName(b)] = true
	}
	var lost []string
	for _, b := range pollBits(o.PollKey) {
		if !have[bitName(b)] {
			lost = append(lost, b)
		}
	}
	if len(lost) == 0 {
		return
	}
	f := report.Finding{
		Category: CategoryNarrowed,
		Severity: report.SeverityNote,
		File:     n.Fn.File, Func: n.Fn.Name, Line: n.Line(), Key: n.Q,
		Message:  fmt.Sprintf("keyed wake-up of %s no longer carries %s", n.Q, strings.Join(lost, "|")),
		Evidence: []string{n.Fn.evidence(n.Line())},
		Old:      []string{o.Fn.evidence(o.Line())},
	}
	var reporter *wsite
	var bit string
	for _, s := range r.waitersOf(n.Q) {
		if s.WKind != "poll" {
			continue
		}
		text, ok := r.funcText(s.Fn.Name, s.Fn.File)
		if !ok {
			continue
		}
		for _, b := range lost {
			if containsWord(text, b) {
				reporter, bit = s, b
				break
			}
		}
		if reporter != nil {
			break
		}
	}
	if reporter == nil {
		f.Explanation = fmt.Sprintf("Poll and epoll entries filter keyed wake-ups by the events they asked for; an entry that asked only for %s no longer sees this wake-up. No poller of %s that reports those events was found.", strings.Join(lost, "|"), n.Q)
		r.add(f)
		return
	}
	f.Severity = report.SeverityRisk
	f.Chain = append(f.Chain, step(reporter, fmt.Sprintf("registers on %s and reports %s: %s", n.Q, bit, reporter.Text())))
	f.Chain = append(f.Chain, step(n, "wakes with a key without "+bit+": "+n.Text()))
	f.Evidence = append(f.Evidence, interleaving(n.Fn.Name+"()", "epoll_wait(EPOLL"+strings.TrimPrefix(bit, "EPOLL")+" only)", [][2]string{
		{"", reporter.Fn.Name + "(): nothing yet, sleeps"},
		{"makes the data readable", ""},
		{n.Text(), ""},
		{"  key has no " + bit, "entry filtered out: not woken"},
		{"", "sleeps although " + reporter.Fn.Name + "() would report " + bit},
	})...)
	f.Explanation = fmt.Sprintf("%s() reports %s for %s, but the wake-up in %s() no longer carries it. The poll and epoll wait-queue callbacks drop a keyed wake-up whose key has none of the events the entry asked for, so an epoll or poll waiter registered for %s alone is never woken for this data. Keep %s in the key.",
		reporter.Fn.Name, bit, n.Q, n.Fn.Name, bit, strings.Join(lost, "|"))
	r.add(f)
}
