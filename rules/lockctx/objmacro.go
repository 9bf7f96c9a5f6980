package lockctx

import (
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
)

// A deciding argument may be a driver's named constant rather than the
// kernel's: ncr53c8xx allocates its pool pages with
// "#define MEMO_GFP_FLAGS GFP_ATOMIC". An argument written as an
// upper-case name that the call's file, or a private header it includes,
// defines as an object-like macro stands for the macro's text, expanded
// again while that text is itself such a name (maxDefineDepth times).
// A patch that changes the #define is read from the patched file.

// objectMacroValue returns the text the object-like macro name stands
// for in file (its own definition, else one of its private headers'),
// expanded while it names another; "" when none of them defines it.
func (r *Resolver) objectMacroValue(file, name string) string {
	if r.ix == nil || file == "" {
		return ""
	}
	files := append([]string{file}, r.privateHeaders(file, maxDefineDepth)...)
	v := ""
	for range maxDefineDepth {
		next := ""
		for _, f := range files {
			if t, ok := r.objectMacros(f)[name]; ok {
				next = t
				break
			}
		}
		if next == "" {
			break
		}
		v = next
		if !localIdentRe.MatchString(next) || strings.ToUpper(next) != next {
			break
		}
		name = next
	}
	return v
}

// objectMacros returns the object-like macros file defines, by name
// (perFile).
func (r *Resolver) objectMacros(file string) map[string]string {
	return r.perFile("objmacros", file, func(src []byte) any {
		return parseObjectMacros(string(src))
	}).(map[string]string)
}

// perFile returns what scan makes of file's source: once per tree for a
// file the view does not overlay (the index's memo), once per resolver
// for one it overlays (the patched text). scan gets nil when the file
// cannot be read.
func (r *Resolver) perFile(kind, file string, scan func(src []byte) any) any {
	compute := func() any {
		src, err := r.ix.ReadFile(file)
		if err != nil {
			src = nil
		}
		return scan(src)
	}
	if !r.ix.Overlaid(file) {
		return r.ix.Underlying().Memo("lockctx."+kind+"."+file, compute)
	}
	key := "lockctx." + kind + ":" + file
	if v, ok := r.facts[key]; ok {
		return v
	}
	v := compute()
	r.facts[key] = v
	return v
}

// parseObjectMacros returns the object-like macros of src ("#define NAME
// text", continuation lines joined, comments dropped); function-like ones
// and empty ones are left out, and so is a name the file defines with two
// texts or #undefs (under #ifdef branches, or redefined further down):
// which one a use sees depends on where it is and on the configuration.
func parseObjectMacros(src string) map[string]string {
	out := map[string]string{}
	if !strings.Contains(src, "define") {
		return out
	}
	ambiguous := map[string]bool{}
	lines := strings.Split(src, "\n")
	for i := 0; i < len(lines); i++ {
		l := strings.TrimSpace(lines[i])
		if !strings.HasPrefix(l, "#") {
			continue
		}
		d := strings.TrimSpace(l[1:])
		if u, ok := strings.CutPrefix(d, "undef"); ok && u != "" && !cscan.IsIdentChar(u[0]) {
			ambiguous[strings.TrimSpace(u)] = true
			continue
		}
		if !strings.HasPrefix(d, "define") || len(d) == len("define") || cscan.IsIdentChar(d[len("define")]) {
			continue
		}
		d = strings.TrimLeft(d[len("define"):], " \t")
		j := 0
		for j < len(d) && cscan.IsIdentChar(d[j]) {
			j++
		}
		if j == 0 || j < len(d) && d[j] == '(' {
			continue
		}
		name, text := d[:j], strings.TrimSuffix(strings.TrimRight(d[j:], " \t"), "\\")
		for strings.HasSuffix(strings.TrimRight(lines[i], " \t"), "\\") && i+1 < len(lines) {
			i++
			text += " " + strings.TrimSuffix(strings.TrimRight(lines[i], " \t"), "\\")
		}
		text = strings.TrimSpace(stripMacroComments(text))
		if t, seen := out[name]; seen && t != text {
			ambiguous[name] = true
		}
		if text != "" {
			out[name] = text
		}
	}
	for name := range ambiguous {
		delete(out, name)
	}
	return out
}

// stripMacroComments drops the /* */ and // comments of a macro's text.
func stripMacroComments(s string) string {
	for {
		i := strings.Index(s, "/*")
		if i < 0 {
			break
		}
		j := strings.Index(s[i+2:], "*/")
		if j < 0 {
			s = s[:i]
			break
		}
		s = s[:i] + " " + s[i+2+j+2:]
	}
	if i := strings.Index(s, "//"); i >= 0 {
		s = s[:i]
	}
	return s
}
