package cscan

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
	kind       tokKind
	start, end int32
	line       int32
}

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

func lex(src []byte) ([]token, bool) {
	lx := &lexer{src: src, line: 1, toks: make([]token, 0, len(src)/5+16)}
	lx.run()
	return lx.toks, lx.truncated
}

func (lx *lexer) skipping() bool {
	for i := range lx.conds {
		if lx.conds[i].skip {
			return true
		}
	}
	return false
}

func (lx *lexer) emit(k tokKind, start, end int, line int32) {
	if lx.skipping() {
		return
	}
	if len(lx.toks) >= maxTokens {
		lx.truncated = true
		return
	}
	if k == tokPunct && end-start == 1 {
		switch lx.src[start] {
		case '{':
			lx.depth++
		case '}':
			lx.depth--
		}
	}
	lx.toks = append(lx.toks, token{kind: k, start: int32(start), end: int32(end), line: line})
}

func (lx *lexer) run() {
	src := lx.src
	atLineStart := true
	for lx.pos < len(src) {
		if lx.truncated {
			return
		}
		c := src[lx.pos]
		switch {
		case c == '\n':
			lx.line++
			lx.pos++
			atLineStart = true
			continue
		case c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v':
			lx.pos++
			continue
		case c == '\\' && lx.pos+1 < len(src) && (src[lx.pos+1] == '\n' || src[lx.pos+1] == '\r'):
			// Stray continuation outside a directive.
			lx.pos++
			continue
		case c == '/' && lx.pos+1 < len(src) && src[lx.pos+1] == '/':
			lx.skipLineComment()
			continue
		case c == '/' && lx.pos+1 < len(src) && src[lx.pos+1] == '*':
			lx.skipBlockComment()
			continue
		case c == '#' && atLineStart:
			lx.directive()
			continue
		}
		atLineStart = false
		start := lx.pos
		line := lx.line
		switch {
		case IsIdentStart(c):
			for lx.pos < len(src) && IsIdentChar(src[lx.pos]) {
				lx.pos++
			}
			// String/char prefixes: L"..", u8"..".
			if lx.pos < len(src) && (src[lx.pos] == '"' || src[lx.pos] == '\'') && lx.pos-start <= 2 {
				q := src[lx.pos]
				lx.quoted(q)
				k := tokString
				if q == '\'' {
					k = tokChar
				}
				lx.emit(k, start, lx.pos, line)
				continue
			}
			lx.emit(tokIdent, start, lx.pos, line)
		case c >= '0' && c <= '9' || c == '.' && lx.pos+1 < len(src) && src[lx.pos+1] >= '0' && src[lx.pos+1] <= '9':
			lx.pos++
			for lx.pos < len(src) {
				d := src[lx.pos]
				if IsIdentChar(d) || d == '.' {
					lx.pos++
					continue
				}
				if (d == '+' || d == '-') && (src[lx.pos-1] == 'e' || src[lx.pos-1] == 'E' || src[lx.pos-1] == 'p' || src[lx.pos-1] == 'P') {
					lx.pos++
					continue
				}
				break
			}
			lx.emit(tokNumber, start, lx.pos, line)
		case c == '"':
			lx.quoted('"')
			lx.emit(tokString, start, lx.pos, line)
		case c == '\'':
			lx.quoted('\'')
			lx.emit(tokChar, start, lx.pos, line)
		default:
			n := punctLen(src[lx.pos:])
			lx.pos += n
			lx.emit(tokPunct, start, lx.pos, line)
		}
	}
}

// quoted consumes a string or char literal starting at the quote; an
// unterminated literal ends at the end of the line.
func (lx *lexer) quoted(q byte) {
	src := lx.src
	lx.pos++
	for lx.pos < len(src) {
		c := src[lx.pos]
		switch c {
		case '\\':
			if lx.pos+1 < len(src) && src[lx.pos+1] == '\n' {
				lx.line++
			}
			lx.pos += 2
			continue
		case '\n':
			return
		}
		lx.pos++
		if c == q {
			return
		}
	}
	if lx.pos > len(src) {
		lx.pos = len(src)
	}
}

func (lx *lexer) skipLineComment() {
	src := lx.src
	for lx.pos < len(src) && src[lx.pos] != '\n' {
		if src[lx.pos] == '\\' && lx.pos+1 < len(src) && src[lx.pos+1] == '\n' {
			lx.line++
			lx.pos++
		}
		lx.pos++
	}
}

func (lx *lexer) skipBlockComment() {
	src := lx.src
	lx.pos += 2
	for lx.pos < len(src) {
		if src[lx.pos] == '*' && lx.pos+1 < len(src) && src[lx.pos+1] == '/' {
			lx.pos += 2
			return
		}
		if src[lx.pos] == '\n' {
			lx.line++
		}
		lx.pos++
	}
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
		if arg := trimSpace(src[argStart:lx.pos]); string(word) == "if" && (arg == "0" || arg == "(0)") {
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
	}
}

func trimSpace(b []byte) string {
	i, j := 0, len(b)
	for i < j && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r') {
		i++
	}
	for j > i && (b[j-1] == ' ' || b[j-1] == '\t' || b[j-1] == '\r') {
		j--
	}
	return string(b[i:j])
}

// punctLen returns the length of the punctuator at the start of b.
func punctLen(b []byte) int {
	if len(b) >= 3 {
		switch string(b[:3]) {
		case "<<=", ">>=", "...":
			return 3
		}
	}
	if len(b) >= 2 {
		switch string(b[:2]) {
		case "->", "++", "--", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||",
			"+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "##":
			return 2
		}
	}
	return 1
}
