package lockctx

import (
	"bytes"
	"regexp"
	"strings"

	"github.com/autosel-bot/autosel-bot/report"
)

// declRegistrations returns the registrations of fn made by declaration
// macros of its own file (the names of "decl" callback rows):
// `static DEFINE_TIMER(mytimer, mytimer_handler);` at file scope is no
// call inside a function, so the call graph never sees it. A file of the
// tree is scanned once per tree index and model, one the patch changes once
// per resolver; only a file that mentions one of the macros is parsed.
func (r *Resolver) declRegistrations(file, fn string) []implicitReg {
	if r.ix == nil {
		return nil
	}
	if r.declRegs == nil {
		r.declRegs = map[string]map[string][]implicitReg{}
	}
	regs, ok := r.declRegs[file]
	if !ok {
		if r.ix.Overlaid(file) {
			regs = r.scanDecls(file)
		} else {
			// A file of the tree: the same in every view.
			regs = r.ix.Underlying().Memo("lockctx.decls."+r.m.id+":"+file, func() any {
				return r.scanDecls(file)
			}).(map[string][]implicitReg)
		}
		r.declRegs[file] = regs
	}
	return regs[fn]
}

var macroRe = regexp.MustCompile(`\b([A-Z_][A-Z0-9_]*)\s*\(`)

// scanDecls finds the declaration-macro registrations of one file, by
// the function they register.
func (r *Resolver) scanDecls(file string) map[string][]implicitReg {
	rows := map[string]*Callback{}
	for i := range r.m.callbacks {
		c := &r.m.callbacks[i]
		if !c.Decl {
			continue
		}
		for _, n := range c.Names {
			rows[n] = c
		}
	}
	if len(rows) == 0 {
		return nil
	}
	// Most files use none of the macros: they are read into a reused
	// buffer and only the others copied into a string.
	text := ""
	r.ix.WithSource(file, func(src []byte) {
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
	var out map[string][]implicitReg
	for _, m := range macroRe.FindAllStringSubmatchIndex(text, -1) {
		name := text[m[2]:m[3]]
		row := rows[name]
		if row == nil {
			continue
		}
		args, ok := macroArgs(text[m[1]:])
		if !ok {
			continue
		}
		arg := row.Arg
		if a, ok := row.ArgOf[name]; ok {
			arg = a
		}
		if arg < 0 || arg >= len(args) {
			continue
		}
		// A copy: the name would keep the file's text.
		fn := strings.Clone(callbackName(args[arg]))
		if fn == "" {
			continue
		}
		line := 1 + strings.Count(text[:m[0]], "\n")
		step := report.Step{Func: fn, File: file, Line: line,
			What: "registered by " + name + "(" + strings.Join(args, ", ") + ")"}
		if out == nil {
			out = map[string][]implicitReg{}
		}
		out[fn] = append(out[fn], implicitReg{row: row, step: step, file: file})
	}
	return out
}

// macroArgs splits the arguments of a macro invocation; s starts just
// after its opening parenthesis. ok is false when the parenthesis is not
// closed within a few lines' worth of text.
func macroArgs(s string) ([]string, bool) {
	const maxLen = 400
	depth, start := 0, 0
	var args []string
	for i := 0; i < len(s) && i < maxLen; i++ {
		switch s[i] {
		case '(', '{', '[':
			depth++
		case ')', '}', ']':
			if depth == 0 {
				if s[i] != ')' {
					return nil, false
				}
				args = append(args, strings.TrimSpace(s[start:i]))
				return args, true
			}
			depth--
		case ',':
			if depth == 0 {
				args = append(args, strings.TrimSpace(s[start:i]))
				start = i + 1
			}
		}
	}
	return nil, false
}
