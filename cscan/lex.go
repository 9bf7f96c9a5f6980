package cscan

import "bytes"

// tokKind classifies a token.
type tokKind uint8

const (
	tokIdent tokKind = iota + 1
	tokNumber
	tokString
	tokChar
	tokPunct
)

// token is one lexical token; text is src[start:end].
type token struct {
	kind tokKind
	// op identifies a punctuator without looking at its text: the
	// character of a one-character ASCII punctuator, opArrow, opInc or
	// opDec for "->", "++" and "--", opOther for the other longer ones;
	// 0 for other tokens.
	op         byte
	start, end int32
	line       int32
}

// Codes of multi-character punctuators in token.op (above ASCII, so they
// never equal a one-character punctuator).
const (
	opArrow byte = 0x80 + iota // ->
	opInc                      // ++
	opDec                      // --
	opOther                    // any other punctuator of 2 or 3 characters
)

// maxTokens bounds the tokens of one file; larger input is truncated and
// reported as skipped rather than exhausting memory.
const maxTokens = 8 << 20

// lexer turns kernel C into tokens. It drops comments and preprocessor
// directives (with their continuation lines), keeps the code of both sides
// of #if/#else unless doing so would unbalance braces, and drops #if 0
// blocks.
type lexer struct {
	src  []byte
	pos  int
	line int32
	toks []token
	// conds is the stack of open #if groups.
	conds []condGroup
	// skip is set while some open group drops its tokens (recomputed at
	// every directive that changes conds).
	skip bool
	// depth is the brace depth of the emitted tokens.
	depth int
	// truncated is set when maxTokens was reached.
	truncated bool
}

// condGroup is one open #if ... #endif.
type condGroup struct {
	// startDepth is the brace depth when the group (or the current branch)
	// began.
	startDepth int
	// firstDelta is the brace delta of the first branch (set at #else).
	firstDelta int
	// branch counts the branches seen (0 for the #if branch).
	branch int
	// skip drops tokens of the current branch.
	skip bool
	// dead marks a #if 0 group whose first branch is dropped.
	dead bool
	// unbalanced is set when the first branch changed brace depth: later
	// branches are dropped to keep the structure of the first.
	unbalanced bool
}

// bytesPerToken sizes the token slice from the source size: kernel C
// averages about 6.4 bytes per token (Linux 6.1 fs/ and kernel/); with 5,
// few files grow the slice.
const bytesPerToken = 5

// lex returns the tokens of src, whose first line is line, in buf when it
// is large enough, and whether it stopped at maxTokens.
func lex(src []byte, buf []token, line int) ([]token, bool) {
	if n := len(src)/bytesPerToken + 16; cap(buf) < n {
		buf = make([]token, 0, n)
	}
	lx := &lexer{src: src, line: int32(line), toks: buf[:0]}
	lx.run()
	return lx.toks, lx.truncated
}

// Byte classes of the lexer. The last three continue a number; the last
// two continue an identifier.
const (
	lcPunct     byte = iota // any other byte: a punctuator
	lcSpace                 // ' ', '\t', '\r', '\f', '\v'
	lcNewline               // '\n'
	lcBackslash             // '\\'
	lcSlash                 // '/'
	lcHash                  // '#'
	lcDquote                // '"'
	lcSquote                // '\''
	lcDot                   // '.'
	lcDigit                 // '0'-'9'
	lcIdent                 // '_', '$', 'A'-'Z', 'a'-'z'
)

// lexClass maps a byte to its class. It is a read-only table.
var lexClass = func() (t [256]byte) {
	for _, c := range []byte(" \t\r\f\v") {
		t[c] = lcSpace
	}
	t['\n'], t['\\'], t['/'], t['#'] = lcNewline, lcBackslash, lcSlash, lcHash
	t['"'], t['\''], t['.'] = lcDquote, lcSquote, lcDot
	for c := '0'; c <= '9'; c++ {
		t[c] = lcDigit
	}
	t['_'], t['$'] = lcIdent, lcIdent
	for c := 'a'; c <= 'z'; c++ {
		t[c], t[c-'a'+'A'] = lcIdent, lcIdent
	}
	return t
}()

func (lx *lexer) run() {
	src := lx.src
	toks := lx.toks
	atLineStart := true
	for lx.pos < len(src) {
		c := src[lx.pos]
		cls := lexClass[c]
		switch cls {
		case lcSpace:
			lx.pos++
			continue
		case lcNewline:
			lx.line++
			lx.pos++
			atLineStart = true
			continue
		case lcBackslash:
			if lx.pos+1 < len(src) && (src[lx.pos+1] == '\n' || src[lx.pos+1] == '\r') {
				// Stray continuation outside a directive.
				lx.pos++
				continue
			}
		case lcSlash:
			if lx.pos+1 < len(src) && src[lx.pos+1] == '/' {
				lx.skipLineComment()
				continue
			}
			if lx.pos+1 < len(src) && src[lx.pos+1] == '*' {
				lx.skipBlockComment()
				continue
			}
		case lcHash:
			if atLineStart {
				lx.directive()
				continue
			}
		}
		atLineStart = false
		start := lx.pos
		line := lx.line
		kind, op := tokPunct, byte(0)
		switch {
		case cls == lcIdent:
			pos := identEnd(src, start+1)
			lx.pos = pos
			kind = tokIdent
			// String/char prefixes: L"..", u8"..".
			if pos < len(src) && (src[pos] == '"' || src[pos] == '\'') && pos-start <= 2 {
				q := src[pos]
				lx.quoted(q)
				kind = tokString
				if q == '\'' {
					kind = tokChar
				}
			}
		case cls == lcDigit || cls == lcDot && lx.pos+1 < len(src) && lexClass[src[lx.pos+1]] == lcDigit:
			pos := lx.pos + 1
			for pos < len(src) {
				d := src[pos]
				if lexClass[d] >= lcDot {
					pos++
					continue
				}
				if (d == '+' || d == '-') && (src[pos-1] == 'e' || src[pos-1] == 'E' || src[pos-1] == 'p' || src[pos-1] == 'P') {
					pos++
					continue
				}
				break
			}
			lx.pos = pos
			kind = tokNumber
		case cls == lcDquote:
			lx.quoted('"')
			kind = tokString
		case cls == lcSquote:
			lx.quoted('\'')
			kind = tokChar
		default:
			var n int
			n, op = punct(src, lx.pos)
			lx.pos += n
		}
		// Emit the token unless a conditional group drops it.
		if lx.skip {
			continue
		}
		if len(toks) >= maxTokens {
			lx.truncated = true
			break
		}
		switch op {
		case '{':
			lx.depth++
		case '}':
			lx.depth--
		}
		toks = append(toks, token{kind: kind, op: op, start: int32(start), end: int32(lx.pos), line: line})
	}
	lx.toks = toks
}

// identEnd returns the end of the identifier characters starting at i.
func identEnd(src []byte, i int) int {
	for i < len(src) && lexClass[src[i]] >= lcDigit {
		i++
	}
	return i
}

// quoted consumes a string or char literal starting at the quote; an
// unterminated literal ends at the end of the line.
func (lx *lexer) quoted(q byte) {
	src := lx.src
	pos := lx.pos + 1
	for pos < len(src) {
		c := src[pos]
		switch c {
		case '\\':
			if pos+1 < len(src) && src[pos+1] == '\n' {
				lx.line++
			}
			pos += 2
			continue
		case '\n':
			lx.pos = pos
			return
		}
		pos++
		if c == q {
			lx.pos = pos
			return
		}
	}
	if pos > len(src) {
		pos = len(src)
	}
	lx.pos = pos
}

// skipLineComment skips to the end of a // comment (a backslash before
// the newline continues it).
func (lx *lexer) skipLineComment() {
	src := lx.src
	pos := lx.pos
	for {
		nl := bytes.IndexByte(src[pos:], '\n')
		if nl < 0 {
			lx.pos = len(src)
			return
		}
		nl += pos
		if src[nl-1] != '\\' {
			lx.pos = nl
			return
		}
		lx.line++
		pos = nl + 1
	}
}

// skipBlockComment skips a /* comment (to the end of the input when it is
// not closed), counting its lines.
func (lx *lexer) skipBlockComment() {
	rest := lx.src[lx.pos+2:]
	end := bytes.Index(rest, []byte("*/"))
	if end < 0 {
		lx.line += int32(bytes.Count(rest, []byte{'\n'}))
		lx.pos = len(lx.src)
		return
	}
	lx.line += int32(bytes.Count(rest[:end], []byte{'\n'}))
	lx.pos += 2 + end + 2
}

// directive consumes a preprocessor line (with continuations and comments)
// and updates the #if stack.
func (lx *lexer) directive() {
	src := lx.src
	lx.pos++ // '#'
	for lx.pos < len(src) && (src[lx.pos] == ' ' || src[lx.pos] == '\t') {
		lx.pos++
	}
	ws := lx.pos
	for lx.pos < len(src) && IsIdentChar(src[lx.pos]) {
		lx.pos++
	}
	word := src[ws:lx.pos]
	argStart := lx.pos
	// Consume to the end of the logical line.
	for lx.pos < len(src) {
		c := src[lx.pos]
		if c == '\\' && lx.pos+1 < len(src) && src[lx.pos+1] == '\n' {
			lx.pos += 2
			lx.line++
			continue
		}
		if c == '\\' && lx.pos+2 < len(src) && src[lx.pos+1] == '\r' && src[lx.pos+2] == '\n' {
			lx.pos += 3
			lx.line++
			continue
		}
		if c == '/' && lx.pos+1 < len(src) && src[lx.pos+1] == '*' {
			lx.skipBlockComment()
			continue
		}
		if c == '\n' {
			break
		}
		lx.pos++
	}
	switch string(word) {
	case "if", "ifdef", "ifndef":
		g := condGroup{startDepth: lx.depth}
		if arg := string(trimSpace(src[argStart:lx.pos])); string(word) == "if" && (arg == "0" || arg == "(0)") {
			g.dead, g.skip = true, true
		}
		lx.conds = append(lx.conds, g)
	case "elif", "else":
		if len(lx.conds) == 0 {
			return
		}
		g := &lx.conds[len(lx.conds)-1]
		if g.branch == 0 {
			g.firstDelta = lx.depth - g.startDepth
			if !g.dead && g.firstDelta != 0 {
				g.unbalanced = true
			}
		}
		g.branch++
		switch {
		case g.dead && g.branch == 1:
			// #if 0 ... #else: the else branch is the live one.
			g.skip = false
			lx.depth = g.startDepth
		case g.unbalanced:
			g.skip = true
		default:
			g.skip = false
			lx.depth = g.startDepth
		}
	case "endif":
		if len(lx.conds) == 0 {
			return
		}
		g := lx.conds[len(lx.conds)-1]
		lx.conds = lx.conds[:len(lx.conds)-1]
		if g.unbalanced {
			lx.depth = g.startDepth + g.firstDelta
		}
	default:
		return
	}
	lx.skip = false
	for i := range lx.conds {
		if lx.conds[i].skip {
			lx.skip = true
			break
		}
	}
}

func trimSpace(b []byte) []byte {
	i, j := 0, len(b)
	for i < j && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r') {
		i++
	}
	for j > i && (b[j-1] == ' ' || b[j-1] == '\t' || b[j-1] == '\r') {
		j--
	}
	return b[i:j]
}

// punct returns the length and the op code (see token.op) of the
// punctuator at src[i].
func punct(src []byte, i int) (int, byte) {
	c := src[i]
	var c1, c2 byte
	if i+1 < len(src) {
		c1 = src[i+1]
	}
	if i+2 < len(src) {
		c2 = src[i+2]
	}
	switch c {
	case '<', '>':
		if c1 == c {
			if c2 == '=' {
				return 3, opOther // <<= >>=
			}
			return 2, opOther // << >>
		}
		if c1 == '=' {
			return 2, opOther // <= >=
		}
	case '.':
		if c1 == '.' && c2 == '.' {
			return 3, opOther
		}
	case '-':
		switch c1 {
		case '>':
			return 2, opArrow
		case '-':
			return 2, opDec
		case '=':
			return 2, opOther
		}
	case '+':
		switch c1 {
		case '+':
			return 2, opInc
		case '=':
			return 2, opOther
		}
	case '&', '|':
		if c1 == c || c1 == '=' {
			return 2, opOther // && || &= |=
		}
	case '#':
		if c1 == '#' {
			return 2, opOther
		}
	case '=', '!', '*', '/', '%', '^':
		if c1 == '=' {
			return 2, opOther
		}
	}
	if c >= 0x80 {
		return 1, 0
	}
	return 1, c
}

// pairs returns, for each token, the index of the bracket closing it when
// it opens one ("(", "[" or "{") and is closed, the index of the bracket
// it closes when it closes one, else -1. Brackets of all
// three kinds close each other (the scanner tolerates mismatches), as in
// scanner.match: the partner of an opener is the first later closer at
// which the nesting depth, counted from the opener, returns to zero.
// pair and stack are reused when large enough; pairs returns both.
func pairs(toks []token, pair, stack []int32) ([]int32, []int32) {
	if cap(pair) < len(toks) {
		pair = make([]int32, len(toks))
	}
	pair = pair[:len(toks)]
	stack = stack[:0]
	for i := range toks {
		pair[i] = -1
		switch toks[i].op {
		case '(', '[', '{':
			stack = append(stack, int32(i))
		case ')', ']', '}':
			if n := len(stack); n > 0 {
				pair[stack[n-1]] = int32(i)
				pair[i] = stack[n-1]
				stack = stack[:n-1]
			}
		}
	}
	return pair, stack
}
