package index

import (
	"bytes"
	"strings"
	"sync"
)

// Assign is one assignment of a function to a member of a struct: a
// designated initializer (`static const struct net_device_ops foo_ops =
// { .ndo_get_stats64 = foo_get_stats64, }`) or a plain assignment
// (`t->timer.function = foo_timer;`). Calls through that member
// (`dev->netdev_ops->ndo_get_stats64(...)`) may reach Func.
type Assign struct {
	// Struct is the struct tag of the initialised object ("net_device_ops"),
	// "" when the scanner cannot tell (plain assignments, nested
	// initializers).
	Struct string
	// Member is the member assigned, Func the function name assigned to it.
	Member, Func string
	// Base is the expression the member belongs to in a plain assignment
	// ("t->timer"), "" in initializers.
	Base string
	// Var is the variable a top-level initializer declares ("foo_ops"),
	// "" elsewhere.
	Var string
	// File and Line locate the assignment.
	File string
	Line int
}

// ScanAssigns finds the assignments of identifiers to struct members in
// one C file: designated initializers with the struct tag of the
// declaration or compound literal they initialise, and plain `x->m = f;`
// / `x.m = f;` statements. Whether the identifier names a function is
// decided by the caller (the index knows the functions).
//
// The tokens are read in one pass and only those of the current
// declaration or statement (and the few before it the patterns look back
// at) are kept, so the scan allocates little more than its results.
func ScanAssigns(path string, src []byte) []Assign {
	wp := windowPool.Get().(*[]atok)
	s := &assignScanner{src: src, line: 1, win: (*wp)[:0], bol: true}
	defer func() {
		if cap(s.win) <= maxPooledWindow {
			*wp = s.win[:0]
			windowPool.Put(wp)
		}
	}()
	var out []Assign
	// stack holds, per open brace, the struct tag it initialises and
	// whether it is an array of such structs.
	var stack []initBrace
	stmt := 0 // first token of the current declaration or statement
	for i := 0; s.has(i); i++ {
		t := s.at(i)
		if t.kind != aPunct {
			continue
		}
		switch t.c {
		case '{':
			b := initBrace{}
			switch {
			case i > 1 && s.isPunct(i-1, '=') && s.designator(stmt, i-1) && len(stack) > 0 && stack[len(stack)-1].array:
				// A designated element of an array of structs: "[IDX] = {".
				b.tag = stack[len(stack)-1].tag
			case i > 0 && s.isPunct(i-1, '='):
				b.tag, b.array = s.declTag(stmt, i-1)
				b.name = s.declName(stmt, i-1)
			case i > 3 && s.isPunct(i-1, ')') && s.isWord(i-3, "struct") && s.isPunct(i-4, '('):
				b.tag = s.text(s.at(i - 2))
			case i > 0 && (s.isPunct(i-1, '{') || s.isPunct(i-1, ',')) && len(stack) > 0 && stack[len(stack)-1].array:
				b.tag = stack[len(stack)-1].tag
			}
			stack = append(stack, b)
			stmt = i + 1
			s.forget(i)
		case '}':
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
			stmt = i + 1
			s.forget(i)
		case ';':
			stmt = i + 1
			s.forget(i)
		case '=':
			if i < 2 || !s.has(i+2) || !isIdentTok(s.at(i+1)) {
				continue
			}
			// A member array's element ("il->handlers[N_ALIVE] = f;") is
			// an assignment of the member: the table calls go through.
			mi := i - 1
			if s.at(mi).is(']') {
				if mi = s.subscriptOpen(stmt, mi) - 1; mi < stmt+2 || !s.at(i+2).is(';') {
					continue
				}
			}
			fn, next, member, op := s.at(i+1), s.at(i+2), s.at(mi), s.at(mi-1)
			if !isIdentTok(member) || !s.plausibleFunc(fn) {
				continue
			}
			switch {
			case op.is('.') && (next.is(',') || next.is('}')) && (i < 3 || isInitStart(s.at(i-3))):
				tag, name := "", ""
				if len(stack) > 0 {
					tag = stack[len(stack)-1].tag
				}
				if len(stack) == 1 {
					name = stack[0].name
				}
				out = append(out, Assign{Struct: tag, Member: s.text(member), Func: s.text(fn),
					Var: name, File: path, Line: int(fn.line)})
			case (op.kind == aArrow || op.is('.')) && next.is(';'):
				base := s.baseExpr(stmt, mi-1)
				if base == "" {
					continue
				}
				out = append(out, Assign{Member: s.text(member), Func: s.text(fn), Base: base, File: path, Line: int(fn.line)})
			}
		}
	}
	return out
}

// windowPool recycles ScanAssigns' token windows between files: a window
// holds the tokens of the current statement, and a header of #defines
// alone is one statement, so windows grow large; reusing them spares
// allocating and collecting that memory for each file. Nothing in it is
// observable: ScanAssigns resets the window it takes.
var windowPool = sync.Pool{New: func() any {
	w := make([]atok, 0, 256)
	return &w
}}

// maxPooledWindow bounds the windows kept for the next file (16 MB).
const maxPooledWindow = 1 << 20

// initBrace is one open brace of ScanAssigns: the struct tag it
// initialises ("" when unknown), the variable a top-level initializer
// declares, and whether it initialises an array of such structs.
type initBrace struct {
	tag, name string
	array     bool
}

// Token kinds of the assignment scanner.
const (
	aIdent byte = iota + 1 // [_A-Za-z][_A-Za-z0-9]*
	aNum                   // [0-9][_A-Za-z0-9]*
	aLit                   // string or character literal, read as "0"
	aPunct                 // one-byte punctuator (any other byte), in c
	aArrow                 // "->"
	aOp2                   // another two-byte operator ("==", "+=", "<<", ...)
)

// atok is one token of the assignment scanner: src[start:end], or "0" for
// a literal (start and end unset).
type atok struct {
	start, end int32
	line       int32
	kind       byte
	// c is the byte of an aPunct token.
	c byte
}

// is reports whether t is the one-byte punctuator c.
func (t *atok) is(c byte) bool { return t.kind == aPunct && t.c == c }

// assignScanner splits C source into identifiers, numbers and punctuation
// on demand (comments dropped; strings and character literals read as a
// "0"; "->" and two-byte operators such as "==" kept whole so that "=" is
// only assignment). win holds the tokens from index base on.
type assignScanner struct {
	src  []byte
	pos  int
	line int32
	eof  bool
	// bol is set while only blanks follow the last newline: a '#' there
	// starts a preprocessor directive.
	bol  bool
	win  []atok
	base int
}

// has reports whether token i exists, reading up to it.
func (s *assignScanner) has(i int) bool {
	for i-s.base >= len(s.win) {
		if s.eof || !s.fill() {
			s.eof = true
			return false
		}
	}
	return true
}

// at returns token i, which has been read (has(i)) and not forgotten.
func (s *assignScanner) at(i int) *atok { return &s.win[i-s.base] }

// forget drops the tokens ScanAssigns no longer looks at once a
// declaration or statement ended at token i: it looks back at most four
// tokens before a later one.
func (s *assignScanner) forget(i int) {
	if keep := i - 3; keep-s.base > 256 {
		n := copy(s.win, s.win[keep-s.base:])
		s.win = s.win[:n]
		s.base = keep
	}
}

func (s *assignScanner) text(t *atok) string {
	if t.kind == aLit {
		return "0"
	}
	return string(s.src[t.start:t.end])
}

// word returns the source bytes of token t ("0" for a literal).
func (s *assignScanner) word(t *atok) []byte {
	if t.kind == aLit {
		return litText
	}
	return s.src[t.start:t.end]
}

// litText is what a literal reads as.
var litText = []byte("0")

func (s *assignScanner) isPunct(i int, c byte) bool { return s.at(i).is(c) }

func (s *assignScanner) isWord(i int, w string) bool {
	t := s.at(i)
	return t.kind == aIdent && string(s.src[t.start:t.end]) == w
}

// Byte classes of the assignment scanner's tokenizer.
const (
	clPunct   byte = iota // any other byte: a punctuator
	clSpace               // ' ', '\t', '\r', '\f', '\v', '\\' (skipped)
	clNewline             // '\n'
	clSlash               // '/': a comment or a punctuator
	clQuote               // '"', '\''
	clAlpha               // '_', 'A'-'Z', 'a'-'z'
	clDigit               // '0'-'9'
)

// byteClass maps a byte to its class. It is a read-only table.
var byteClass = func() (t [256]byte) {
	for _, c := range []byte(" \t\r\f\v\\") {
		t[c] = clSpace
	}
	t['\n'] = clNewline
	t['/'] = clSlash
	t['"'], t['\''] = clQuote, clQuote
	t['_'] = clAlpha
	for c := 'a'; c <= 'z'; c++ {
		t[c], t[c-'a'+'A'] = clAlpha, clAlpha
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = clDigit
	}
	return t
}()

// fillBatch is how many tokens fill reads at a time.
const fillBatch = 64

// fill reads up to fillBatch tokens into win; false when the input ended
// before any.
func (s *assignScanner) fill() bool {
	src := s.src
	n := len(src)
	i, line, win, bol := s.pos, s.line, s.win, s.bol
	before := len(win)
	for i < n && len(win)-before < fillBatch {
		c := src[i]
		if c == '#' && bol {
			if end, nl, ok := conditionalDirective(src, i); ok {
				// A conditional directive line (#ifdef, #endif...)
				// reads as a ",": what follows it in an initializer
				// starts a new designator (".ndo_poll_controller = f"
				// under #ifdef CONFIG_NET_POLL_CONTROLLER).
				win = append(win, atok{kind: aPunct, c: ',', start: int32(i), end: int32(i + 1), line: line})
				line += nl
				i = end
				continue
			}
		}
		cl := byteClass[c]
		if cl == clNewline {
			bol = true
		} else if cl != clSpace {
			bol = false
		}
		switch cl {
		case clNewline:
			line++
			i++
		case clSpace:
			i++
		case clQuote:
			i++
			for i < n && src[i] != c {
				if src[i] == '\\' {
					i++
				} else if src[i] == '\n' {
					line++
				}
				i++
			}
			i++
			win = append(win, atok{kind: aLit, line: line})
		case clAlpha, clDigit:
			j := i + 1
			for j < n && byteClass[src[j]] >= clAlpha {
				j++
			}
			k := aIdent
			if c <= '9' {
				k = aNum
			}
			win = append(win, atok{kind: k, start: int32(i), end: int32(j), line: line})
			i = j
		case clSlash:
			if i+1 < n && src[i+1] == '/' {
				nl := bytes.IndexByte(src[i:], '\n')
				if nl < 0 {
					i = n
				} else {
					i += nl
				}
				continue
			}
			if i+1 < n && src[i+1] == '*' {
				rest := src[i+2:]
				end := bytes.Index(rest, []byte("*/"))
				if end < 0 {
					end = len(rest)
				}
				line += int32(bytes.Count(rest[:end], []byte{'\n'}))
				i += 2 + end + 2
				continue
			}
			fallthrough
		case clPunct:
			if i+1 < n {
				if k := op2(c, src[i+1]); k != 0 {
					win = append(win, atok{kind: k, start: int32(i), end: int32(i + 2), line: line})
					i += 2
					continue
				}
			}
			win = append(win, atok{kind: aPunct, c: c, start: int32(i), end: int32(i + 1), line: line})
			i++
		}
	}
	s.pos, s.line, s.win, s.bol = i, line, win, bol
	return len(win) > before
}

// conditionalDirectives are the preprocessor directives that select
// lines (conditionalDirective).
var conditionalDirectives = []string{"ifdef", "ifndef", "if", "elifdef", "elifndef", "elif", "else", "endif"}

// conditionalDirective reports whether the '#' at src[i] starts a
// conditional directive; end is the offset of the newline ending it
// (continuation lines and block comments included), nl the newlines
// before end.
func conditionalDirective(src []byte, i int) (end int, nl int32, ok bool) {
	j := i + 1
	for j < len(src) && (src[j] == ' ' || src[j] == '\t') {
		j++
	}
	k := j
	for k < len(src) && byteClass[src[k]] == clAlpha {
		k++
	}
	word := string(src[j:k])
	found := false
	for _, d := range conditionalDirectives {
		if word == d {
			found = true
			break
		}
	}
	if !found {
		return 0, 0, false
	}
	for k < len(src) && src[k] != '\n' {
		switch {
		case src[k] == '\\' && k+1 < len(src) && src[k+1] == '\n':
			nl++
			k += 2
		case src[k] == '/' && k+1 < len(src) && src[k+1] == '*':
			e := bytes.Index(src[k+2:], []byte("*/"))
			if e < 0 {
				e = len(src) - k - 2
			}
			nl += int32(bytes.Count(src[k+2:k+2+e], []byte{'\n'}))
			k += 2 + e + 2
		default:
			k++
		}
	}
	return min(k, len(src)), nl, true
}

// op2 returns the kind of the two-byte operator c c1 (aArrow, aOp2), or 0
// when c starts none: "->", "==", "!=", "<=", ">=", "+=", "-=", "*=", "/=",
// "|=", "&=", "^=", "%=", "<<", ">>", "&&", "||", "++", "--".
func op2(c, c1 byte) byte {
	switch c {
	case '-':
		switch c1 {
		case '>':
			return aArrow
		case '=', '-':
			return aOp2
		}
	case '=', '!', '*', '/', '^', '%':
		if c1 == '=' {
			return aOp2
		}
	case '<', '>', '+', '&', '|':
		if c1 == '=' || c1 == c {
			return aOp2
		}
	}
	return 0
}

// isInitStart reports whether a token may precede a designator
// (".member = ..." starts an initializer element).
func isInitStart(t *atok) bool {
	return t.is('{') || t.is(',') || t.is(']') || t.is(')')
}

// declTag returns the struct tag that the declaration in tokens [a, b)
// names ("static const struct file_operations foo_fops" ->
// "file_operations") and whether it declares an array.
func (s *assignScanner) declTag(a, b int) (string, bool) {
	tag, array := "", false
	for i := a; i < b; i++ {
		t := s.at(i)
		if tag == "" && i+1 < b && t.kind == aIdent && string(s.src[t.start:t.end]) == "struct" {
			tag = s.text(s.at(i + 1))
		}
		if t.is('[') {
			array = true
		}
	}
	return tag, array
}

// designator reports whether tokens [a, b) are an array designator
// ("[IDX]", "[FIRST ... LAST]"), after the comma ending the element before.
func (s *assignScanner) designator(a, b int) bool {
	if a < b && s.isPunct(a, ',') {
		a++
	}
	return b-a >= 3 && s.isPunct(a, '[') && s.isPunct(b-1, ']')
}

// declName returns the name the declaration in tokens [a, b) declares:
// the first identifier after a struct tag that is not a qualifier or an
// annotation ("foo_nb" in "static struct notifier_block foo_nb
// __read_mostly"), else the last identifier outside brackets that is not
// an annotation ("chips" in "struct irq_chip chips[2]").
func (s *assignScanner) declName(a, b int) string {
	var last, any *atok
	depth, afterTag := 0, false
	for i := a; i < b; i++ {
		t := s.at(i)
		switch {
		case t.is('[') || t.is('('):
			depth++
		case t.is(']') || t.is(')'):
			depth--
		case depth == 0 && isIdentTok(t):
			w := s.text(t)
			if w == "struct" || w == "union" {
				if i+1 < b && isIdentTok(s.at(i+1)) {
					i++
					afterTag = true
				}
				continue
			}
			any = t
			if declQualifier(w) || strings.HasPrefix(w, "__") {
				continue
			}
			if afterTag {
				return w
			}
			last = t
		}
	}
	if last == nil {
		last = any
	}
	if last == nil {
		return ""
	}
	return s.text(last)
}

// declQualifier reports whether w is a word of a declaration that is not
// its name.
func declQualifier(w string) bool {
	switch w {
	case "static", "const", "volatile", "extern":
		return true
	}
	return false
}

// subscriptOpen returns the index of the '[' that the ']' at i closes,
// searching back to a; a-1 when there is none.
func (s *assignScanner) subscriptOpen(a, i int) int {
	depth := 0
	for k := i; k >= a; k-- {
		switch t := s.at(k); {
		case t.is(']'):
			depth++
		case t.is('['):
			if depth--; depth == 0 {
				return k
			}
		}
	}
	return a - 1
}

// baseExpr renders the expression in tokens [a, b) before an assigned
// member ("t->timer" for "t->timer.function = f;"), "" when it is not a
// plain member chain.
func (s *assignScanner) baseExpr(a, b int) string {
	n := 0
	for i := a; i < b; i++ {
		t := s.at(i)
		switch {
		case isIdentTok(t), t.kind == aArrow, t.is('.'), t.is('['), t.is(']'), t.is('*'), t.is('('), t.is(')'), t.is('&'):
		case t.kind == aLit, t.kind == aNum:
		default:
			return ""
		}
		n += len(s.word(t))
	}
	if n == 0 {
		return ""
	}
	buf := make([]byte, 0, n)
	for i := a; i < b; i++ {
		buf = append(buf, s.word(s.at(i))...)
	}
	return string(buf)
}

// plausibleFunc filters identifiers that are certainly not function
// names (macros in capitals, NULL, true/false).
func (s *assignScanner) plausibleFunc(t *atok) bool {
	w := s.word(t)
	switch string(w) {
	case "NULL", "true", "false":
		return false
	}
	for _, c := range w {
		if c >= 'a' && c <= 'z' {
			return true
		}
	}
	return false
}

// isIdentTok reports whether t starts like an identifier (a letter or
// '_'; numbers and literals do not).
func isIdentTok(t *atok) bool {
	return t.kind == aIdent
}
