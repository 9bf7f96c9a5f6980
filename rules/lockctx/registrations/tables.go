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
// handler_fn handlers[] = { [CMD_A] = a_cmd, [CMD_B] = b_cmd };" or
// "static int (*handlers[])(struct dev *) = { ... };" and
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
	if name == call || !cscan.IsIdent(name) {
		return ""
	}
	return name
}

// TableElems returns the functions the table name holds as caller sees
// it: a table its file initialises at its scope (fileTables, read once
// per file), else one the caller fills or declares itself, or its file
// fills in element stores (arrayCallbacks).
func TableElems(ix *index.Index, caller *cscan.Func, name string) []string {
	if ix == nil || caller == nil {
		return nil
	}
	for _, t := range fileTables(ix, caller.File) {
		if t.name == name {
			return t.elems
		}
	}
	return arrayCallbacks(ix, caller, name)
}

// fileTable is one table of functions a file initialises at its scope.
type fileTable struct {
	name  string
	line  int
	elems []string
}

// tableInitRe matches the initializer of a table at file scope: its
// name, the rest of its declarator, and the text between its braces
// (one level of nesting allowed, for casts and parentheses).
var tableInitRe = regexp.MustCompile(`\b([A-Za-z_]\w*)\s*(?:\[[^\]]*\]\s*)+` + fnParams + `=\s*\{((?:[^{}]|\{[^{}]*\})*)\}`)

// fileTables returns the tables of functions file initialises at its
// scope, each with the functions the view defines among its elements:
// read once per file of the tree (the underlying index's memo), and on
// each call for a file the view overlays.
func fileTables(ix *index.Index, file string) []fileTable {
	if ix.Overlaid(file) {
		return scanTables(ix, file)
	}
	base := ix.Underlying()
	ts, _ := base.Memo("registrations.tables:"+file, func() any { return scanTables(base, file) }).([]fileTable)
	return ts
}

// scanTables reads the tables of functions of file in view ix.
func scanTables(ix *index.Index, file string) []fileTable {
	var out []fileTable
	_ = ix.WithSource(file, func(src []byte) {
		lines := strings.Split(string(src), "\n")
		scope := typing.StripComments(fileScope(ix, file, lines))
		for _, m := range tableInitRe.FindAllStringSubmatchIndex(scope, -1) {
			name := scope[m[2]:m[3]]
			var elems []string
			for _, fn := range arrayElems(scope[m[0]:m[1]]+";", name) {
				if !slices.Contains(elems, fn) && len(ix.Funcs(fn)) > 0 {
					elems = append(elems, fn)
				}
			}
			if len(elems) > 0 {
				out = append(out, fileTable{name: name, line: declLine(lines, name), elems: elems})
			}
		}
	})
	return out
}

// declLine returns the line of lines (1-based) that declares table name
// with its initializer ("handlers[] = {", "(*handlers[])(...) = {"),
// 0 when none does.
func declLine(lines []string, name string) int {
	re := regexp.MustCompile(`\b` + regexp.QuoteMeta(name) + `\s*\[[^\]]*\][^;=]*=\s*(?:\{|$)`)
	for i, l := range lines {
		if re.MatchString(l) && !strings.Contains(l, "->"+name) && !strings.Contains(l, "."+name) {
			return i + 1
		}
	}
	return 0
}

// TablesOf returns the tables file initialises at its scope that hold
// function fn as an element: the tables through which calls
// "name[](...)" reach it.
func TablesOf(ix *index.Index, file, fn string) []string {
	if ix == nil {
		return nil
	}
	var out []string
	for _, t := range fileTables(ix, file) {
		if slices.Contains(t.elems, fn) {
			out = append(out, t.name)
		}
	}
	return out
}

// TableLine returns the line of file where table name is initialised at
// file scope, 0 when it is not.
func TableLine(ix *index.Index, file, name string) int {
	if ix == nil {
		return 0
	}
	for _, t := range fileTables(ix, file) {
		if t.name == name {
			return t.line
		}
	}
	return 0
}
