package runner

import (
	"regexp"
	"strconv"
	"strings"
)

// Splat is a kernel report found in the log: a debug check firing
// (sleeping in atomic context, lockdep, RCU), a WARN, a hung task, a
// lockup, an oops or a panic.
type Splat struct {
	// Kind classifies the report (see splatKinds).
	Kind string `json:"kind"`
	// Title is the report's first line.
	Title string `json:"title"`
	// Text is the report (first line to end of its stack trace, capped).
	Text string `json:"text"`
}

// maxSplatLines caps the text kept per splat.
const maxSplatLines = 60

// splatKinds are the report openers, most specific first. Each pattern
// matches the message text (no timestamp).
var splatKinds = []struct {
	kind string
	re   *regexp.Regexp
}{
	{"sleep-in-atomic", regexp.MustCompile(`^BUG: sleeping function called from invalid context`)},
	{"sleep-in-atomic", regexp.MustCompile(`^BUG: scheduling while atomic`)},
	{"sleep-in-atomic", regexp.MustCompile(`^BUG: workqueue leaked lock or atomic`)},
	{"soft-lockup", regexp.MustCompile(`^(watchdog: )?BUG: soft lockup`)},
	{"lockdep", regexp.MustCompile(`^\[ BUG: `)}, // "[ BUG: Invalid wait context ]"
	{"lockdep", regexp.MustCompile(`^WARNING: (possible circular locking dependency|inconsistent lock state|possible recursive locking|bad unlock balance|lock held when returning|held lock freed|possible irq lock inversion|.*lock.* detected)`)},
	{"rcu", regexp.MustCompile(`^WARNING: suspicious RCU usage`)},
	// lockdep_assert_held(&wq_head->lock) in __wake_up_common(): a
	// _locked wake-up called without the wait queue's lock.
	{"waitqueue-unlocked", regexp.MustCompile(`^WARNING: CPU: \d+ PID: \d+ at kernel/sched/wait\.c:\d+ __wake_up_common\b`)},
	{"warning", regexp.MustCompile(`^WARNING: `)},
	{"hung-task", regexp.MustCompile(`^INFO: task .* blocked for more than`)},
	{"rcu-stall", regexp.MustCompile(`^(rcu: )?INFO: rcu_\w+ (self-)?detected (expedited )?stalls?`)},
	{"oops", regexp.MustCompile(`^(BUG: (unable to handle|kernel NULL pointer)|general protection fault|kernel BUG at|Oops: |Unable to handle kernel)`)},
	{"panic", regexp.MustCompile(`^Kernel panic - not syncing`)},
	{"bug", regexp.MustCompile(`^(BUG: |UBSAN: |KASAN: |list_(add|del) corruption)`)},
}

// classify returns the splat kind that opens with text, or "".
func classify(text string) string {
	if !maybeSplat(text) {
		return ""
	}
	for _, k := range splatKinds {
		if k.re.MatchString(text) {
			return k.kind
		}
	}
	return ""
}

// splatFirstWords are the first words of every splatKinds pattern; a
// cheap filter before the regular expressions.
var splatFirstWords = []string{"[ BUG:", "BUG:", "WARNING:", "INFO:", "watchdog:", "rcu:", "general", "kernel", "Oops:",
	"Unable", "Kernel", "UBSAN:", "KASAN:", "list_"}

func maybeSplat(text string) bool {
	for _, w := range splatFirstWords {
		if strings.HasPrefix(text, w) {
			return true
		}
	}
	return false
}

// findSplats returns the reports in the log lines (message text without
// timestamps), in order. Lines that continue an oops (Oops:, the panic it
// causes) stay in the report they belong to.
func findSplats(lines []string) []Splat {
	var (
		out   []Splat
		cur   *Splat
		text  []string
		since = -1 // lines since the last report closed
	)
	flush := func() {
		if cur != nil {
			cur.Text = strings.Join(text, "\n")
			out = append(out, *cur)
			cur, text = nil, nil
			since = 0
		}
	}
	for _, l := range lines {
		l = strings.TrimRight(l, " \r")
		if strings.HasPrefix(l, "autosel: ") {
			flush()
			since = -1
			continue
		}
		kind := classify(l)
		if kind != "" && cur != nil && (cur.Kind == "oops" || cur.Kind == "bug") && (kind == "oops" || kind == "panic") && len(text) < maxSplatLines {
			// "BUG: kernel NULL pointer dereference" is followed by
			// "Oops: ..." and maybe the panic: one report.
			text = append(text, l)
			continue
		}
		if kind == "panic" && cur == nil && since >= 0 && since <= 3 && len(out) > 0 {
			// The panic an oops just caused: reopen that report.
			last := out[len(out)-1]
			if last.Kind == "oops" || last.Kind == "bug" || last.Kind == "warning" {
				out = out[:len(out)-1]
				cur = &last
				text = append(strings.Split(last.Text, "\n"), l)
				continue
			}
		}
		if kind != "" {
			flush()
			cur = &Splat{Kind: kind, Title: l}
			text = []string{l}
			continue
		}
		if cur == nil {
			if since >= 0 {
				since++
			}
			continue
		}
		if len(text) < maxSplatLines {
			text = append(text, l)
		}
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "---[ end ") || (t == "</TASK>" && cur.Kind != "warning" && cur.Kind != "panic") {
			flush()
		}
	}
	flush()
	return out
}

// consoleLines splits console output into message texts without printk
// timestamps ("[    1.234567] ") or carriage returns.
func consoleLines(console []byte) []string {
	var out []string
	for _, l := range strings.Split(strings.TrimSuffix(string(console), "\n"), "\n") {
		l = strings.TrimRight(l, "\r")
		if strings.HasPrefix(l, "[") {
			if i := strings.IndexByte(l, ']'); i > 0 && isTimestamp(l[1:i]) {
				l = strings.TrimPrefix(l[i+1:], " ")
			}
		}
		out = append(out, l)
	}
	return out
}

// isTimestamp reports whether s is a printk time ("   12.345678").
func isTimestamp(s string) bool {
	s = strings.TrimLeft(s, " ")
	dot := false
	for i, c := range s {
		switch {
		case c >= '0' && c <= '9':
		case c == '.' && !dot && i > 0:
			dot = true
		default:
			return false
		}
	}
	return dot
}

// consoleSection returns the console lines logged while test name/run
// ran: from its "autosel: begin" marker to its end marker (or the end of
// the log when it never ended).
func consoleSection(lines []string, name string, run int) []string {
	begin := "autosel: begin " + name + " " + strconv.Itoa(run)
	end := "autosel: end " + name + " " + strconv.Itoa(run)
	start := -1
	for i, l := range lines {
		if start < 0 && strings.HasSuffix(l, begin) {
			start = i + 1
			continue
		}
		if start >= 0 && strings.HasSuffix(l, end) {
			return lines[start:i]
		}
	}
	if start < 0 {
		return nil
	}
	return lines[start:]
}
