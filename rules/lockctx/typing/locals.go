package typing

import (
	"regexp"

	"github.com/autosel-bot/autosel-bot/cscan"
)

// localsRe matches a declarator as localDeclRe does, capturing its name.
var localsRe = regexp.MustCompile(`(?:^|[;{(,])\s*(?:(?:const|volatile|static|unsigned|signed|struct|union|enum)\s+)*([A-Za-z_]\w*)[\s*]+([A-Za-z_]\w*)\s*(?:=[^=]|;|\[|,|\))`)

// notTypes are the words localsRe would take for a type before a name
// ("return x;", "goto out;").
var notTypes = map[string]bool{"return": true, "goto": true, "case": true, "else": true, "do": true, "sizeof": true, "typeof": true}

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
	for _, m := range localsRe.FindAllStringSubmatch(StripComments(lines.Span(fn.Start-1, fn.End)), -1) {
		if !notTypes[m[1]] {
			ls[m[2]] = true
		}
	}
	return ls
}
