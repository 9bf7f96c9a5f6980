package typing

import (
	"regexp"
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
)

// ParamIndex returns the index of the parameter of fn that expr names, or
// -1.
func (ty *Typer) ParamIndex(fn *cscan.Func, expr string) int {
	expr = strings.TrimSpace(expr)
	if !identRe.MatchString(expr) {
		return -1
	}
	for i, p := range ty.Params(fn) {
		if p == expr {
			return i
		}
	}
	return -1
}

// Params returns fn's parameter names, read from its header in the view's
// source (nil when unknown).
func (ty *Typer) Params(fn *cscan.Func) []string {
	if ps, ok := ty.params[fn]; ok {
		return ps
	}
	var out []string
	for _, d := range ty.ParamDecls(fn) {
		out = append(out, paramName(d))
	}
	ty.params[fn] = out
	return out
}

// ParamDecls returns fn's parameter declarations ("struct foo *f",
// "gfp_t gfp"), read from its header in the view's source (nil when
// unknown).
func (ty *Typer) ParamDecls(fn *cscan.Func) []string {
	if ds, ok := ty.paramDecls[fn]; ok {
		return ds
	}
	var out []string
	defer func() { ty.paramDecls[fn] = out }()
	if ty.ix == nil {
		return nil
	}
	if fn.Start <= 0 || fn.BodyStart < fn.Start {
		// A patch's partial view of a function: its header is in the tree.
		for _, d := range ty.ix.Funcs(fn.Name) {
			if d.File == fn.File {
				fn = d
				break
			}
		}
		if fn.Start <= 0 || fn.BodyStart < fn.Start {
			return nil
		}
	}
	lines := ty.FileLines(fn.File)
	if fn.BodyStart > lines.Len() {
		return nil
	}
	hdr := lines.Span(fn.Start-1, fn.BodyStart)
	i := strings.Index(hdr, fn.Name)
	if i < 0 {
		return nil
	}
	hdr = hdr[i+len(fn.Name):]
	open := strings.Index(hdr, "(")
	if open < 0 {
		return nil
	}
	depth, start := 0, open+1
	for j := open; j < len(hdr); j++ {
		switch hdr[j] {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				out = append(out, strings.TrimSpace(hdr[start:j]))
				return out
			}
		case ',':
			if depth == 1 {
				out = append(out, strings.TrimSpace(hdr[start:j]))
				start = j + 1
			}
		}
	}
	out = nil
	return nil
}

var (
	fnPtrParamRe = regexp.MustCompile(`\(\s*\*\s*(\w+)\s*\)`)
	lastIdentRe  = regexp.MustCompile(`(\w+)\s*(?:\[[^\]]*\]\s*)*$`)
)

// paramName extracts the name of one parameter declaration.
func paramName(decl string) string {
	if m := fnPtrParamRe.FindStringSubmatch(decl); m != nil {
		return m[1]
	}
	if m := lastIdentRe.FindStringSubmatch(strings.TrimSpace(decl)); m != nil {
		return m[1]
	}
	return ""
}
