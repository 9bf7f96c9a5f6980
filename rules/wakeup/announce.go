package wakeup

import (
	"fmt"
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/report"
)

// Waiters that announce themselves.
//
// A waiter often publishes that it sleeps before it sleeps: it queues
// itself and sets a flag of the object ("work->full_waiters_pending =
// true"), and the waker tests that flag to decide whether to wake. The
// flag is then the waker's view of the queue: a wake-up gate that drops
// it (or replaces a test for sleepers with a test of other state) skips
// waiters that are queued and announced, and nothing else wakes them.

// maxAnnounceLines bounds the distance between a wait and the store that
// announces it.
const maxAnnounceLines = 25

// droppedWords returns the identifiers of old that nw no longer tests
// (members or variables, not numbers or calls' names kept in nw).
func droppedWords(old, nw string) []string {
	have := map[string]bool{}
	for _, w := range identWords(nw) {
		have[w] = true
	}
	var out []string
	for _, w := range identWords(old) {
		if !have[w] && (w[0] < '0' || w[0] > '9') {
			out = appendUnique(out, w)
		}
	}
	return out
}

// announceStore returns the line of waiter w's function, near the wait,
// that stores to one of names (the flag announcing the waiter), and the
// name; 0 if none.
func announceStore(w *wsite, names []string) (int, string) {
	if w.Fn == nil {
		return 0, ""
	}
	for l := w.Line() - maxAnnounceLines; l <= w.Line()+maxAnnounceLines; l++ {
		t, ok := w.Fn.lines[l]
		if !ok {
			continue
		}
		t = codeOnly(t)
		for _, n := range names {
			if strings.Contains(t, n) && memberStoreRe(n).MatchString(t) {
				return l, n
			}
		}
	}
	return 0, ""
}

// announceOf returns the store announcing waiter w (to one of names)
// near its wait or in a helper its condition calls, and the name; "" if
// none.
func (r *checker) announceOf(w *wsite, names []string) (string, string) {
	if line, name := announceStore(w, names); line != 0 {
		return strings.TrimSpace(w.Fn.text(line)), name
	}
	if r.tree == nil {
		return "", ""
	}
	// The condition's helper may announce the waiter (rb_wait_cond()
	// sets the flag before the first sleep).
	for _, c := range condCallRe.FindAllStringSubmatch(waitCond(w), -1) {
		for _, fn := range cscan.PickDefs(r.pass.Index.Funcs(c[1]), w.Fn.File) {
			if fn.End-fn.Start > maxHelperLines*2 {
				continue
			}
			v := r.tree.view(fn)
			for l := fn.Start; l <= fn.End; l++ {
				t := codeOnly(v.lines[l])
				for _, n := range names {
					if strings.Contains(t, n) && memberStoreRe(n).MatchString(t) {
						return strings.TrimSpace(v.lines[l]), n
					}
				}
			}
		}
	}
	return "", ""
}

// decideDroppedAnnounce escalates a narrowed wake-up gate to a risk when
// the condition it dropped (dropped: the identifiers the old gate tested
// and the new one does not) is a flag the queue's waiters set to
// announce that they sleep.
func (r *checker) decideDroppedAnnounce(f *report.Finding, nw *wfunc, n *wsite, gates []cscan.Guard, dropped []string) {
	if len(dropped) == 0 || len(gates) == 0 || f.Severity == report.SeverityRisk {
		return
	}
	for _, w := range r.otherWaiters(n.Q, nw.Name) {
		st, name := r.announceOf(w, dropped)
		if st == "" {
			continue
		}
		gate := strings.Join(strings.Fields(gates[0].Cond), " ")
		r.riskUnwoken(f, w, nw, gates[0].Line, "wake-up now gated: if ("+gate+")")
		f.Evidence = append(f.Evidence, interleaving(nw.Name+"()", w.Fn.Name+"()", [][2]string{
			{"", w.Text()},
			{"", st},
			{"", "  sleeps"},
			{"if (" + gate + ") is false", ""},
			{"  (skips " + n.Text() + ")", "sleeps on, announced but never woken"},
		})...)
		f.Explanation = fmt.Sprintf("%s queues itself on %s and announces it with `%s`; %s() no longer tests %s before waking %s (the gate is now `%s`), so a waiter that announced itself is skipped whenever the new gate is false, and nothing else wakes it. Keep the announcing flag in the gate.",
			siteWhere(w), n.Q, st, nw.Name, name, n.Q, gate)
		return
	}
}
