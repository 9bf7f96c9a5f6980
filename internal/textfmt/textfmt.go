// Package textfmt formats plain text for mail and terminals: counted nouns
// (Plural) and words filled into lines measured in display columns (Fill,
// Wrap), so that CJK names and combining marks line up as a reader sees
// them, not as their UTF-8 bytes count.
package textfmt

import (
	"strconv"
	"strings"

	"github.com/mattn/go-runewidth"
)

// Plural returns the count with its noun: "1 patch", "2 patches", "0
// patches".
func Plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// Width is the number of terminal columns s takes (East Asian wide
// characters count two, combining marks and zero-width characters none).
func Width(s string) int {
	return runewidth.StringWidth(s)
}

// Fill fills the words of one paragraph (any whitespace, newlines
// included, separates words) into lines of at most width display columns,
// the first line starting with first and the others with rest (the
// indentation counts). A word longer than the width is not broken: it gets
// a line of its own. An empty paragraph is one line holding first.
func Fill(text string, width int, first, rest string) []string {
	var out []string
	cur, curW := first, Width(first)
	empty := true
	for _, w := range strings.Fields(text) {
		ww := Width(w)
		if !empty && curW+1+ww > width {
			out = append(out, cur)
			cur, curW, empty = rest, Width(rest), true
		}
		if !empty {
			cur += " "
			curW++
		}
		cur += w
		curW += ww
		empty = false
	}
	return append(out, cur)
}

// Wrap fills text into lines of at most width display columns, keeping its
// paragraphs (separated by blank lines) apart with one empty line; single
// newlines inside a paragraph are filled like spaces.
func Wrap(text string, width int) []string {
	var out []string
	for _, para := range strings.Split(strings.TrimSpace(text), "\n\n") {
		if strings.TrimSpace(para) == "" {
			continue
		}
		if len(out) > 0 {
			out = append(out, "")
		}
		out = append(out, Fill(para, width, "", "")...)
	}
	return out
}
