package reply

import (
	"strings"

	"github.com/autosel-bot/autosel-bot/internal/textfmt"
)

// maxCodeColumns is the widest a line of code quoted in a reply may be,
// its indent included: longer lines are cut (a reply is read in mail
// clients and quoted again in answers).
const maxCodeColumns = 100

// cutMarker ends a code line cut at maxCodeColumns.
const cutMarker = " [...]"

// codeLine is line l of code (evidence, removed lines) as quoted after
// indent: control characters cleaned and, past maxCodeColumns (tabs at
// every 8 columns), cut with cutMarker.
func codeLine(indent, l string) string {
	l = cleanLine(l)
	limit := maxCodeColumns - len(cutMarker)
	col := columns(indent, 0)
	if columns(l, col) <= maxCodeColumns {
		return indent + l
	}
	var b strings.Builder
	for _, r := range l {
		next := columns(string(r), col)
		if next > limit {
			break
		}
		b.WriteRune(r)
		col = next
	}
	return indent + strings.TrimRight(b.String(), " \t") + cutMarker
}

// columns returns the column after s written from column col: a tab
// moves to the next multiple of 8, other characters take their display
// width.
func columns(s string, col int) int {
	for _, r := range s {
		if r == '\t' {
			col = (col/8 + 1) * 8
			continue
		}
		col += textfmt.Width(string(r))
	}
	return col
}
