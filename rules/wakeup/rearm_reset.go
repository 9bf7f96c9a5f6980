package wakeup

import (
	"regexp"
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
)

// A waiter that sleeps on a flag (wait_event(wq, READ_ONCE(d->done)),
// test_bit() of a flags word, an atomic counter) re-arms it the way a
// completion is re-armed: it resets the flag before it starts the
// operation whose end the waker announces by setting it and waking the
// queue. The reset is the completion's reinit_completion(), and the
// patches that break it are the same (rearm_completion.go): a reset moved
// past the call that starts the operation overwrites the waker's store if
// the operation ends first, and a reset removed leaves the flag set from
// an earlier round so the wait returns at once.

// bitWordOpRe finds a bit set or cleared in a member word: set or clear, the
// bit, the member.
var bitWordOpRe = regexp.MustCompile(`\b(?:__)?(?:test_and_)?(set|clear)_bit(?:_lock|_unlock)?\s*\(\s*([^,]+?)\s*,\s*&?[^,)]*(?:->|\.)\s*([A-Za-z_]\w*)\s*\)`)

// bitOn returns the member word and the bit line t sets (op "set") or
// clears (op "clear"), "" if it does not.
func bitOn(t, op string) (field, bit string) {
	for _, m := range bitWordOpRe.FindAllStringSubmatch(codeOnly(t), -1) {
		if m[1] == op {
			return m[3], strings.TrimSpace(m[2])
		}
	}
	return "", ""
}

// zeroStoreRe finds a member set to zero by an atomic, a release store or
// an exchange.
var zeroStoreRe = regexp.MustCompile(`\b(?:atomic(?:64|_long)?_(?:set|set_release|xchg)|smp_store_release|xchg)\s*\(\s*&[^,]*(?:->|\.)\s*([A-Za-z_]\w*)\s*,\s*(?:0[UuLl]*|NULL|false)\s*\)`)

// resetOn returns the member a line resets and, for a bit, the bit; ""
// when the line resets nothing.
func resetOn(t string) (field, bit string) {
	t = codeOnly(t)
	if m := resetRe.FindStringSubmatch(t); m != nil {
		return m[1] + m[2], ""
	}
	if field, bit := bitOn(t, "clear"); field != "" {
		return field, bit
	}
	if m := zeroStoreRe.FindStringSubmatch(t); m != nil {
		return m[1], ""
	}
	return "", ""
}

// resetEndsWait reports whether cond waits for field (bit) to be reset
// ("!d->busy", "!test_bit(BUSY, &d->flags)", "atomic_read(&d->n) ==
// 0"): a reset then ends the wait rather than re-arming it.
func resetEndsWait(cond, field, bit string) bool {
	cond = strings.ReplaceAll(cond, "!!", "")
	if bit != "" {
		b := regexp.QuoteMeta(bit)
		return regexp.MustCompile(`!\s*\(?\s*test_bit\s*\(\s*`+b+`\b`).MatchString(cond) ||
			regexp.MustCompile(`\btest_bit\s*\(\s*`+b+`\b[^)]*\)\s*==\s*0\b`).MatchString(cond)
	}
	f := regexp.QuoteMeta(field)
	return regexp.MustCompile(`!\s*\(?\s*(?:[A-Za-z_]\w*\s*\(\s*)?&?[\w\->.\[\]]*\b`+f+`\b`).MatchString(cond) ||
		regexp.MustCompile(`\b`+f+`\b(?:\s*\[[^\]]*\])?\s*\)?\s*==\s*(?:0|NULL|false)\b`).MatchString(cond)
}

// returnsOf returns a wait condition with the return statements of the
// helpers it calls: what decides whether the wait ends (a helper's other
// lines may test the member either way).
func (r *checker) returnsOf(cond, file string) string {
	text := cond
	for _, name := range calledNames(cond) {
		if body, ok := r.funcText(name, file); ok {
			for _, l := range strings.Split(body, "\n") {
				if strings.Contains(codeOnly(l), "return") {
					text += "\n" + l
				}
			}
		}
	}
	return text
}

// resetRearmsOf returns f's flag resets that re-arm a later wait of f:
// each reset of a member (and bit) that the condition of the first wait
// after it reads, with its helpers. The site's queue is that wait's.
func (r *checker) resetRearmsOf(f *wfunc) []rearmSite {
	if f == nil || f.F == nil {
		return nil
	}
	var out []rearmSite
	for _, l := range sortedLines(f) {
		field, bit := resetOn(f.lines[l])
		armsClear := false
		if field == "" {
			// A bit set re-arms a wait for the bit to clear
			// (set_bit(KCOPY); ...; wait_on_bit(KCOPY)).
			if field, bit = bitOn(f.lines[l], "set"); field == "" {
				continue
			}
			armsClear = true
		}
		text := strings.TrimSuffix(strings.TrimSpace(codeOnly(f.lines[l])), ";")
		found := false
		for _, s := range f.sitesOn(siteWait, "") {
			if s.Line() <= l || s.Q == "" {
				continue
			}
			cond := waitCond(s)
			if cond == "" {
				continue
			}
			wt := r.withHelpers(cond, f.File)
			if containsWord(wt, field) && (bit == "" || containsWord(wt, bit)) && resetEndsWait(r.returnsOf(cond, f.File), field, bit) == armsClear {
				out = append(out, rearmSite{call: cscan.Call{Line: l}, q: s.Q, text: text, field: field, bit: bit})
				found = true
			}
			break
		}
		if !found && !armsClear {
			if q, w := r.laterRoundQueue(f, l, field, bit); q != "" {
				out = append(out, rearmSite{call: cscan.Call{Line: l}, q: q, text: text, field: field, bit: bit, later: w})
			}
		}
	}
	return out
}

// checkResetRearm compares the flag resets of each wait before and after
// the patch: a reset the patch moved (or whose surroundings it changed)
// is checked for calls it now follows, a reset it removed for a wait
// still made without one.
func (r *checker) checkResetRearm(ow, nw *wfunc) {
	news := r.resetRearmsOf(nw)
	for _, o := range r.resetRearmsOf(ow) {
		var n *rearmSite
		for i := range news {
			if news[i].field == o.field && news[i].bit == o.bit && r.sameQueue(news[i].q, o.q) {
				n = &news[i]
				break
			}
		}
		switch {
		case n != nil:
			// Whether the reset moved or the calls around it did, the
			// calls it now follows decide (rearmMovedLater counts them).
			r.rearmMovedLater(ow, nw, o, *n)
		case ow.changed(o.call.Line) && !r.resetAnywhere(nw, o):
			r.rearmDropped(ow, nw, o)
		}
	}
}

// resetAnywhere reports whether nw, a function of its file the patch
// changes, or a function nw calls, still makes the reset of o: the re-arm
// moved rather than went.
func (r *checker) resetAnywhere(nw *wfunc, o rearmSite) bool {
	resets := func(text string) bool {
		for _, t := range strings.Split(text, "\n") {
			if fd, b := resetOn(t); fd == o.field && b == o.bit {
				return true
			}
		}
		return false
	}
	for _, f := range r.news {
		if f == nil || f != nw && f.File != nw.File {
			continue
		}
		for _, t := range f.lines {
			if resets(t) {
				return true
			}
		}
	}
	if nw.F != nil {
		for _, c := range nw.F.Calls {
			if body, ok := r.funcText(c.Name, nw.File); ok && resets(body) {
				return true
			}
		}
	}
	return false
}
