package registrations

import (
	"bytes"
	"regexp"
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/report"
)

// Decl returns the registrations of fn made by declaration
// macros of its own file (the names of "decl" callback rows):
// `static DEFINE_TIMER(mytimer, mytimer_handler);` at file scope is no
// call inside a function, so the call graph never sees it. A file of the
// tree is scanned once per tree index and ID, one the patch changes once
// per table; only a file that mentions one of the macros is parsed.
func (t *Table) Decl(file, fn string) []Reg {
	if t.ix == nil {
		return nil
	}
	if t.declRegs == nil {
		t.declRegs = map[string]map[string][]Reg{}
	}
	regs, ok := t.declRegs[file]
	if !ok {
		if t.ix.Overlaid(file) {
			regs = t.scanDecls(file)
		} else {
			// A file of the tree: the same in every view.
			regs = t.ix.Underlying().Memo("lockctx.decls."+t.id+":"+file, func() any {
				return t.scanDecls(file)
			}).(map[string][]Reg)
		}
		t.declRegs[file] = regs
	}
	return regs[fn]
}

var macroRe = regexp.MustCompile(`\b([A-Z_][A-Z0-9_]*)\s*\(`)

// scanDecls finds the declaration-macro registrations of one file, by
// the function they register.
func (t *Table) scanDecls(file string) map[string][]Reg {
	// A macro may register several of its arguments, each by a row of
	// its own (SET_RUNTIME_PM_OPS(suspend, resume, idle)).
	rows := map[string][]*Callback{}
	for i := range t.callbacks {
		c := &t.callbacks[i]
		if !c.Decl {
			continue
		}
		for _, n := range c.Names {
			rows[n] = append(rows[n], c)
		}
	}
	if len(rows) == 0 {
		return nil
	}
	// Most files use none of the macros: they are read into a reused
	// buffer and only the others copied into a string.
	text := ""
	t.ix.WithSource(file, func(src []byte) {
		for n := range rows {
			if bytes.Contains(src, []byte(n)) {
				text = string(src)
				return
			}
		}
	})
	if text == "" {
		return nil
	}
	var out map[string][]Reg
	for _, m := range macroRe.FindAllStringSubmatchIndex(text, -1) {
		name := text[m[2]:m[3]]
		if len(rows[name]) == 0 {
			continue
		}
		args, ok := macroArgs(text[m[1]:])
		if !ok {
			continue
		}
		line := 1 + strings.Count(text[:m[0]], "\n")
		for _, row := range rows[name] {
			arg := row.Arg
			if a, ok := row.ArgOf[name]; ok {
				arg = a
			}
			if arg < 0 || arg >= len(args) || !row.ArgHas.holds(args) {
				continue
			}
			step := report.Step{File: file, Line: line,
				What: "registered by " + name + "(" + strings.Join(args, ", ") + ")"}
			for _, fn := range CallbackNames(args[arg]) {
				// A copy: the name would keep the file's text.
				fn = strings.Clone(fn)
				step.Func = fn
				if out == nil {
					out = map[string][]Reg{}
				}
				out[fn] = append(out[fn], Reg{Row: row, Step: step, File: file})
			}
		}
	}
	return out
}

// macroArgs splits the arguments of a macro invocation; s starts just
// after its opening parenthesis. ok is false when the parenthesis is not
// closed within a few lines' worth of text.
func macroArgs(s string) ([]string, bool) {
	return cscan.SplitArgs(s, 400)
}
