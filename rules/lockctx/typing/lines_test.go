package typing

import (
	"strings"
	"testing"
)

// TestSrcLines: every range of lines is what strings.Split and
// strings.Join give.
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
	}
	if (Lines{}).Len() != 0 || (Lines{}).Span(0, 1) != "" {
		t.Error("the zero Lines is not empty")
	}
}
