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

// memberExprRe matches a member access: the object expression and the
// member's name.
var memberExprRe = regexp.MustCompile(`^([A-Za-z_]\w*(?:\s*(?:->|\.)\s*[A-Za-z_]\w*|\[[^\]]*\])*)\s*(?:->|\.)\s*([A-Za-z_]\w*)$`)

// maxInitDepth bounds how deep memberValues looks for the stores of the
// core code a directory hands its objects to (sock_init_data() ->
// sock_init_data_uid() is two).
const maxInitDepth = 3

// memberStore is one plain store to a member: its value and where.
type memberStore struct {
	Value string
	Line  int
}

// memberValuesOf is memberValues' answer: the values and where the first
// one is stored ("by sock_init_data_uid(), net/core/sock.c:3439").
type memberValuesOf struct {
	vals  []string
	where string
}

// memberValues returns the values stored in the member arg reads, when
// arg is a member access (`sk->sk_allocation`) of a struct whose member
// is declared with the target's contract type: the values its directory
// stores, else those the core functions it calls store (see above); nil
// otherwise.
func (r *Resolver) memberValues(fn *cscan.Func, arg string) memberValuesOf {
	ac, ok := r.m.target.(ArgContract)
	if !ok || fn == nil || r.ix == nil {
		return memberValuesOf{}
	}
	sm := memberExprRe.FindStringSubmatch(strings.TrimSpace(arg))
	if sm == nil {
		return memberValuesOf{}
	}
	tag := r.typ.ExprTag(sm[1], fn)
	if tag == "" || !ac.Contract(r.typ.MemberDecl(tag, sm[2], fn.File)) {
		return memberValuesOf{}
	}
	dir := path.Dir(fn.File)
	key := "lockctx.memberValues:" + dir + ":" + tag + "." + sm[2]
	if v, ok := r.facts[key]; ok {
		mv, _ := v.(memberValuesOf)
		return mv
	}
	mv := r.dirStores(dir, sm[2])
	if len(mv.vals) == 0 {
		mv = r.initStores(dir, tag, sm[2])
	}
	r.facts[key] = mv
	return mv
}

// dirStores returns the values the C files and headers of directory dir
// store in member m.
func (r *Resolver) dirStores(dir, m string) memberValuesOf {
	var mv memberValuesOf
	for _, p := range r.dirPaths(dir) {
		for _, s := range r.memberStores(p, m) {
			mv.add(s.Value, "in "+p+":"+strconv.Itoa(s.Line))
		}
	}
	return mv
}

// initStores returns the values stored in member m of struct tag by the
// functions outside dir that dir's functions call, directly or to
// maxInitDepth levels, through functions taking a struct tag.
func (r *Resolver) initStores(dir, tag, m string) memberValuesOf {
	var mv memberValuesOf
	seen := map[string]bool{}
	var names []string
	for _, p := range r.dirPaths(dir) {
		if !strings.HasSuffix(p, ".c") {
			continue
		}
		for _, f := range r.ix.File(p).Funcs {
			names = appendCallees(names, f, seen)
		}
	}
	takes := regexp.MustCompile(`\bstruct\s+` + regexp.QuoteMeta(tag) + `\b`)
	for range maxInitDepth {
		var next []string
		for _, name := range names {
			for _, d := range r.ix.Funcs(name) {
				if path.Dir(d.File) == dir || !slices.ContainsFunc(r.typ.ParamDecls(d), takes.MatchString) {
					continue
				}
				for _, s := range r.memberStores(d.File, m) {
					if s.Line > d.BodyStart && s.Line <= d.End {
						mv.add(s.Value, "by "+d.Name+"(), "+d.File+":"+strconv.Itoa(s.Line))
					}
				}
				next = appendCallees(next, d, seen)
			}
		}
		names = next
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

// appendCallees appends to names the callees of fn not yet seen.
func appendCallees(names []string, fn *cscan.Func, seen map[string]bool) []string {
	for _, c := range fn.Calls {
		if !seen[c.Name] {
			seen[c.Name] = true
			names = append(names, c.Name)
		}
	}
	return names
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

// memberStores returns the plain stores to member m in file (perFile).
func (r *Resolver) memberStores(file, m string) []memberStore {
	return r.perFile("memberstores:"+m, file, func(src []byte) any {
		if !bytes.Contains(src, []byte(m)) {
			return []memberStore(nil)
		}
		return scanMemberStores(string(src), m)
	}).([]memberStore)
}

// scanMemberStores finds the plain stores to member m in src, outside
// comments: `x->m = v;`, `x.m = v;` and a designated initializer's
// `.m = v,`.
func scanMemberStores(src, m string) []memberStore {
	re := regexp.MustCompile(`(?:->|\.)[ \t]*` + regexp.QuoteMeta(m) + `\s*=\s*([^=;,{}\s][^;,{}]*)`)
	src = typing.StripComments(src)
	var out []memberStore
	line, at := 1, 0
	for _, sm := range re.FindAllStringSubmatchIndex(src, -1) {
		line += strings.Count(src[at:sm[0]], "\n")
		at = sm[0]
		out = append(out, memberStore{Value: strings.Join(strings.Fields(src[sm[2]:sm[3]]), " "), Line: line})
	}
	return out
}
