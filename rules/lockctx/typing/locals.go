package typing

import (
	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/rules/lockctx/ctype"
)

// Locals returns the names fn declares, its parameters and its local
// variables, read from its source in the view (none when it cannot be
// read).
func (ty *Typer) Locals(fn *cscan.Func) map[string]bool {
	if ls, ok := ty.locals[fn]; ok {
		return ls
	}
	ls := map[string]bool{}
	ty.locals[fn] = ls
	lines := ty.FileLines(fn.File)
	if fn.Start <= 0 || fn.End < fn.Start || fn.End > lines.Len() {
		return ls
	}
	ctype.DeclNames(StripComments(lines.Span(fn.Start-1, fn.End)), ls)
	return ls
}
