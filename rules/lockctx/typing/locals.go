package typing

import (
	"regexp"
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
)

// localsRe matches a declarator as localDeclRe does, capturing its name.
var localsRe = regexp.MustCompile(`(?:^|[;{(,])\s*(?:(?:const|volatile|static|unsigned|signed|struct|union|enum)\s+)*([A-Za-z_]\w*)[\s*]+([A-Za-z_]\w*)\s*(?:=[^=]|;|\[|,|\))`)

// notTypes are the words localsRe would take for a type before a name
// ("return x;", "goto out;"; "struct" alone is a tag in an expression,
// container_of(p, struct dentry, d_lru), not a declaration).
var notTypes = map[string]bool{"return": true, "goto": true, "case": true, "else": true, "do": true, "sizeof": true, "typeof": true,
	"struct": true, "union": true, "enum": true}

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
	text := StripComments(lines.Span(fn.Start-1, fn.End))
	for at := 0; at < len(text); {
		m := localsRe.FindStringSubmatchIndex(text[at:])
		if m == nil {
			break
		}
		if typ := text[at+m[2] : at+m[3]]; !notTypes[typ] {
			ls[text[at+m[4]:at+m[5]]] = true
		}
		// The next search starts at a delimiter, where a declarator
		// may begin: the one that ended this one ("int a;" then "int
		// b;"), or the next after its initializer. (localsRe's ^ matches
		// at each search's start; a delimiter cannot start a type.)
		end := at + m[1]
		if c := text[end-1]; c == ';' || c == ',' || c == ')' {
			at = end - 1
		} else if i := strings.IndexAny(text[end:], ";{(,"); i >= 0 {
			at = end + i
		} else {
			break
		}
	}
	return ls
}
