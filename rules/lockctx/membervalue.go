package lockctx

import (
	"bytes"
	"path"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/rules/lockctx/ctype"
	"github.com/autosel-bot/autosel-bot/rules/lockctx/typing"
)

// A deciding argument is often read from the object it is for:
//
//	skb = alloc_skb(len, sk->sk_allocation);
//
// A member has no value of its own: it holds what the code that set the
// object up stored in it. The code that handles an object usually set it
// up too (a protocol its sockets, a driver its requests), so the stores
// in the reading function's directory decide. When that directory stores
// nothing in the member, the object was set up by the core code the
// directory hands it to: sock_init_data() stores GFP_KERNEL in
// sk_allocation for every protocol that chooses no other mask. Those
// stores are found in the functions the directory calls that take the
// struct, to maxInitDepth levels.
//
// Only members the target's contract names (ArgContract: a gfp_t) are
// read this way. A value stored from a variable or chosen at run time is
// kept as written, so the member is not known to reach unless every value
// stored does (reachesWithAll). A patch that changes a store in another
// file of the directory does not recompute the summaries stored for the
// tree's unchanged functions.

// objExpr is the text of an object expression in a store's regexp: a
// variable, its members and subscripts ("chip->streams[i].ops").
const objExpr = `[A-Za-z_]\w*(?:\s*(?:->|\.)\s*[A-Za-z_]\w*|\[[^\]]*\])*`

// maxInitDepth bounds how deep memberValues looks for the stores of the
// core code a directory hands its objects to (sock_init_data() ->
// sock_init_data_uid() is two).
const maxInitDepth = 3

// memberStore is one store to a member: the object's expression
// (designatedBase in a designated initializer, otherBase for an object
// that is no plain expression), the value and where.
type memberStore struct {
	Base, Value string
	Line        int
}

// memberWrites are the writes of a member in one file: its stores, and
// the lines where it is written another way (a compound assignment other
// than |=, its address taken), which leaves its value unknown.
type memberWrites struct {
	stores      []memberStore
	opaqueLines []int
}

// memberValuesOf is memberValues' answer: the values and where the first
// one is stored ("by sock_init_data_uid(), net/core/sock.c:3439"), or
// unknown when the member is written in a way not read as a store.
type memberValuesOf struct {
	vals    []string
	where   string
	unknown bool
}

// memberValues returns the values stored in the member arg reads, when
// arg is a member access (`sk->sk_allocation`) of a struct whose member
// is declared with the target's contract type: the values its directory
// stores, else those the core functions it calls store (see above); no
// values otherwise.
func (r *Resolver) memberValues(fn *cscan.Func, arg string) memberValuesOf {
	ac, ok := r.m.target.(ArgContract)
	if !ok || fn == nil || r.ix == nil {
		return memberValuesOf{}
	}
	arg = strings.TrimSpace(arg)
	parts := ctype.MemberPath(arg)
	if len(parts) < 2 || strings.HasSuffix(arg, "]") {
		return memberValuesOf{} // no member, or an element of one
	}
	m := parts[len(parts)-1]
	tag := r.typ.ExprTag(strings.Join(parts[:len(parts)-1], "."), fn)
	if tag == "" || !ac.Contract(r.typ.MemberDecl(tag, m, fn.File)) {
		return memberValuesOf{}
	}
	dir := path.Dir(fn.File)
	key := "lockctx.memberValues:" + dir + ":" + tag + "." + m
	if v, ok := r.facts[key]; ok {
		mv, _ := v.(memberValuesOf)
		return mv
	}
	mv := r.dirStores(dir, tag, m)
	if len(mv.vals) == 0 && !mv.unknown {
		mv = r.initStores(dir, tag, m)
	}
	if mv.unknown {
		mv = memberValuesOf{}
	}
	r.facts[key] = mv
	return mv
}

// dirStores returns the values the C files and headers of directory dir
// store in member m of struct tag: stores through an object not known to
// be of another struct type (designated initializers are left out: their
// struct is not known here).
func (r *Resolver) dirStores(dir, tag, m string) memberValuesOf {
	var mv memberValuesOf
	for _, p := range r.dirPaths(dir) {
		w := r.memberWrites(p, m)
		mv.unknown = mv.unknown || len(w.opaqueLines) > 0
		for _, s := range w.stores {
			if s.Base == designatedBase || !r.storeOfTag(p, s, tag) {
				continue
			}
			mv.add(s.Value, "in "+p+":"+strconv.Itoa(s.Line))
		}
	}
	return mv
}

// storeOfTag reports whether store s of file may be to a struct tag: its
// object's type, in the function making it, is tag or unknown.
func (r *Resolver) storeOfTag(file string, s memberStore, tag string) bool {
	fn := r.ix.File(file).FuncAt(s.Line)
	if fn == nil || s.Base == otherBase {
		return true
	}
	t := r.typ.ExprTag(s.Base, fn)
	return t == "" || t == tag
}

// initStores returns the values stored in member m of struct tag by the
// functions outside dir that dir's functions call, directly or to
// maxInitDepth levels, through functions taking a struct tag; each
// callee is the definition its caller's file sees.
func (r *Resolver) initStores(dir, tag, m string) memberValuesOf {
	var mv memberValuesOf
	seen := map[string]bool{}
	var calls []calleeFrom
	for _, p := range r.dirPaths(dir) {
		if !strings.HasSuffix(p, ".c") {
			continue
		}
		for _, f := range r.ix.File(p).Funcs {
			calls = appendCallees(calls, f, seen)
		}
	}
	takes := regexp.MustCompile(`\bstruct\s+` + regexp.QuoteMeta(tag) + `\b`)
	for range maxInitDepth {
		var next []calleeFrom
		for _, c := range calls {
			for _, d := range cscan.PickDefs(r.ix.Funcs(c.name), c.from) {
				if path.Dir(d.File) == dir || !slices.ContainsFunc(r.typ.ParamDecls(d), takes.MatchString) {
					continue
				}
				w := r.memberWrites(d.File, m)
				for _, s := range w.stores {
					if s.Line > d.BodyStart && s.Line <= d.End && s.Base != designatedBase {
						mv.add(s.Value, "by "+d.Name+"(), "+d.File+":"+strconv.Itoa(s.Line))
					}
				}
				mv.unknown = mv.unknown || w.opaqueIn(d)
				next = appendCallees(next, d, seen)
			}
		}
		calls = next
	}
	return mv
}

// add records value v stored at where, once.
func (mv *memberValuesOf) add(v, where string) {
	if slices.Contains(mv.vals, v) {
		return
	}
	if len(mv.vals) == 0 {
		mv.where = where
	}
	mv.vals = append(mv.vals, v)
}

// calleeFrom is a callee's name and the file of a call to it.
type calleeFrom struct{ name, from string }

// appendCallees appends to calls the callees of fn not yet seen.
func appendCallees(calls []calleeFrom, fn *cscan.Func, seen map[string]bool) []calleeFrom {
	for _, c := range fn.Calls {
		if !seen[c.Name] {
			seen[c.Name] = true
			calls = append(calls, calleeFrom{c.Name, fn.File})
		}
	}
	return calls
}

// dirPaths returns the tree's C files and headers directly in dir.
func (r *Resolver) dirPaths(dir string) []string {
	var out []string
	paths := r.treePaths()
	for i := sort.SearchStrings(paths, dir+"/"); i < len(paths) && strings.HasPrefix(paths[i], dir+"/"); i++ {
		p := paths[i]
		if strings.Contains(p[len(dir)+1:], "/") || !strings.HasSuffix(p, ".c") && !strings.HasSuffix(p, ".h") {
			continue
		}
		out = append(out, p)
	}
	return out
}

// memberWrites returns the writes of member m in file (perFile).
func (r *Resolver) memberWrites(file, m string) memberWrites {
	return r.perFile("memberwrites:"+m, file, func(src []byte) any {
		if !bytes.Contains(src, []byte(m)) {
			return memberWrites{}
		}
		return scanMemberWrites(string(src), m)
	}).(memberWrites)
}

// memberWriteRe matches, for a member, a plain store `x->m = v;` or
// `x.m = v;` (the object when it is a plain expression, the value), a
// designated initializer's `.m = v,` and a store through an object of
// another form (a call's result, `(*p)`), WRITE_ONCE(x->m, v), and the
// other writes that leave the value unknown: a compound assignment other
// than |= (which only adds flags), or the member's address taken.
func memberWriteRe(m string) *regexp.Regexp {
	q, obj := regexp.QuoteMeta(m), objExpr
	return regexp.MustCompile(`(` + obj + `)?\s*(->|\.)[ \t]*` + q + `\s*=\s*([^=;,{}\s][^;,{}]*)` +
		`|\bWRITE_ONCE\s*\(\s*(` + obj + `)\s*(?:->|\.)\s*` + q + `\s*,\s*([^;]*?)\s*\)\s*;` +
		`|(?:->|\.)[ \t]*` + q + `\s*(?:&=|\^=|\+=|-=|<<=|>>=)` +
		`|(?:[(,=]|\breturn)\s*&\s*\(?\s*` + obj + `\s*(?:->|\.)\s*` + q + `\b\s*[^\s(\[.-]`)
}

// designatedBase and otherBase stand for the object of a designated
// initializer's store and of a store through an object that is no plain
// expression (its type is not read).
const designatedBase, otherBase = "{", "?"

// scanMemberWrites finds the writes of member m in src, outside
// comments.
func scanMemberWrites(src, m string) memberWrites {
	re := memberWriteRe(m)
	src = typing.StripComments(src)
	var out memberWrites
	line, at := 1, 0
	for _, sm := range re.FindAllStringSubmatchIndex(src, -1) {
		// The line of the member's name: the match may start with the
		// blanks before it.
		pos := sm[0] + max(strings.Index(src[sm[0]:sm[1]], m), 0)
		line += strings.Count(src[at:pos], "\n")
		at = pos
		switch {
		case sm[6] >= 0:
			base := designatedBase
			switch {
			case sm[2] >= 0:
				base = strings.Join(strings.Fields(src[sm[2]:sm[3]]), "")
			case src[sm[4]:sm[5]] == "->" || !designatedBefore(src[:sm[4]]):
				base = otherBase
			}
			out.stores = append(out.stores, memberStore{Base: base, Value: strings.Join(strings.Fields(src[sm[6]:sm[7]]), " "), Line: line})
		case sm[10] >= 0:
			out.stores = append(out.stores, memberStore{Base: strings.Join(strings.Fields(src[sm[8]:sm[9]]), ""),
				Value: strings.Join(strings.Fields(src[sm[10]:sm[11]]), " "), Line: line})
		default:
			out.opaqueLines = append(out.opaqueLines, line)
		}
	}
	return out
}

// designatedBefore reports whether the text before a ".m =" ends an
// initializer's previous element or opens it (a designated initializer).
func designatedBefore(before string) bool {
	before = strings.TrimRight(before, " \t\n")
	return before == "" || strings.HasSuffix(before, "{") || strings.HasSuffix(before, ",")
}

// opaqueIn reports whether an opaque write of w lies in fn's body.
func (w memberWrites) opaqueIn(fn *cscan.Func) bool {
	for _, l := range w.opaqueLines {
		if l > fn.BodyStart && l <= fn.End {
			return true
		}
	}
	return false
}
