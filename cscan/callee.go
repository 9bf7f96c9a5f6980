package cscan

import "strings"

// The callee of a call through a function pointer is written as an
// expression: a member chain (ops->release, a.b->fn), an element of a
// table (icmp_pointers[type].handler, il->handlers[cmd]) or a pointer
// dereferenced in parentheses ((*fnp), (*dev->ops->fn)). Its name keeps
// the chain and writes each subscript as "[]" (the index is a value, the
// table is what the call goes through), or as "[N]" when it is a
// constant; a dereferenced variable is named "(*fnp)", not taken for a
// function called fnp.

// opener returns the index of the bracket of kind open that token i
// closes, or -1.
func (s *scanner) opener(i int, open byte) int {
	if i < 0 || i >= len(s.toks) {
		return -1
	}
	o := int(s.pair[i])
	if o < 0 || o >= i || !s.isOp(o, open) {
		return -1
	}
	return o
}

// subscriptsStart returns the first token of the subscripts ending with
// the ']' at i (arr[i][j]: the first '['), or -1 when i closes none.
func (s *scanner) subscriptsStart(i, a int) int {
	o := s.opener(i, '[')
	if o < 0 {
		return -1
	}
	for o-1 >= a {
		p := s.opener(o-1, '[')
		if p < 0 {
			break
		}
		o = p
	}
	return o
}

// chainStart returns the first token of the member chain ending with the
// identifier at k, no earlier than a: ops in ops->fn, tbl in
// tbl[i].fn, x in x->arr[i].fn.
func (s *scanner) chainStart(k, a int) int {
	j := k
	for j-2 >= a && s.isMember(j-1) {
		switch {
		case s.isIdent(j - 2):
			j -= 2
			continue
		case s.isOp(j-2, ']'):
			if o := s.subscriptsStart(j-2, a); o-1 >= a && s.isIdent(o-1) {
				j = o - 1
				continue
			}
		}
		break
	}
	return j
}

// calleeText renders tokens [j, end) of a callee expression: as span
// does, with each subscript written "[]", or "[N]" when it is a constant
// (a number or an upper-case name: pp_handlers[PP_DISASSOC] calls one
// element, not any).
func (s *scanner) calleeText(j, end int) string {
	sub := false
	for t := j; t < end; t++ {
		if s.isOp(t, '[') {
			sub = true
			break
		}
	}
	if !sub {
		return s.span(j, end)
	}
	var b strings.Builder
	for t := j; t < end; t++ {
		if s.isOp(t, '[') {
			c := int(s.pair[t])
			if c == t+2 && constSubscript(s.word(t+1)) {
				b.WriteString("[" + string(s.word(t+1)) + "]")
			} else {
				b.WriteString("[]")
			}
			if c > t && c < end {
				t = c
			}
			continue
		}
		b.Write(s.word(t))
	}
	return b.String()
}

// constSubscript reports whether a subscript's one token is a constant:
// a number, or an identifier without lower-case letters.
func constSubscript(w []byte) bool {
	return len(w) > 0 && (w[0] >= '0' && w[0] <= '9' || isUpperIdent(w))
}

// pointerCallee returns the name of a call through a table element or a
// dereferenced pointer whose argument list opens at k+1 ('(' after the
// ']' or ')' at k), no earlier than a: "il->handlers[]" for
// il->handlers[cmd](il, rxb), "->handlers[]" for
// to_devx(p)->handlers[op](d), "(*fnp)" for (*fnp)(x), "fns[]" for
// (*fns[i])(x), "dev->ops->fn" for (*dev->ops->fn)(d) or
// (dev->ops->fn)(d). "" for anything else: a parenthesised cast
// ((u32)(x)), a declarator (u8 *(*get)(struct x *)), the result of a
// call called.
func (s *scanner) pointerCallee(k, a int) string {
	switch {
	case s.isOp(k, ']'):
		o := s.subscriptsStart(k, a)
		if o-1 < a || !s.isIdent(o-1) || isNotCall(s.word(o-1)) {
			return ""
		}
		return s.chainText(s.chainStart(o-1, a), k+1)
	case s.isOp(k, ')'):
		o := s.opener(k, '(')
		if o < a || k-1 <= o || !s.derefCallStart(o-1) {
			return ""
		}
		last := k - 1
		if s.isOp(last, ']') {
			if last = s.subscriptsStart(last, o+1) - 1; last <= o || !s.isIdent(last) {
				return ""
			}
		} else if !s.isIdent(last) {
			return ""
		}
		j := s.chainStart(last, o+1)
		star := s.isOp(j-1, '*') && j-1 == o+1
		switch {
		case !star && (j != o+1 || j == k-1):
			return "" // (type)(x), or more than a chain inside
		case star && j == k-1:
			// A pointer variable dereferenced: not a call of a
			// function of that name.
			return "(*" + string(s.word(j)) + ")"
		}
		return s.calleeText(j, k)
	}
	return ""
}

// derefCallStart reports whether the token at i, before a parenthesised
// callee, lets it be one: anything but an identifier other than a
// keyword (a type in a declarator, a call's name), a '*' (u8 *(*get)),
// or a ']' (a subscript).
func (s *scanner) derefCallStart(i int) bool {
	switch {
	case s.isIdent(i):
		switch string(s.word(i)) {
		case "return", "else", "do":
			return true
		}
		return false
	case s.isOp(i, '*'), s.isOp(i, ']'):
		return false
	}
	return true
}

// chainText is calleeText of a chain starting at j, written from its
// member operator when a call result or a parenthesised expression comes
// before it (to_devx(p)->handlers[op]: "->handlers[]"), as a member call
// after one is.
func (s *scanner) chainText(j, end int) string {
	if s.isMember(j-1) && (s.isOp(j-2, ')') || s.isOp(j-2, ']')) {
		return string(s.word(j-1)) + s.calleeText(j, end)
	}
	return s.calleeText(j, end)
}

// CalleeMember returns the member a call through a pointer calls:
// "release" for ops->release, "handlers" for il->handlers[] (an element
// of the member array), "handler" for icmp_pointers[].handler; ok is
// false for a direct call and for an element of a plain table
// (handlers[]).
func CalleeMember(name string) (member string, ok bool) {
	i := strings.LastIndexAny(name, ">.")
	if i < 0 {
		return "", false
	}
	m := name[i+1:]
	for strings.HasSuffix(m, "[]") {
		m = m[:len(m)-2]
	}
	return m, m != ""
}
