package runner

import (
	"regexp"
	"strings"

	"github.com/autosel-bot/autosel-bot/report"
)

// confirmKinds are the splat kinds that confirm a finding of each rule
// family at run time: a sleep in atomic context shows as the
// might_sleep() BUG, lockdep's invalid wait context or RCU's illegal
// context switch; a lost or missing wake-up as a hung waiter, and a
// wake-up without the wait queue's lock as the lockdep assertion in
// __wake_up_common().
var confirmKinds = map[string][]string{
	"sleep-in-atomic": {"sleep-in-atomic", "lockdep", "rcu"},
	"wakeup":          {"hung-task", "waitqueue-unlocked"},
	"locks":           {"lockdep"},
}

// stackFrame matches a stack trace line of a splat (without the printk
// timestamp): " mutex_lock_nested+0x1c/0x30" or " ? pipe_read+0x.../0x...",
// with an optional module in brackets.
var stackFrame = regexp.MustCompile(`^\s*(\? )?([A-Za-z_][A-Za-z0-9_.]*)\+0x[0-9a-f]+/0x[0-9a-f]+`)

// splatStack returns the functions on the reliable frames of a splat's
// stack traces ("? " frames are guesses of the unwinder and left out),
// without compiler suffixes (.isra.0, .constprop.0, .cold).
func splatStack(text string) []string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		m := stackFrame.FindStringSubmatch(l)
		if m == nil || m[1] != "" {
			continue
		}
		fn, _, _ := strings.Cut(m[2], ".")
		out = append(out, fn)
	}
	return out
}

// ConfirmFindings marks each risk finding that a kernel report on the
// patched kernel confirms: a splat of a kind its rule predicts (see
// confirmKinds) whose stack holds the finding's function or a function
// of its call chain. The confirmation carries the test that ran and the
// report's text; a finding no splat matches is left as it was. It
// returns how many findings it marked.
func ConfirmFindings(findings []report.Finding, vm *report.VMReport) int {
	if vm == nil {
		return 0
	}
	n := 0
	for i := range findings {
		f := &findings[i]
		if f.Severity != report.SeverityRisk || f.Confirmed != nil {
			continue
		}
		kinds := confirmKinds[f.Rule]
		if len(kinds) == 0 {
			continue
		}
		funcs := map[string]bool{}
		if f.Func != "" {
			funcs[f.Func] = true
		}
		for _, s := range f.Chain {
			if s.Func != "" {
				funcs[s.Func] = true
			}
		}
		for _, t := range vm.Tests {
			c := matchSplats(t, kinds, funcs)
			if c != nil {
				f.Confirmed = c
				n++
				break
			}
		}
	}
	return n
}

// matchSplats returns the confirmation one of t's patched-kernel splats
// gives, or nil.
func matchSplats(t report.VMTest, kinds []string, funcs map[string]bool) *report.Confirmation {
	for _, text := range splitSplats(t.Splat) {
		title, _, _ := strings.Cut(text, "\n")
		kind := classify(strings.TrimSpace(title))
		if !contains(kinds, kind) {
			continue
		}
		for _, fn := range splatStack(text) {
			if funcs[fn] {
				return &report.Confirmation{Test: t.Name, Kind: kind, Function: fn, Excerpt: text}
			}
		}
	}
	return nil
}

// splitSplats splits a VMTest's Splat field (reports joined by a blank
// line, see compareKernels) into the reports.
func splitSplats(s string) []string {
	var out []string
	for _, p := range strings.Split(s, "\n\n") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
