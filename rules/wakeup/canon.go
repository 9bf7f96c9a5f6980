package wakeup

import (
	"regexp"
	"sort"
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/rules/lockctx/ctype"
	"github.com/autosel-bot/autosel-bot/rules/lockctx/typing"
)

// Queue identity from struct types.
//
// A queue key names a member path from the struct type of the variable
// that reaches it ("iio_dev_opaque.event_interface.wait"), but the queue
// is a member of the innermost struct the path goes through: a waiter
// that holds that struct directly ("struct iio_event_interface *ev_int",
// key "iio_event_interface.wait") sleeps on the same queue. canonKey
// follows the member chain through the struct definitions visible from
// the site's file (typing.StructDef) and keys the queue by the last
// struct reached and the members after it, so both sides of a protocol
// meet on one key whatever variable each reaches the object through.

// canonKey returns the key of q re-rooted at the innermost struct its
// member path reaches through struct-typed members (embedded or pointed
// to), seen from file; q itself when nothing can be followed (no tree,
// an untyped root, a global, a call or a local pointer).
func (r *checker) canonKey(q, file string) string {
	if r.typ == nil || q == "" {
		return q
	}
	prefix, plain := "", q
	for _, p := range []string{"var:", "completion:", "bit:"} {
		if strings.HasPrefix(plain, p) {
			prefix, plain = p, strings.TrimPrefix(plain, p)
			break
		}
	}
	if name, ok := strings.CutSuffix(plain, "()"); ok && identRe.MatchString(name) {
		if k := r.accessorKey(name, file); k != "" {
			return prefix + k
		}
		return q
	}
	if name, rest, ok := strings.Cut(plain, "()."); ok && identRe.MatchString(name) {
		if tag := r.returnTag(name, file); tag != "" {
			return r.canonKey(prefix+tag+"."+rest, file)
		}
		return q
	}
	if strings.HasPrefix(plain, "*.") || strings.HasPrefix(plain, "local:") || strings.Contains(plain, "(") {
		return q
	}
	parts := strings.Split(plain, ".")
	if len(parts) < 3 || !identRe.MatchString(parts[0]) {
		return q
	}
	memo := file + "|" + plain
	if c, ok := r.canon[memo]; ok {
		return prefix + c
	}
	// Re-rooted past pointer members (the queue belongs to the object
	// pointed to, which a waiter may hold directly) and past embedded
	// members that are the only one of their type in their struct; an
	// embedded member with a sibling of the same type keeps its name in
	// the key (dev->rx.wait and dev->tx.wait are two queues of one
	// object, not one of struct ring).
	tag, i := parts[0], 1
	root, at := tag, 1
	if t := r.anonGlobalMember(parts[0], parts[1], file); t != "" && len(parts) > 2 {
		// A pointer member of a global of an anonymous struct type
		// ("static struct { struct req *req; } state;"): the queue
		// belongs to the object pointed to.
		tag, i, root, at = t, 2, t, 2
	}
	for ; i < len(parts)-1; i++ {
		m := strings.TrimSuffix(parts[i], "[]")
		next := r.memberTag(tag, m, file)
		if next == "" {
			break
		}
		movable := r.memberIsPointer(tag, m, file) || !r.hasSibling(tag, m, next, file)
		tag = next
		if movable {
			root, at = tag, i+1
		}
	}
	c := plain
	if at > 1 {
		c = root + "." + strings.Join(parts[at:], ".")
	}
	r.canon[memo] = c
	return prefix + c
}

// canonSites re-keys f's sites by canonKey.
func (r *checker) canonSites(f *wfunc) {
	if f == nil || r.typ == nil {
		return
	}
	for _, s := range f.Sites {
		s.Q = r.canonKey(s.Q, f.File)
	}
}

// newTyper returns the struct typer of the post-patch view, nil in
// patch-only mode.
func newTyper(r *checker) *typing.Typer {
	if r.pass.Index == nil {
		return nil
	}
	return typing.New(r.pass.Index, nil)
}

// maxAccessorLines bounds the size of a function taken as a queue
// accessor.
const maxAccessorLines = 8

var (
	// returnAddrRe finds "return &expr;" in an accessor's body.
	returnAddrRe = regexp.MustCompile(`\breturn\s+&\s*([^;]+);`)
	// derefWrapRe matches a pointer read through an RCU or READ_ONCE
	// accessor followed by a member path: the object is the argument's.
	derefWrapRe = regexp.MustCompile(`^(?:rcu_dereference\w*|READ_ONCE|rcu_access_pointer)\s*\((.*)\)\s*((?:->|\.).*)$`)
)

// accessorKey returns the queue key of the result of a small function
// that returns the address of a member ("sk_sleep(sk)" returns
// &rcu_dereference_raw(sk->sk_wq)->wait: socket_wq.wait), typed in the
// function and re-rooted (canonKey); "" when name is no such accessor.
func (r *checker) accessorKey(name, file string) string {
	if r.tree == nil {
		return ""
	}
	memo := "()" + name
	if k, ok := r.canon[memo]; ok {
		return k
	}
	r.canon[memo] = ""
	fns := cscan.PickDefs(r.pass.Index.Funcs(name), file)
	if len(fns) == 0 || fns[0].End-fns[0].Start > maxAccessorLines {
		return ""
	}
	fn := fns[0]
	rel := r.tree.relPath(fn.File)
	text := r.typ.FileLines(rel).Span(fn.Start-1, fn.End)
	m := returnAddrRe.FindStringSubmatch(text)
	if m == nil || len(returnAddrRe.FindAllString(text, 2)) > 1 {
		return ""
	}
	expr := strings.TrimSpace(m[1])
	if w := derefWrapRe.FindStringSubmatch(expr); w != nil {
		expr = strings.TrimSpace(w[1]) + w[2]
	}
	vt := newVarTypes()
	vt.scan(text)
	k := queueKey(expr, vt, name)
	if k == "" || strings.HasPrefix(k, "*.") || strings.HasPrefix(k, "local:") || !strings.Contains(k, ".") {
		return ""
	}
	k = r.canonKey(k, rel)
	r.canon[memo] = k
	return k
}

// accessorsOf returns, sorted, the accessors canonKey has found so far
// whose queue key is q (the prefix of a completion's or var's key is
// not the accessor's).
func (r *checker) accessorsOf(q string) []string {
	plain := keyKindSplit(q)[1]
	var out []string
	for memo, k := range r.canon {
		if name, ok := strings.CutPrefix(memo, "()"); ok && k != "" && k == plain {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

// returnTag returns the struct tag a function returns a pointer to, read
// in its definition's header ("static inline struct sbq_wait_state
// *bt_wait_ptr(...)": sbq_wait_state), "" when it returns no struct
// pointer or is not found.
func (r *checker) returnTag(name, file string) string {
	if r.tree == nil {
		return ""
	}
	memo := "ret()" + name
	if k, ok := r.canon[memo]; ok {
		return k
	}
	r.canon[memo] = ""
	fns := cscan.PickDefs(r.pass.Index.Funcs(name), file)
	if len(fns) == 0 {
		return ""
	}
	fn := fns[0]
	from := fn.Start - 2
	if from < 0 {
		from = 0
	}
	head := r.typ.FileLines(r.tree.relPath(fn.File)).Span(from, fn.Start)
	m := regexp.MustCompile(`\bstruct\s+(\w+)\s*\*\s*` + regexp.QuoteMeta(name) + `\s*\(`).FindStringSubmatch(head)
	if m == nil {
		return ""
	}
	r.canon[memo] = m[1]
	return m[1]
}

// anonGlobalRe finds the body and name of a global of an anonymous
// struct type ("static struct { ... } state;").
var anonGlobalRe = regexp.MustCompile(`(?s)\bstruct\s*\{([^{}]*)\}\s*(\w+)\s*;`)

// anonGlobalMember returns the struct tag pointer member m of global
// name points to, when name is declared in file with an anonymous struct
// type; "" otherwise.
func (r *checker) anonGlobalMember(name, m, file string) string {
	memo := "anon|" + file + "|" + name + "." + m
	if t, ok := r.canon[memo]; ok {
		return t
	}
	t := ""
	lines := r.typ.FileLines(file)
	if text := lines.Span(0, lines.Len()); strings.Contains(text, "} "+name+";") || strings.Contains(text, "}"+name+";") {
		for _, g := range anonGlobalRe.FindAllStringSubmatch(text, -1) {
			if g[2] != name {
				continue
			}
			re := regexp.MustCompile(`\bstruct\s+(\w+)\s*\*\s*` + regexp.QuoteMeta(m) + `\s*;`)
			if mm := re.FindStringSubmatch(g[1]); mm != nil {
				t = mm[1]
			}
			break
		}
	}
	r.canon[memo] = t
	return t
}

// annotatedMemberRe matches a struct-typed member declaration with
// sparse annotations between the type and the name ("struct socket_wq
// __rcu *sk_wq"), which the struct parser of typing leaves out.
var annotatedMemberRe = regexp.MustCompile(`\bstruct\s+(\w+)\s+(?:__\w+\s*)+\**\s*(\w+)\s*(?:\[[^\]]*\]\s*)*;`)

// memberTag returns the struct tag of member m of struct tag, seen from
// file: from the definition typing finds, else read in the definition's
// own text for an annotated declaration; "" when m is no struct member.
func (r *checker) memberTag(tag, m, file string) string {
	ms, def := r.typ.StructDef(tag, file)
	if def == "" {
		ms, def = r.typ.VisibleStruct(tag, file)
	}
	if def == "" {
		if ms, def = r.includedStruct(tag, file); def == "" {
			return ""
		}
	}
	if t := ms[m]; t != "" {
		return t
	}
	memo := "member|" + def + "|" + tag + "." + m
	if t, ok := r.canon[memo]; ok {
		return t
	}
	t := ""
	lines := r.typ.FileLines(def)
	if body := ctype.StructBody(lines.Span(0, lines.Len()), tag); body != "" {
		for _, mm := range annotatedMemberRe.FindAllStringSubmatch(body, -1) {
			if mm[2] == m {
				t = mm[1]
				break
			}
		}
	}
	r.canon[memo] = t
	return t
}

// includedStruct finds struct tag as StructDef finds it from each header
// file includes: a driver's file reaches its subsystem's structs through
// the subsystem's header (8250_port.c includes <linux/serial_8250.h>,
// which includes <linux/serial_core.h>), further than StructDef and
// VisibleStruct look from the file itself.
func (r *checker) includedStruct(tag, file string) (map[string]string, string) {
	for _, angle := range []bool{false, true} {
		for _, inc := range r.typ.Includes(file, angle) {
			if ms, def := r.typ.StructDef(tag, inc); def != "" {
				return ms, def
			}
		}
	}
	return nil, ""
}

// memberIsPointer reports whether member m of struct tag, seen from
// file, is declared as a pointer (false when its declaration is not
// found).
func (r *checker) memberIsPointer(tag, m, file string) bool {
	return strings.Contains(r.typ.MemberDecl(tag, m, file), "*")
}

// hasSibling reports whether struct tag, seen from file, has a member
// other than m of struct type typ.
func (r *checker) hasSibling(tag, m, typ, file string) bool {
	ms, def := r.typ.StructDef(tag, file)
	if def == "" {
		ms, _ = r.typ.VisibleStruct(tag, file)
	}
	for n, t := range ms {
		if n != m && t == typ {
			return true
		}
	}
	return false
}
