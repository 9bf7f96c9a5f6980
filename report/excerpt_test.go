package report

import (
	"strings"
	"testing"
)

// TestExcerptAndEscapeText: what a reply quotes of guest text is bounded
// in lines and width, and the terminal form has no raw control byte.
func TestExcerptAndEscapeText(t *testing.T) {
	tests := []struct {
		name      string
		in        string
		n         int
		wantLines int
		maxWidth  int
	}{
		{"short", "a\nb\n", 5, 2, 1},
		{"many lines", strings.Repeat("x\n", 1000), 40, 41, 30},
		{"one huge line", strings.Repeat("\x1b[2J", 1<<20), 40, 1, maxQuotedLine + 3},
		{"utf-8 cut", strings.Repeat("é", 500), 1, 1, maxQuotedLine + 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := excerpt(tt.in, tt.n)
			if len(got) != tt.wantLines {
				t.Fatalf("%d lines, want %d", len(got), tt.wantLines)
			}
			for _, l := range got {
				if len(l) > tt.maxWidth {
					t.Fatalf("line of %d bytes", len(l))
				}
				if !strings.HasSuffix(l, "...") && !strings.HasPrefix(tt.in, l) && !strings.Contains(l, "more lines") && !strings.Contains(tt.in, l) {
					t.Fatalf("line %q not from the input", l)
				}
			}
			if e := EscapeText(strings.Join(got, "\n")); strings.ContainsAny(e, "\x1b\r") || strings.Count(e, "\n") != len(got)-1 {
				t.Fatalf("escaped %q", e)
			}
		})
	}
}
