package wakeup

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
)

// A gate that tests the waited-for state is usually right: the wake-up is
// skipped only when the waiter has nothing to wake for. Not when the test
// has the wrong sense. If the path stores a constant into the state just
// before the gate, the gate's value on that path is known: when it is
// false for the stored value while the waiter's condition is true for it,
// the wake-up never follows the store that satisfies the waiter
// (dev->cmd_done = 1; if (!dev->cmd_done) wake_up(&dev->cmd_wq)).

// constStoreRe matches a plain store of a constant: lhs = value;
var constStoreRe = regexp.MustCompile(`^\s*([A-Za-z_][\w]*(?:\s*(?:->|\.)\s*[A-Za-z_]\w*)+)\s*=\s*([A-Za-z_0-9]+)\s*;`)

// stateTestRe matches a test of one lvalue: x, !x, x == K, x != K.
var stateTestRe = regexp.MustCompile(`^(!?)\s*([A-Za-z_][\w]*(?:\s*(?:->|\.)\s*[A-Za-z_]\w*)*)\s*(?:(==|!=)\s*([A-Za-z_0-9]+))?$`)

// refuting is a store that makes a gate's test false: its line, the
// member it stores and the value.
type refuting struct {
	line         int
	field, value string
}

// refutingStores returns the stores among stores (latest first; texts
// gives what each stores) that make one of gates' conditions false: the
// wake-up the gate guards never runs after them. The store must be the
// last one to the gate's lvalue on some path to the gate: it reaches the
// gate, and nothing on the way (outside the branches the store is not
// in) writes the lvalue any other way (WRITE_ONCE(), a compound
// assignment) or hands its object to a call that may. Stores in the two
// branches of an if are each judged on their own path.
func (r *checker) refutingStores(f *wfunc, gates []cscan.Guard, stores []int, texts map[int]string) []refuting {
	fl := flowOf(f)
	var out []refuting
	for _, g := range gates {
		if g.Kind != "if" {
			continue
		}
		for _, part := range splitTop(cscan.StripParens(strings.TrimSpace(g.Cond)), "&&") {
			neg, lhs, op, k, ok := parseStateTest(part)
			if !ok {
				continue
			}
			for _, s := range stores {
				if s >= g.Line || !mentions(texts[s], lhs) {
					continue
				}
				m := constStoreRe.FindStringSubmatch(codeOnly(texts[s]))
				if m == nil || normLvalue(m[1]) != lhs {
					continue // another kind of write: the value is not known
				}
				if !fl.reaches(s, g.Line) || fl.exclusive(s, g.Line) || r.changedBetween(f, fl, lhs, s, g.Line) {
					continue
				}
				if v, known := evalStateTest(neg, op, k, m[2]); known && !v {
					out = append(out, refuting{s, lastMember(lhs), m[2]})
				}
			}
		}
	}
	return out
}

// refutedFor returns the line of the first of stores that makes the
// waiter's condition cond true (condHoldsWith), 0 if none.
func refutedFor(stores []refuting, cond string) int {
	for _, s := range stores {
		if condHoldsWith(cond, s.field, s.value) {
			return s.line
		}
	}
	return 0
}

// parseStateTest reads a test of one lvalue, its lvalue normalised.
func parseStateTest(t string) (neg bool, lhs, op, k string, ok bool) {
	t = cscan.StripParens(strings.TrimSpace(t))
	for _, w := range []string{"likely(", "unlikely(", "READ_ONCE("} {
		if rest, found := strings.CutPrefix(t, w); found && strings.HasSuffix(rest, ")") {
			t = cscan.StripParens(strings.TrimSpace(rest[:len(rest)-1]))
		}
	}
	m := stateTestRe.FindStringSubmatch(t)
	if m == nil {
		return false, "", "", "", false
	}
	return m[1] == "!", normLvalue(m[2]), m[3], m[4], true
}

// normLvalue drops the blanks of an lvalue.
func normLvalue(s string) string { return strings.Join(strings.Fields(s), "") }

// lastMember returns the last member name of an lvalue (the lvalue
// itself for a plain name).
func lastMember(lv string) string {
	if i := strings.LastIndexAny(lv, ">."); i >= 0 {
		return lv[i+1:]
	}
	return lv
}

// mentions reports whether code line t names lvalue lv.
func mentions(t, lv string) bool {
	return strings.Contains(normLvalue(codeOnly(t)), lv)
}

// assigns reports whether line t assigns lvalue lv (any value, by an
// assignment operator, ++/--, a store primitive such as WRITE_ONCE(), or
// by handing its address on).
func assigns(t, lv string) bool {
	t = normLvalue(codeOnly(t))
	if strings.Contains(t, "WRITE_ONCE("+lv+",") {
		return true
	}
	if j := strings.Index(t, "&"+lv); j >= 0 {
		rest := t[j+1+len(lv):]
		if !strings.HasPrefix(rest, "->") && !strings.HasPrefix(rest, ".") && (rest == "" || !isIdentByte(rest[0])) {
			return true
		}
	}
	i := strings.Index(t, lv)
	for i >= 0 {
		rest := t[i+len(lv):]
		if (i == 0 || !isIdentByte(t[i-1]) && t[i-1] != '>' && t[i-1] != '.') && (strings.HasPrefix(rest, "=") && !strings.HasPrefix(rest, "==") ||
			len(rest) > 1 && rest[1] == '=' && strings.ContainsRune("+-|&^*/%", rune(rest[0])) || strings.HasPrefix(rest, "<<=") || strings.HasPrefix(rest, ">>=") ||
			strings.HasPrefix(rest, "++") || strings.HasPrefix(rest, "--")) {
			return true
		}
		j := strings.Index(rest, lv)
		if j < 0 {
			break
		}
		i += len(lv) + j
	}
	return false
}

// changedBetween reports whether a line strictly between from and to,
// outside the branches from's path does not take (fl), may change lv:
// assigns it, or passes its object (the lvalue's base) to a function
// that may store into it (mayStore).
func (r *checker) changedBetween(f *wfunc, fl bodyFlow, lv string, from, to int) bool {
	base := lv
	if i := strings.IndexAny(lv, "-."); i > 0 {
		base = lv[:i]
	}
	callArg := regexp.MustCompile(`\w\s*\([^;]*\b` + regexp.QuoteMeta(base) + `\b`)
	for l, t := range f.lines {
		if l <= from || l >= to || fl.exclusive(from, l) {
			continue
		}
		code := codeOnly(t)
		if assigns(code, lv) || callArg.MatchString(code) && r.mayStore(code, f.File, lastMember(lv)) {
			return true
		}
	}
	return false
}

// mayStore reports whether a call made by code may store member: a
// function it calls (other than a wake-up or a lock primitive) that
// cannot be read, or whose body, or the body of a function that one
// calls, names the member.
func (r *checker) mayStore(code, file, member string) bool {
	for _, name := range calledNames(code) {
		if strings.Contains(name, "wake_up") || r.p.isPrimitive(name) || r.p.locks.Primitive(name) {
			continue
		}
		key := file + "|" + name + "|" + member
		may, ok := r.mayStores[key]
		if !ok {
			may = r.callMayStore(name, file, member)
			if r.mayStores == nil {
				r.mayStores = map[string]bool{}
			}
			r.mayStores[key] = may
		}
		if may {
			return true
		}
	}
	return false
}

// callMayStore is mayStore for one called function.
func (r *checker) callMayStore(name, file, member string) bool {
	body, ok := r.funcText(name, file)
	if !ok || containsWord(body, member) {
		return true
	}
	for _, inner := range calledNames(body) {
		if b, ok := r.funcText(inner, file); ok && containsWord(b, member) {
			return true
		}
	}
	return false
}

// constValue returns the value of a constant, when known: a number,
// true/false, NULL. An upper-case name (an enum or macro) is unknown.
func constValue(v string) (int64, bool) {
	switch v {
	case "true":
		return 1, true
	case "false", "NULL":
		return 0, true
	}
	n, err := strconv.ParseInt(strings.TrimRight(v, "uUlL"), 0, 64)
	return n, err == nil
}

// evalStateTest evaluates a test (see parseStateTest) with its lvalue
// holding constant v, when the result is known.
func evalStateTest(neg bool, op, k, v string) (bool, bool) {
	var res bool
	switch op {
	case "":
		n, known := constValue(v)
		if !known {
			return false, false
		}
		res = n != 0
	case "==", "!=":
		eq, known := constEqual(v, k)
		if !known {
			return false, false
		}
		res = eq == (op == "==")
	}
	return res != neg, true
}

// constEqual compares two constants: equal spellings are equal; two
// known values compare by value; two upper-case names (enumerators of one
// state variable) that differ are different.
func constEqual(a, b string) (bool, bool) {
	if a == b {
		return true, true
	}
	va, ka := constValue(a)
	vb, kb := constValue(b)
	if ka && kb {
		return va == vb, true
	}
	if !ka && !kb && strings.ToUpper(a) == a && strings.ToUpper(b) == b {
		return false, true
	}
	return false, false
}

// condHoldsWith reports whether a waiter's condition can hold once the
// member named field holds constant v: one of its disjuncts has a test of
// that member true for v and no test of it false.
func condHoldsWith(cond, field, v string) bool {
	for _, d := range splitOr(cscan.StripParens(strings.TrimSpace(cond))) {
		sawTrue, sawFalse := false, false
		for _, c := range splitTop(cscan.StripParens(strings.TrimSpace(d)), "&&") {
			neg, lhs, op, k, ok := parseStateTest(c)
			if !ok || lastMember(lhs) != field {
				continue
			}
			res, known := evalStateTest(neg, op, k, v)
			switch {
			case !known:
			case res:
				sawTrue = true
			default:
				sawFalse = true
			}
		}
		if sawTrue && !sawFalse {
			return true
		}
	}
	return false
}
