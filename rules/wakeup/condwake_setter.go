package wakeup

import (
	"regexp"
	"slices"
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
)

// A store made through a setter: "__update_runtime_status(dev,
// RPM_SUSPENDED);" stores RPM_SUSPENDED into dev->power.runtime_status,
// as the helper's body "dev->power.runtime_status = status;" shows. The
// gated wake-up checks read such a call as the store it makes.

// maxSetterLines bounds the text of a helper read as a setter.
const maxSetterLines = 10

// callStmtRe reads a statement that is one call: its name and arguments.
var callStmtRe = regexp.MustCompile(`^\s*([A-Za-z_]\w*)\s*\((.*)\)\s*;\s*$`)

// setterStore returns the store the call statement at line of f makes
// through a small helper of the tree or the patch that stores one of its
// parameters into a member of another, written with the caller's
// arguments ("dev->power.runtime_status = RPM_SUSPENDED;"); "" when the
// line is no such call.
func (r *checker) setterStore(f *wfunc, line int) string {
	m := callStmtRe.FindStringSubmatch(codeOnly(f.lines[line]))
	if m == nil || r.p.isPrimitive(m[1]) {
		return ""
	}
	args := splitTop(m[2], ",")
	for _, h := range r.smallFuncsNamed(m[1], f.File, maxSetterLines) {
		params := paramNames(h.header(), h.Name)
		if len(params) != len(args) {
			continue
		}
		store := ""
		for l := h.F.BodyStart + 1; l < h.F.End; l++ {
			// A store of one parameter into a member path of another:
			// "p->a.b = q;".
			sm := memberStoreLineRe.FindStringSubmatch(codeOnly(h.lines[l]))
			if sm == nil || !cscan.IsIdent(strings.TrimSpace(sm[3])) {
				continue
			}
			obj, val := slices.Index(params, sm[1]), slices.Index(params, strings.TrimSpace(sm[3]))
			if obj < 0 || val < 0 || store != "" {
				return "" // no parameter's, or more than one store
			}
			store = strings.TrimSpace(args[obj]) + strings.Join(strings.Fields(sm[2]), "") + " = " + strings.TrimSpace(args[val]) + ";"
		}
		if store != "" {
			return store
		}
	}
	return r.objectStores(m[1], args, f.File)
}

// maxStoreHelperLines bounds the text of a helper whose stores into its
// parameters' objects are read as its caller's (objectStores).
const maxStoreHelperLines = 30

// memberStoreLineRe reads a plain store into a member path of a
// variable: "p->a.b = expr;" (no subscripts, no compound assignment).
var memberStoreLineRe = regexp.MustCompile(`^\s*([A-Za-z_]\w*)((?:\s*(?:->|\.)\s*[A-Za-z_]\w*)+)\s*=\s*([^=].*);\s*$`)

// objectStores returns the stores a helper of f's file (static there,
// at most maxStoreHelperLines long) called as name(args) makes into the
// objects its parameters point to, written with the caller's arguments
// and joined by spaces: "__pass_event(client, &event);" stores
// "client->packet_head = client->head;". "" when it makes none.
func (r *checker) objectStores(name string, args []string, file string) string {
	var out []string
	for _, h := range r.smallFuncsNamed(name, file, maxStoreHelperLines) {
		if h.File != file || h.F == nil || !h.F.Static {
			continue
		}
		params := paramNames(h.header(), h.Name)
		if len(params) != len(args) {
			continue
		}
		for l := h.F.BodyStart + 1; l < h.F.End; l++ {
			sm := memberStoreLineRe.FindStringSubmatch(codeOnly(h.lines[l]))
			if sm == nil || !slices.Contains(params, sm[1]) {
				continue
			}
			out = append(out, withArgs(strings.Join(strings.Fields(sm[0]), " "), params, args))
		}
	}
	return strings.Join(out, " ")
}

// withArgs returns text with each word naming one of params replaced by
// the matching argument.
func withArgs(text string, params, args []string) string {
	var b strings.Builder
	for i := 0; i < len(text); {
		j := i
		for j < len(text) && cscan.IsIdentChar(text[j]) {
			j++
		}
		if j == i {
			b.WriteByte(text[i])
			i++
			continue
		}
		w := text[i:j]
		if k := slices.Index(params, w); k >= 0 && (i == 0 || text[i-1] != '.' && text[i-1] != '>') {
			w = strings.TrimSpace(args[k])
		}
		b.WriteString(w)
		i = j
	}
	return b.String()
}

// smallFuncsNamed returns the definitions of name whose text spans at
// most max lines: the patch's versions, else the tree's as seen from file
// (smallTreeFuncs).
func (r *checker) smallFuncsNamed(name, file string, max int) []*wfunc {
	var out []*wfunc
	for _, f := range r.news {
		if f != nil && f.Name == name && f.F != nil && f.F.End-f.F.Start <= max {
			out = append(out, f)
		}
	}
	if len(out) > 0 {
		return out
	}
	return r.smallTreeFuncs(name, file, max)
}

// smallTreeFuncs returns the tree's views of the definitions of name, as
// seen from file, whose text spans at most max lines (only those are
// read).
func (r *checker) smallTreeFuncs(name, file string, max int) []*wfunc {
	if r.tree == nil {
		return nil
	}
	var out []*wfunc
	for _, fn := range cscan.PickDefs(r.pass.Index.Funcs(name), file) {
		if fn.End-fn.Start <= max {
			out = append(out, r.tree.view(fn))
		}
	}
	return out
}

// storeText returns what line of f stores: its text, or for a call of a
// setter the store the setter makes (setterStore).
func (r *checker) storeText(f *wfunc, line int) string {
	if isStore(f.lines[line]) {
		return f.lines[line]
	}
	return r.setterStore(f, line)
}
