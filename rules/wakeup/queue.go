package wakeup

import (
	"regexp"
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
)

// Wait-queue keys.
//
// A queue argument such as "&pipe->rd_wait" or "pipe->rd_wait" is reduced to
// a key naming the object independent of the variable that reaches it:
// "pipe_inode_info.rd_wait" when the struct type of "pipe" is visible
// (declarations in the function, its parameters, the file, the patch),
// "*.rd_wait" when it is not, the name of a global ("my_wq"), a call result
// ("sk_sleep()"), or "local:<func>:<var>" for a pointer variable whose
// target cannot be followed.

var (
	// memberRe matches base->a.b[..]->c and captures the base and the
	// path; an index on the base (data[i].done, an element of an array
	// of the base's type) is skipped.
	memberRe     = regexp.MustCompile(`^([A-Za-z_]\w*)(?:\s*\[[^\]]*\])?((?:\s*(?:->|\.)\s*[A-Za-z_]\w*(?:\s*\[[^\]]*\])?)+)$`)
	memberPartRe = regexp.MustCompile(`(?:->|\.)\s*([A-Za-z_]\w*)(\s*\[[^\]]*\])?`)
	identRe      = regexp.MustCompile(`^[A-Za-z_]\w*$`)
	callRe       = regexp.MustCompile(`^([A-Za-z_]\w*)\s*\(`)
	// callMemberRe matches a member reached through a call's result
	// ("bt_wait_ptr(sbq, hctx)->wait").
	callMemberRe = regexp.MustCompile(`^([A-Za-z_]\w*)\s*\(.*\)\s*->\s*([A-Za-z_]\w*(?:\s*(?:->|\.)\s*[A-Za-z_]\w*)*)$`)
	// structDeclRe finds "struct T *a, *b" in declarations and parameters.
	structDeclRe = regexp.MustCompile(`\bstruct\s+([A-Za-z_]\w*)\s*`)
	// typedefDeclRe finds "wait_queue_head_t *wq" style declarations.
	typedefDeclRe = regexp.MustCompile(`\b([A-Za-z_]\w*_t)\s+(\*\s*)?([A-Za-z_]\w*)\s*[=;,)\[]`)
	// aliasRe finds "wq = &x->y;" assignments and initialisers.
	// queueCallAliasRe finds "wq = f(...)" assignments from a call.
	queueCallAliasRe = regexp.MustCompile(`(?:^|[\s*,(])([A-Za-z_]\w*)\s*=\s*([A-Za-z_]\w*)\s*\(`)
	// callMemberAliasRe finds "wq = &f(...)->m;": a queue reached through
	// the struct a call returns.
	callMemberAliasRe = regexp.MustCompile(`(?:^|[\s*,(])([A-Za-z_]\w*)\s*=\s*(&\s*[A-Za-z_]\w*\s*\([^;]*\)\s*->\s*[A-Za-z_]\w*(?:\s*(?:->|\.)\s*[A-Za-z_]\w*)*)\s*;`)
	aliasRe           = regexp.MustCompile(`(?:^|[\s*,(])([A-Za-z_]\w*)\s*=\s*(&?\s*[A-Za-z_]\w*(?:\s*(?:->|\.)\s*[A-Za-z_]\w*)+)\s*;`)

	// What a text holding a match of each of the regexps above holds, a
	// cheaper test run first (findAllStmts).
	mayStructDecl  = wordThenSpace("struct")
	mayTypedefDecl = wordThenSpace("_t")
	mayCallAlias   = assignment(false)
	mayAlias       = assignment(true)
)

// varTypes maps variable names to the struct types they point to or hold,
// and wait-queue pointer variables to the expressions they alias.
type varTypes struct {
	types   map[string]string
	aliases map[string]string
	locals  map[string]bool
	// calls maps a queue pointer variable to the function whose result
	// it holds ("wq = dax_entry_waitqueue(...)" -> dax_entry_waitqueue).
	calls map[string]string
}

func newVarTypes() *varTypes {
	return &varTypes{types: map[string]string{}, aliases: map[string]string{}, locals: map[string]bool{}, calls: map[string]string{}}
}

// scan records the declarations found in text. Earlier records win, so
// callers scan the most specific text first.
func (v *varTypes) scan(text string) {
	if len(text) > maxScan {
		text = text[:maxScan]
	}
	for _, m := range findAllStmtsIndex(structDeclRe, text, mayStructDecl) {
		typ := text[m[2]:m[3]]
		for _, n := range declarators(text[m[1]:]) {
			if _, ok := v.types[n]; !ok {
				v.types[n] = typ
			}
		}
	}
	for _, m := range findAllStmts(typedefDeclRe, text, mayTypedefDecl) {
		v.locals[m[3]] = true
		if _, ok := v.types[m[3]]; !ok && m[1] != "wait_queue_head_t" && m[1] != "wait_queue_entry_t" {
			v.types[m[3]] = strings.TrimSuffix(m[1], "_t")
		}
	}
	for _, m := range findAllStmtsIndex(queueCallAliasRe, text, mayCallAlias) {
		name, callee := text[m[2]:m[3]], text[m[4]:m[5]]
		if _, ok := v.calls[name]; !ok {
			v.calls[name] = callee
		}
		if _, ok := v.aliases[name]; !ok && hashedQueues[callee] != "" {
			// wq = bit_waitqueue(&x->word, bit): the hashed queue's key.
			v.aliases[name] = callee + "(" + firstArg(text[m[1]:]) + ")"
		}
	}
	for _, m := range findAllStmts(aliasRe, text, mayAlias) {
		if _, ok := v.aliases[m[1]]; !ok {
			v.aliases[m[1]] = m[2]
		}
	}
	for _, m := range findAllStmts(callMemberAliasRe, text, mayAlias) {
		if _, ok := v.aliases[m[1]]; !ok {
			v.aliases[m[1]] = m[2]
		}
	}
}

// fallback fills names missing from v with those of o.
func (v *varTypes) fallback(o *varTypes) {
	if o == nil {
		return
	}
	for k, t := range o.types {
		if _, ok := v.types[k]; !ok {
			v.types[k] = t
		}
	}
}

// queueKey normalises a queue argument to a key; fn names the function for
// keys of unfollowable local pointers.
func queueKey(arg string, vt *varTypes, fn string) string {
	return queueKeyDepth(arg, vt, fn, 0)
}

func queueKeyDepth(arg string, vt *varTypes, fn string, depth int) string {
	a := derefQueue(stripAddr(arg))
	if a == "" {
		return ""
	}
	if m := memberRe.FindStringSubmatch(a); m != nil {
		var parts []string
		for _, p := range memberPartRe.FindAllStringSubmatch(m[2], -1) {
			s := p[1]
			if p[2] != "" {
				s += "[]"
			}
			parts = append(parts, s)
		}
		path := strings.Join(parts, ".")
		base := m[1]
		if vt != nil {
			if t, ok := vt.types[base]; ok {
				return t + "." + path
			}
		}
		if strings.HasPrefix(strings.TrimSpace(m[2]), ".") {
			// base.field of an undeclared name: a global struct.
			return base + "." + path
		}
		return "*." + path
	}
	if identRe.MatchString(a) {
		if vt != nil {
			if al, ok := vt.aliases[a]; ok && depth < 3 {
				if k := queueKeyDepth(al, vt, fn, depth+1); k != "" {
					return k
				}
			}
			if c, ok := vt.calls[a]; ok && (vt.locals[a] || queueTypes[vt.types[a]]) {
				return c + "()"
			}
			if vt.locals[a] {
				return "local:" + fn + ":" + a
			}
		}
		return a
	}
	if m := callMemberRe.FindStringSubmatch(a); m != nil && hashedQueues[m[1]] == "" {
		// A member of the struct a call returns: canonKey types it
		// from the callee's declaration.
		var parts []string
		for _, p := range memberPartRe.FindAllStringSubmatch("->"+m[2], -1) {
			parts = append(parts, p[1])
		}
		return m[1] + "()." + strings.Join(parts, ".")
	}
	if m := callRe.FindStringSubmatch(a); m != nil {
		if kind := hashedQueues[m[1]]; kind != "" && depth < 3 {
			// The queue a bit or variable hashes to: the same key as the
			// waits and wake-ups that name the word or variable itself.
			if k := queueKeyDepth(firstArg(a[len(m[0]):]), vt, fn, depth+1); k != "" {
				return kind + ":" + k
			}
		}
		return m[1] + "()"
	}
	return strings.Join(strings.Fields(a), "")
}

// queueTypes are the struct types whose objects are a queue that waiters
// sleep on and wakers wake: a pointer of one of them that holds a call's
// result (wait = kvm_arch_vcpu_get_wait(vcpu)) is that call's queue. Not
// a completion: its pointer is more often taken over from an object
// (done = xchg(&create->done, NULL)) than returned by an accessor.
var queueTypes = map[string]bool{"wait_queue_head": true, "swait_queue_head": true, "rcuwait": true}

// derefQueue returns pointer name p for "*p": wait_event(*wq, ...) waits
// on the queue wq points to, which wake_up(wq) wakes. Anything else is
// returned as it is.
func derefQueue(a string) string {
	if d, ok := strings.CutPrefix(a, "*"); ok && identRe.MatchString(strings.TrimSpace(d)) {
		return strings.TrimSpace(d)
	}
	return a
}

// hashedQueues are the calls that return the wait queue a bit or a
// variable hashes to, with the kind of key the rule gives that queue.
var hashedQueues = map[string]string{"bit_waitqueue": "bit", "__var_waitqueue": "var"}

// prefixedKind reports whether the queue key of a waiter or waker of kind
// is prefixed by the kind: a completion, or a hashed queue (variable, bit)
// that only the same kind of waiter and waker share.
func prefixedKind(kind string) bool {
	return kind == "var" || kind == "completion" || kind == "bit"
}

// firstArg returns the first top-level argument of an argument list whose
// opening parenthesis has been consumed.
func firstArg(s string) string {
	depth := 0
	for i, c := range s {
		switch c {
		case '(', '[':
			depth++
		case ')', ']':
			if depth == 0 {
				return s[:i]
			}
			depth--
		case ',':
			if depth == 0 {
				return s[:i]
			}
		}
	}
	return s
}

// pointerCastRe matches a leading cast to a pointer type, "(struct
// completion *)" of "(struct completion *)urb->context": a queue handed
// through an untyped pointer is named by what it is read from.
var pointerCastRe = regexp.MustCompile(`^\(\s*(?:const\s+)?(?:(?:struct|union)\s+)?[A-Za-z_]\w*\s*\*+\s*\)`)

// stripAddr strips an argument down to the object it names: white
// space, address-of operators, enclosing parentheses and pointer casts,
// as often as they nest ("(&(x->q))" -> "x->q").
func stripAddr(arg string) string {
	a := strings.TrimSpace(arg)
	for {
		n := strings.TrimSpace(cscan.StripParens(strings.TrimSpace(strings.TrimPrefix(a, "&"))))
		n = strings.TrimSpace(pointerCastRe.ReplaceAllString(n, ""))
		if n == a {
			return a
		}
		a = n
	}
}

// keyField returns the field path of a struct key ("rd_wait" for
// "pipe_inode_info.rd_wait" and "*.rd_wait"), "" for other keys.
func keyField(k string) string {
	if strings.HasPrefix(k, "local:") || strings.HasSuffix(k, "()") {
		return ""
	}
	if i := strings.IndexByte(k, '.'); i >= 0 {
		return k[i+1:]
	}
	return ""
}

// keyLast returns the last component of a key, for cheap textual filters.
func keyLast(k string) string {
	if i := strings.LastIndexAny(k, ".:"); i >= 0 {
		return k[i+1:]
	}
	return k
}

// entryName normalises a wait-entry argument ("&wait" -> "wait").
func entryName(arg string) string {
	return strings.Join(strings.Fields(stripAddr(arg)), "")
}

// lockQueueArg returns the queue expression of a lock argument naming a
// queue's own lock ("&q->lock", "&pipe->rd_wait.lock"), "" otherwise.
func lockQueueArg(arg string) string {
	a := stripAddr(arg)
	for _, suf := range []string{".lock", "->lock"} {
		if strings.HasSuffix(a, suf) {
			return strings.TrimSpace(strings.TrimSuffix(a, suf))
		}
	}
	return ""
}

var (
	// structOpenRe matches the opening line of a struct definition.
	structOpenRe = regexp.MustCompile(`^\s*struct\s+([A-Za-z_]\w*)\s*\{`)
	// queueFieldRe matches a wait-queue field declaration and captures
	// the declared names.
	queueFieldRe = regexp.MustCompile(`^\s*(?:wait_queue_head_t|struct\s+wait_queue_head|struct\s+swait_queue_head|struct\s+completion)\s+([A-Za-z_][\w\s,]*);`)
)

// decrementRe finds decrements of struct members ("pipe->writers--",
// "--pipe->readers"), capturing the member name.
var decrementRe = regexp.MustCompile(`(?:[A-Za-z_]\w*(?:->|\.))+([A-Za-z_]\w*)\s*(?:--|-=)|--\s*(?:[A-Za-z_]\w*(?:->|\.))+([A-Za-z_]\w*)|\b(?:atomic|atomic64|atomic_long|refcount|local)_(?:dec|sub)\w*\s*\(\s*(?:[^,()]*,\s*)?&?\s*(?:[A-Za-z_]\w*(?:->|\.))*([A-Za-z_]\w*)\s*\)`)

// flagSetRe finds struct members set to true ("dev->dead = true;").
var flagSetRe = regexp.MustCompile(`(?:[A-Za-z_]\w*(?:->|\.))+([A-Za-z_]\w*)\s*=\s*(?:true|1)\s*;`)

// declarators returns the names declared by the declarator list at the
// start of text (after "struct T"): "*a = x, *b;" -> a, b; "*p)" -> p.
// Only pointer declarators and plain names followed by an initialiser,
// comma or end are taken, so "struct T {" and casts yield nothing.
func declarators(text string) []string {
	var out []string
	depth := 0
	start := 0
	piece := func(s string, first bool) {
		s = strings.TrimSpace(s)
		ptr := strings.HasPrefix(s, "*")
		s = strings.TrimSpace(strings.TrimLeft(s, "* \t\n"))
		s = strings.TrimPrefix(s, "const ")
		s = strings.TrimSpace(s)
		i := 0
		for i < len(s) && cscan.IsIdentChar(s[i]) {
			i++
		}
		if i == 0 || s[0] >= '0' && s[0] <= '9' {
			return
		}
		rest := strings.TrimSpace(s[i:])
		if rest != "" && rest[0] != '=' && rest[0] != '[' {
			return
		}
		if !ptr && !first {
			return
		}
		out = append(out, s[:i])
	}
	first := true
	for i := 0; i < len(text) && i < 512; i++ {
		switch c := text[i]; c {
		case '(', '[':
			depth++
		case ')', ']':
			if depth == 0 {
				piece(text[start:i], first)
				return out
			}
			depth--
		case ',':
			if depth == 0 {
				piece(text[start:i], first)
				first = false
				start = i + 1
			}
		case ';', '{', '}':
			if depth == 0 {
				if c == ';' {
					piece(text[start:i], first)
				}
				return out
			}
		}
	}
	return out
}

// callInExprRe finds calls in an expression.
var callInExprRe = regexp.MustCompile(`\b([A-Za-z_]\w*)\s*\(`)

// maxScan bounds the text scanned for declarations (patch mail is
// untrusted; kernel source files are far smaller).
const maxScan = 4 << 20

// viaPointerField reports whether key a reaches key b's queue through a
// pointer member named after b's struct type: "hidraw_list.hidraw.wait"
// (list->hidraw->wait, with struct hidraw *hidraw) and "hidraw.wait"
// (dev->wait, with struct hidraw *dev). The kernel names such members
// after their type; the key of a member path only knows the type of its
// base variable.
func viaPointerField(a, b string) bool {
	pa, pb := keyKindSplit(a), keyKindSplit(b)
	if pa[0] != pb[0] {
		return false
	}
	x, y := strings.Split(pa[1], "."), strings.Split(pb[1], ".")
	if len(x) < len(y) {
		x, y = y, x
	}
	if len(y) < 2 || len(x) < len(y)+1 || strings.HasPrefix(y[0], "*") {
		return false
	}
	// y = T.rest...; x = ... .T.rest...
	tail := x[len(x)-len(y):]
	return tail[0] == y[0] && strings.Join(tail[1:], ".") == strings.Join(y[1:], ".")
}

// keyKindSplit splits a queue key into its kind prefix ("var:",
// "completion:", "bit:" or "") and the rest.
func keyKindSplit(k string) [2]string {
	for _, p := range []string{"var:", "completion:", "bit:"} {
		if strings.HasPrefix(k, p) {
			return [2]string{p, strings.TrimPrefix(k, p)}
		}
	}
	return [2]string{"", k}
}
