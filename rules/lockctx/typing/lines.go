package typing

import (
	"iter"
	"strings"
)

// Lines is a source file's text with the offsets of its lines: a range
// of lines is a substring of the text, and a file costs four bytes a line
// beyond its text (a []string of its lines costs sixteen, and a join per
// range).
type Lines struct {
	text string
	// starts holds the offset of each line, then len(text)+1.
	starts []int32
}

// NewLines indexes the lines of text, as strings.Split(text, "\n")
// would cut them.
func NewLines(text string) Lines {
	starts := make([]int32, 0, strings.Count(text, "\n")+2)
	starts = append(starts, 0)
	for i := 0; ; {
		j := strings.IndexByte(text[i:], '\n')
		if j < 0 {
			break
		}
		i += j + 1
		starts = append(starts, int32(i))
	}
	return Lines{text: text, starts: append(starts, int32(len(text)+1))}
}

// Len returns the number of lines (0 for a file that was not read).
func (l Lines) Len() int {
	if len(l.starts) == 0 {
		return 0
	}
	return len(l.starts) - 1
}

// Span returns lines [from, to) (0-based) joined by "\n", as
// strings.Join(lines[from:to], "\n") does; "" when the range is empty or
// out of the file.
func (l Lines) Span(from, to int) string {
	if from < 0 || to > l.Len() || from >= to {
		return ""
	}
	return l.text[l.starts[from] : l.starts[to]-1]
}

// Text returns the whole text the lines index.
func (l Lines) Text() string { return l.text }

// Line returns line i (0-based) without its line end; "" out of the file.
func (l Lines) Line(i int) string { return l.Span(i, i+1) }

// All yields each line (0-based number, text without its line end), as
// ranging over strings.Split(text, "\n") would.
func (l Lines) All() iter.Seq2[int, string] {
	return func(yield func(int, string) bool) {
		for i := 0; i < l.Len(); i++ {
			if !yield(i, l.Line(i)) {
				return
			}
		}
	}
}
