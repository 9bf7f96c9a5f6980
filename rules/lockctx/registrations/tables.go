package registrations

import (
	"regexp"
	"slices"
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/index"
	"github.com/autosel-bot/autosel-bot/rules/lockctx/typing"
)

// A driver dispatches through a plain table of functions: "static const
// handler_fn handlers[] = { [CMD_A] = a_cmd, [CMD_B] = b_cmd };" and
// "handlers[cmd](dev)" (cscan names the call "handlers[]"). Each element
// is called for its index, in the caller's context.

// TableName returns the table a call through a plain table's element
// calls ("handlers" for the call named "handlers[]"), "" for any other
// call.
func TableName(call string) string {
	name := call
	for strings.HasSuffix(name, "[]") {
		name = name[:len(name)-2]
	}
	if name == call || !identRe.MatchString(name) {
		return ""
	}
	return name
}

var identRe = regexp.MustCompile(`^[A-Za-z_]\w*$`)

// TableElems returns the functions the table name holds as caller sees
// it: stored by an initializer or element stores in caller's lines, else
// at its file's scope (arrayCallbacks).
func TableElems(ix *index.Index, caller *cscan.Func, name string) []string {
	return arrayCallbacks(ix, caller, name)
}

// tableInitRe matches the initializer of a file-scope table: its name
// and the text between its braces (flat, or one level of nesting for
// designated elements' casts and parentheses).
var tableInitRe = regexp.MustCompile(`\b([A-Za-z_]\w*)\s*(?:\[[^\]]*\]\s*)+=\s*\{((?:[^{}]|\{[^{}]*\})*)\}`)

// TablesOf returns the file-scope tables of file whose initializer
// names function fn as an element: the tables through which calls
// "name[](...)" reach it.
func TablesOf(ix *index.Index, file, fn string) []string {
	if ix == nil {
		return nil
	}
	var out []string
	_ = ix.WithSource(file, func(src []byte) {
		if !strings.Contains(string(src), fn) {
			return
		}
		text := typing.StripComments(fileScope(ix, file, strings.Split(string(src), "\n")))
		for _, m := range tableInitRe.FindAllStringSubmatch(text, -1) {
			if !wordIn(m[2], fn) || slices.Contains(out, m[1]) {
				continue
			}
			if slices.Contains(arrayElems(m[0]+";", m[1]), fn) {
				out = append(out, m[1])
			}
		}
	})
	return out
}

// wordIn reports whether text holds w as a whole word.
func wordIn(text, w string) bool {
	for i := strings.Index(text, w); i >= 0; {
		end := i + len(w)
		if (i == 0 || !isWordByte(text[i-1])) && (end == len(text) || !isWordByte(text[end])) {
			return true
		}
		j := strings.Index(text[end:], w)
		if j < 0 {
			return false
		}
		i = end + j
	}
	return false
}

func isWordByte(b byte) bool {
	return b == '_' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9'
}

// TableLine returns the line of file where table name is initialised
// ("static const handler_fn handlers[] = {"), 0 when none is.
func TableLine(ix *index.Index, file, name string) int {
	if ix == nil {
		return 0
	}
	re := regexp.MustCompile(`\b` + regexp.QuoteMeta(name) + `\s*(?:\[[^\]]*\]\s*)+=`)
	line := 0
	_ = ix.WithSource(file, func(src []byte) {
		for i, l := range strings.Split(string(src), "\n") {
			if re.MatchString(l) {
				line = i + 1
				return
			}
		}
	})
	return line
}
