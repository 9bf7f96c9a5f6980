package typing

import (
	"strings"
	"testing"
)

// TestSrcLines: every range of lines is what strings.Split and
// strings.Join give, and All yields the lines Split gives.
func TestSrcLines(t *testing.T) {
	for _, text := range []string{"", "a", "a\n", "\n", "a\nbb\n\nccc", "x\n\ny\n", "int f(void)\n{\n\treturn 0;\n}\n"} {
		l := NewLines(text)
		lines := strings.Split(text, "\n")
		if l.Len() != len(lines) {
			t.Errorf("%q: %d lines, want %d", text, l.Len(), len(lines))
		}
		for from := -1; from <= len(lines)+1; from++ {
			for to := from; to <= len(lines)+1; to++ {
				want := ""
				if from >= 0 && to <= len(lines) && from < to {
					want = strings.Join(lines[from:to], "\n")
				}
				if got := l.Span(from, to); got != want {
					t.Errorf("%q: span(%d, %d) = %q, want %q", text, from, to, got, want)
				}
			}
		}
		var all []string
		for i, s := range l.All() {
			if i != len(all) || s != l.Line(i) {
				t.Errorf("%q: All gave line %d (%q) after %d lines; Line says %q", text, i, s, len(all), l.Line(i))
			}
			all = append(all, s)
		}
		if strings.Join(all, "\n") != text || l.Text() != text || l.Line(-1) != "" || l.Line(len(lines)) != "" {
			t.Errorf("%q: All gave %q; Line(-1) %q, Line(%d) %q", text, all, l.Line(-1), len(lines), l.Line(len(lines)))
		}
	}
	if (Lines{}).Len() != 0 || (Lines{}).Span(0, 1) != "" {
		t.Error("the zero Lines is not empty")
	}
}
