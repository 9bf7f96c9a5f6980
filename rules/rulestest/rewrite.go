package rulestest

import (
	"bytes"
	"fmt"
	"os"
	"strings"
)

// rewrite replaces the case file's WANT lines with got: lines found in
// every mode as WANT, the others as WANT(mode). The detail lines of a
// WANT line go under the first new line with the same text (of the same
// mode, else of any); those left over are an error, once the file is
// written.
func (c *Case) rewrite(got map[string][]string) error {
	count := func(l []string) map[string]int {
		m := map[string]int{}
		for _, s := range l {
			m[s]++
		}
		return m
	}
	common := count(got[c.Modes[0]])
	for _, m := range c.Modes[1:] {
		cm := count(got[m])
		for s, n := range common {
			if cm[s] < n {
				common[s] = cm[s]
			}
		}
	}
	var lines []want
	for _, s := range got[c.Modes[0]] {
		if common[s] > 0 {
			common[s]--
			lines = append(lines, want{line: s})
		}
	}
	all := count(nil)
	for _, l := range lines {
		all[l.line]++
	}
	for _, m := range c.Modes {
		left := map[string]int{}
		for k, v := range all {
			left[k] = v
		}
		for _, s := range got[m] {
			if left[s] > 0 {
				left[s]--
				continue
			}
			lines = append(lines, want{mode: m, line: s})
		}
	}
	dropped := c.attachDetails(lines)
	var b bytes.Buffer
	for _, l := range c.comment {
		b.WriteString(l + "\n")
	}
	for _, l := range lines {
		if l.mode == "" {
			b.WriteString("WANT " + l.line + "\n")
		} else {
			b.WriteString("WANT(" + l.mode + ") " + l.line + "\n")
		}
		for _, d := range l.details {
			b.WriteString("  " + d.src + "\n")
		}
	}
	if len(lines) == 0 {
		b.WriteString("WANT none\n")
	}
	b.Write(c.archive)
	if err := os.WriteFile(c.Path, b.Bytes(), 0o644); err != nil {
		return err
	}
	if len(dropped) > 0 {
		return fmt.Errorf("%s: detail lines dropped, their WANT lines are gone:\n%s", c.Path, strings.Join(dropped, "\n"))
	}
	return nil
}

// attachDetails moves the detail lines of the case's WANT lines onto
// lines and returns the WANT lines whose details found no place.
func (c *Case) attachDetails(lines []want) []string {
	var dropped []string
	for _, w := range c.wants {
		if len(w.details) == 0 {
			continue
		}
		i := pickLine(lines, w, true)
		if i < 0 {
			i = pickLine(lines, w, false)
		}
		if i < 0 {
			dropped = append(dropped, "WANT "+w.line)
			continue
		}
		lines[i].details = w.details
	}
	return dropped
}

// pickLine returns the first of lines with w's text and no details yet
// (and w's mode when sameMode), or -1.
func pickLine(lines []want, w *want, sameMode bool) int {
	for i, l := range lines {
		if l.line == w.line && len(l.details) == 0 && (!sameMode || l.mode == w.mode) {
			return i
		}
	}
	return -1
}
