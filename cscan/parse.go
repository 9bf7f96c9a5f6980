package cscan

import (
	"fmt"
	"strings"
)

// Limits that keep hostile or generated input from exhausting the scanner.
const (
	// MaxFileSize is the largest file ParseFile scans; larger files are
	// skipped with a reason.
	MaxFileSize = 16 << 20
	// maxFuncTokens bounds one function body.
	maxFuncTokens = 400000
	// maxNesting bounds statement nesting.
	maxNesting = 256
)

// ParseFile scans one C source or header file. It never fails: functions it
// cannot handle are listed in File.Skipped with a reason.
func ParseFile(path string, src []byte) *File {
	return parseFile(path, src, 1, true)
}

// ParseFileFrom is ParseFile on part of a file: src holds its text from
// the start of line line (1-based) on, and every line number of the result
// is the file's. A function is scanned as in the whole file when the part
// starts where the lexer's state is the initial one (outside comments,
// directives and open #if groups): from the line of the closing brace of
// the function before it, say; callers that cannot be sure compare the
// result with a scan of the whole file.
func ParseFileFrom(path string, src []byte, line int) *File {
	return parseFile(path, src, max(line, 1), true)
}

// ScanFile is ParseFile without statement trees (every Func.Body is nil):
// cheaper, for indexing a whole tree.
func ScanFile(path string, src []byte) *File {
	return parseFile(path, src, 1, false)
}

func parseFile(path string, src []byte, line int, bodies bool) *File {
	f := &File{Path: path}
	if len(src) > MaxFileSize {
		f.Skipped = append(f.Skipped, Skip{Line: line, Reason: fmt.Sprintf("file too large (%d bytes > %d)", len(src), MaxFileSize)})
		return f
	}
	sc := getScratch()
	defer putScratch(sc)
	toks, truncated := lex(src, sc.toks, line)
	sc.toks = toks
	if truncated {
		f.Skipped = append(f.Skipped, Skip{Line: int(toks[len(toks)-1].line), Reason: "too many tokens: rest of file not scanned"})
	}
	sc.pair, sc.stack = pairs(toks, sc.pair, sc.stack)
	s := &scanner{scratch: sc, src: src, toks: toks, pair: sc.pair, path: path, noBodies: !bodies}
	s.topLevel(f)
	return f
}

// ParseBody scans the text of one function, which may be partial: only the
// lines a patch's hunks show, with gaps. lines[i] is the file line number of
// line i of text (nil means line i+1). Unbalanced braces at the edges are
// tolerated. When the text holds the function's header, Name, Start and
// BodyStart are set; otherwise the whole text is treated as body statements.
func ParseBody(text string, lines []int) *Func {
	src := []byte(text)
	sc := getScratch()
	defer putScratch(sc)
	toks, _ := lex(src, sc.toks, 1)
	sc.toks = toks
	sc.pair, sc.stack = pairs(toks, sc.pair, sc.stack)
	s := &scanner{scratch: sc, src: src, toks: toks, pair: sc.pair, lines: lines}
	fn := &Func{}
	var p *parser
	defer func() {
		if r := recover(); r != nil {
			fn.Body = &Block{}
			fn.Calls, fn.Returns = nil, nil
			return
		}
		p.finish()
	}()
	// Look for the function header: the first top-level '{' that follows a
	// function declarator.
	declStart := 0
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		if t.kind != tokPunct {
			continue
		}
		switch t.op {
		case ';', '}':
			declStart = i + 1
		case '(':
			i = s.match(i, len(toks)) - 1
		case '{':
			// In a fragment, "scoped_guard(x) {" or "list_for_each(...) {"
			// look like declarators: a definition needs a return type
			// (or is a SYSCALL_DEFINE-style macro).
			if name, ni := s.funcName(declStart, i); name != "" && (ni > declStart || isUpperIdent(name)) {
				s.fillHeader(fn, name, declStart, ni, i)
				p = &parser{s: s, fn: fn, end: len(toks), i: i}
				fn.Body = p.block()
				fn.End = fn.Body.EndLine
				return fn
			}
			i = len(toks)
		}
	}
	p = &parser{s: s, fn: fn, end: len(toks)}
	b := &Block{}
	if len(toks) > 0 {
		b.Line = s.line(0)
	}
	for p.i < p.end {
		if s.isOp(p.i, '}') {
			b.EndLine = s.line(p.i)
			p.i++
			continue
		}
		if st := p.stmt(); st != nil {
			b.Stmts = append(b.Stmts, st)
		}
	}
	fn.Body = b
	if len(toks) > 0 {
		fn.BodyStart = s.line(0)
		fn.End = s.line(len(toks) - 1)
	}
	return fn
}

// scanner holds one token stream and its source.
type scanner struct {
	src  []byte
	toks []token
	// pair maps an opening bracket to its closing one (see pairs).
	pair  []int32
	path  string
	lines []int
	// noBodies skips building statement trees (calls are still collected).
	noBodies bool
	// scratch holds the slices a function's calls and returns are gathered
	// in (copied out at their final size by parser.finish) and the buffer
	// span assembles texts in.
	*scratch
}

func (s *scanner) text(i int) string {
	t := s.toks[i]
	return string(s.src[t.start:t.end])
}

// word returns the text of token i without copying it.
func (s *scanner) word(i int) []byte {
	t := s.toks[i]
	return s.src[t.start:t.end]
}

// is reports whether token i is exactly w (no allocation).
func (s *scanner) is(i int, w string) bool {
	if i < 0 || i >= len(s.toks) {
		return false
	}
	t := s.toks[i]
	return int(t.end-t.start) == len(w) && string(s.src[t.start:t.end]) == w
}

// isOp reports whether token i is the punctuator with op code op (a
// one-character punctuator's character, or opArrow, opInc, opDec).
func (s *scanner) isOp(i int, op byte) bool {
	return i >= 0 && i < len(s.toks) && s.toks[i].op == op
}

// isMember reports whether token i is "->" or ".".
func (s *scanner) isMember(i int) bool {
	if i < 0 || i >= len(s.toks) {
		return false
	}
	op := s.toks[i].op
	return op == opArrow || op == '.'
}

func (s *scanner) isIdent(i int) bool {
	return i >= 0 && i < len(s.toks) && s.toks[i].kind == tokIdent
}

func (s *scanner) line(i int) int {
	if i >= len(s.toks) {
		i = len(s.toks) - 1
	}
	if i < 0 {
		return 0
	}
	l := int(s.toks[i].line)
	if s.lines != nil {
		if l-1 < len(s.lines) && l >= 1 {
			return s.lines[l-1]
		}
		if len(s.lines) > 0 {
			return s.lines[len(s.lines)-1]
		}
	}
	return l
}

// span renders tokens [a,b) with whitespace normalised: one space where the
// source had any gap (whitespace, comments, line breaks).
func (s *scanner) span(a, b int) string {
	if a >= b {
		return ""
	}
	toks := s.toks[a:b]
	gap := false
	for k := 1; k < len(toks); k++ {
		if toks[k].start > toks[k-1].end {
			gap = true
			break
		}
	}
	if !gap {
		// The tokens are contiguous in the source (the usual case for an
		// argument): their text is one slice of it.
		return string(s.src[toks[0].start:toks[len(toks)-1].end])
	}
	buf := s.buf[:0]
	for k, t := range toks {
		if k > 0 && t.start > toks[k-1].end {
			buf = append(buf, ' ')
		}
		buf = append(buf, s.src[t.start:t.end]...)
	}
	s.buf = buf
	return string(buf)
}

// match returns the index just past the bracket closing the one at i
// (or end when unbalanced).
func (s *scanner) match(i, end int) int {
	if i >= 0 && i < len(s.toks) {
		switch s.toks[i].op {
		case '(', '[', '{':
			if c := int(s.pair[i]); c >= 0 && c < end {
				return c + 1
			}
			return end
		}
	}
	depth := 0
	for k := i; k < end; k++ {
		if s.toks[k].kind != tokPunct || s.toks[k].end-s.toks[k].start != 1 {
			continue
		}
		switch s.src[s.toks[k].start] {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
			if depth == 0 {
				return k + 1
			}
		}
	}
	return end
}

// isAttrName reports whether w is a macro that may follow or precede a
// declarator with a parenthesised argument but is not the function's name.
func isAttrName(w []byte) bool {
	switch string(w) {
	case "__attribute__", "__attribute", "__printf", "__scanf",
		"__acquires", "__releases", "__must_hold", "__aligned",
		"__section", "__alloc_size", "__cond_acquires", "__cond_releases",
		"__diagnose_as", "__malloc", "__nocapture", "__no_sanitize_address",
		"__counted_by", "__realloc_size", "__assume_aligned", "__weak",
		"__visible", "__used", "__noreturn", "__no_kcsan",
		"asmlinkage", "__asm__", "asm", "__asm":
		return true
	}
	return false
}

// isNotCall reports whether w is an identifier that is followed by '(' but
// is not a call (keywords and operators).
func isNotCall(w []byte) bool {
	switch string(w) {
	case "if", "while", "for", "switch", "return",
		"sizeof", "typeof", "__typeof__", "__typeof",
		"alignof", "_Alignof", "__alignof__", "_Generic",
		"asm", "__asm__", "__asm", "volatile", "__volatile__",
		"defined", "__attribute__", "__attribute", "case",
		"_Static_assert", "static_assert", "do", "else",
		// A declarator of a function pointer: void (*cb)(int).
		"void", "char", "short", "int", "long", "float", "double", "signed", "unsigned", "_Bool":
		return true
	}
	return false
}

// funcName decides whether tokens [ds, brace) form a function declarator
// and returns its name token's text and index.
func (s *scanner) funcName(ds, brace int) (string, int) {
	if brace-ds < 3 || !s.isOp(brace-1, ')') {
		return "", -1
	}
	if s.is(ds, "typedef") || s.is(ds, "struct") && brace-ds <= 3 {
		return "", -1
	}
	ni := -1
	for k := ds; k < brace; k++ {
		t := s.toks[k]
		if t.kind == tokPunct {
			switch t.op {
			case '=':
				return "", -1
			case '(', '[':
				k = s.match(k, brace) - 1
			}
			continue
		}
		if t.kind != tokIdent || !s.isOp(k+1, '(') {
			if t.kind == tokString {
				return "", -1
			}
			continue
		}
		w := s.word(k)
		if isNotCall(w) || isAttrName(w) {
			continue
		}
		if ni < 0 || !(len(w) >= 2 && w[0] == '_' && w[1] == '_') || isUpperIdent(s.word(ni)) {
			ni = k
		}
	}
	if ni < 0 {
		return "", -1
	}
	return s.text(ni), ni
}

// isUpperIdent reports whether w has no lower-case letter (a macro name).
func isUpperIdent[T string | []byte](w T) bool {
	for i := 0; i < len(w); i++ {
		c := w[i]
		if c >= 'a' && c <= 'z' {
			return false
		}
	}
	return true
}

// fillHeader sets the header fields of fn for the declarator [ds, brace).
func (s *scanner) fillHeader(fn *Func, name string, ds, ni, brace int) {
	fn.Name = name
	fn.File = s.path
	fn.Start = s.line(ni)
	fn.BodyStart = s.line(brace)
	for k := ds; k < ni; k++ {
		switch string(s.word(k)) {
		case "static":
			fn.Static = true
		case "inline", "__inline", "__inline__", "__always_inline":
			fn.Inline = true
		}
	}
	if isUpperIdent(name) && strings.ContainsAny(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") {
		args := s.args(ni+1, brace)
		fn.Macro = name
		first := ""
		if len(args) > 0 {
			first = args[0]
		}
		switch {
		case strings.HasPrefix(name, "COMPAT_SYSCALL_DEFINE") && first != "":
			fn.Name = "compat_sys_" + first
		case strings.HasPrefix(name, "SYSCALL_DEFINE") && first != "":
			fn.Name = "sys_" + first
		case strings.HasPrefix(name, "BPF_CALL_") && first != "":
			fn.Name = first
		}
	}
}

// args splits the parenthesised group opening at i into top-level
// comma-separated argument texts.
func (s *scanner) args(i, end int) []string {
	if !s.isOp(i, '(') {
		return nil
	}
	close := s.match(i, end) - 1
	// First count the top-level commas, then cut: the slice is allocated
	// once, at its final size.
	commas := 0
	s.eachComma(i+1, close, func(int) { commas++ })
	if commas == 0 {
		if i+1 < close {
			return []string{s.span(i+1, close)}
		}
		return nil
	}
	out := make([]string, 0, commas+1)
	st := i + 1
	s.eachComma(i+1, close, func(k int) {
		out = append(out, s.span(st, k))
		st = k + 1
	})
	return append(out, s.span(st, close))
}

// eachComma calls fn with the index of each comma in tokens [a, b) that is
// outside brackets opened in that range.
func (s *scanner) eachComma(a, b int, fn func(k int)) {
	toks := s.toks
	for k := a; k < b; k++ {
		switch toks[k].op {
		case '(', '[', '{':
			c := int(s.pair[k])
			if c < 0 || c >= b {
				// Never closed in range: no comma after it is at the
				// top level.
				return
			}
			k = c
		case ',':
			fn(k)
		}
	}
}

// topLevel finds the function definitions of a whole file.
func (s *scanner) topLevel(f *File) {
	toks := s.toks
	declStart := 0
	for i := 0; i < len(toks); i++ {
		switch toks[i].op {
		case ';', '}':
			declStart = i + 1
		case '(', '[':
			i = s.match(i, len(toks)) - 1
		case '{':
			end := s.match(i, len(toks))
			if name, ni := s.funcName(declStart, i); name != "" {
				if fn, skip := s.parseFunc(name, declStart, ni, i, end); fn != nil {
					f.Funcs = append(f.Funcs, fn)
				} else {
					f.Skipped = append(f.Skipped, skip)
				}
				declStart = end
			}
			i = end - 1
		}
	}
}

// parseFunc parses one function whose body spans tokens [brace, end).
func (s *scanner) parseFunc(name string, ds, ni, brace, end int) (fn *Func, skip Skip) {
	fn = &Func{}
	s.fillHeader(fn, name, ds, ni, brace)
	if end-brace > maxFuncTokens {
		return nil, Skip{Name: fn.Name, Line: fn.Start, Reason: fmt.Sprintf("function body too large (%d tokens)", end-brace)}
	}
	defer func() {
		if r := recover(); r != nil {
			fn = nil
			skip = Skip{Name: name, Line: s.line(ni), Reason: fmt.Sprint("cannot parse body: ", r)}
		}
	}()
	s.calls, s.returns = s.calls[:0], s.returns[:0]
	p := &parser{s: s, fn: fn, i: brace, end: end}
	fn.Body = p.block()
	fn.End = s.line(end - 1)
	if s.noBodies {
		fn.Body = nil
	}
	p.finish()
	return fn, Skip{}
}

// parser builds the statement tree of one body. The function's calls and
// returns are gathered in the scanner's scratch slices (reset here) and
// stored in fn by finish.
type parser struct {
	s      *scanner
	fn     *Func
	i, end int
	// guards is the current enclosing-construct stack; it is never
	// modified in place (calls share it).
	guards []Guard
	nest   int
}

type tooDeep struct{}

func (tooDeep) String() string { return "statements nested too deeply" }

// addCall records a call of the function.
func (p *parser) addCall(c Call) {
	p.s.calls = append(p.s.calls, c)
}

// finish stores the calls and returns gathered for the function in it, at
// their final size, and empties the scratch slices.
func (p *parser) finish() {
	s := p.s
	if len(s.calls) > 0 {
		p.fn.Calls = append(p.fn.Calls[:len(p.fn.Calls):len(p.fn.Calls)], s.calls...)
	}
	if len(s.returns) > 0 {
		p.fn.Returns = append(p.fn.Returns[:len(p.fn.Returns):len(p.fn.Returns)], s.returns...)
	}
	s.calls, s.returns = s.calls[:0], s.returns[:0]
}

func (p *parser) push(g Guard) {
	n := len(p.guards)
	ng := make([]Guard, n+1)
	copy(ng, p.guards)
	ng[n] = g
	p.guards = ng
}

func (p *parser) pop() {
	n := len(p.guards)
	if n > 0 {
		p.guards = p.guards[: n-1 : n-1]
	}
}

// block parses the block whose '{' is at p.i; without bodies (ScanFile)
// it returns nil.
func (p *parser) block() *Block {
	s := p.s
	var b *Block
	if !s.noBodies {
		b = &Block{Line: s.line(p.i)}
	}
	p.i++
	p.nest++
	if p.nest > maxNesting {
		panic(tooDeep{})
	}
	casePushed := false
	for p.i < p.end && !s.isOp(p.i, '}') {
		st := p.stmt()
		if st == nil {
			continue
		}
		if c, ok := st.(*CaseStmt); ok {
			if casePushed {
				p.pop()
			}
			p.push(Guard{Kind: "case", Cond: c.Label, Line: c.Line})
			casePushed = true
		}
		if b != nil {
			b.Stmts = append(b.Stmts, st)
		}
	}
	if casePushed {
		p.pop()
	}
	if p.i < p.end {
		if b != nil {
			b.EndLine = s.line(p.i)
		}
		p.i++
	}
	p.nest--
	return b
}

// paren parses a parenthesised condition at p.i and returns its text and
// calls (recorded in the function with the current guards).
func (p *parser) paren() (string, []Call) {
	s := p.s
	if !s.isOp(p.i, '(') {
		return "", nil
	}
	close := s.match(p.i, p.end)
	text := s.span(p.i+1, close-1)
	calls := p.calls(p.i+1, close-1)
	p.i = close
	return text, calls
}

// body parses the statement controlled by a construct, under guard g.
func (p *parser) body(g Guard) Stmt {
	p.push(g)
	defer p.pop()
	if p.i >= p.end || p.s.isOp(p.i, '}') {
		return nil
	}
	return p.stmt()
}

// stmt parses one statement. Without bodies (ScanFile) it returns nil for
// everything but case labels, which block needs for the guards.
func (p *parser) stmt() Stmt {
	s := p.s
	i := p.i
	if i >= p.end {
		return nil
	}
	line := s.line(i)
	t := s.toks[i]
	if t.kind == tokPunct {
		switch t.op {
		case '{':
			b := p.block()
			if s.noBodies {
				return nil
			}
			return b
		case ';':
			p.i++
			return nil
		case '}':
			// Stray close (partial text): let the caller deal with it.
			p.i++
			return nil
		}
		return p.expr()
	}
	if t.kind != tokIdent {
		return p.expr()
	}
	switch string(s.word(i)) {
	case "if":
		p.i++
		cond, cc := p.paren()
		then := p.body(Guard{Kind: "if", Cond: cond, Line: line})
		var els Stmt
		elseLine := 0
		if s.is(p.i, "else") {
			elseLine = s.line(p.i)
			p.i++
			els = p.body(Guard{Kind: "else", Line: elseLine})
		}
		if s.noBodies {
			return nil
		}
		return &IfStmt{Line: line, Cond: cond, CondCalls: cc, Then: then, Else: els, ElseLine: elseLine}
	case "for", "while":
		p.i++
		cond, cc := p.paren()
		body := p.body(Guard{Kind: "loop", Cond: cond, Line: line})
		if s.noBodies {
			return nil
		}
		return &LoopStmt{Line: line, Kind: s.text(i), Cond: cond, CondCalls: cc, Body: body}
	case "do":
		p.i++
		p.push(Guard{Kind: "loop", Line: line})
		body := p.stmtOrNil()
		var cond string
		var cc []Call
		if s.is(p.i, "while") {
			p.i++
			cond, cc = p.paren()
			p.guards[len(p.guards)-1].Cond = cond
		}
		p.pop()
		if s.isOp(p.i, ';') {
			p.i++
		}
		if s.noBodies {
			return nil
		}
		return &LoopStmt{Line: line, Kind: "do", Body: body, Cond: cond, CondCalls: cc}
	case "switch":
		p.i++
		cond, cc := p.paren()
		body := p.body(Guard{Kind: "switch", Cond: cond, Line: line})
		if s.noBodies {
			return nil
		}
		return &SwitchStmt{Line: line, Cond: cond, CondCalls: cc, Body: body}
	case "case":
		k := p.i + 1
		depth := 0
	label:
		for ; k < p.end; k++ {
			switch s.toks[k].op {
			case '(', '[':
				depth++
			case ')', ']':
				depth--
			case ':':
				if depth <= 0 {
					break label
				}
			case ';', '{', '}':
				break label
			}
		}
		st := &CaseStmt{Line: line, Label: s.span(p.i+1, k)}
		p.i = k
		if s.isOp(p.i, ':') {
			p.i++
		}
		return st
	case "default":
		if s.isOp(i+1, ':') {
			p.i += 2
			return &CaseStmt{Line: line, Label: "default"}
		}
	case "return":
		end := p.stmtEnd(i + 1)
		expr := s.span(i+1, end)
		calls := p.calls(i+1, end)
		s.returns = append(s.returns, Return{Line: line, Expr: expr, Guards: p.guards})
		p.i = end
		if s.isOp(p.i, ';') {
			p.i++
		}
		if s.noBodies {
			return nil
		}
		return &ReturnStmt{Line: line, Expr: expr, Calls: calls}
	case "goto":
		p.i = p.stmtEnd(i + 1)
		if s.isOp(p.i, ';') {
			p.i++
		}
		if s.noBodies {
			return nil
		}
		st := &GotoStmt{Line: line}
		if s.isIdent(i + 1) {
			st.Label = s.text(i + 1)
		}
		return st
	case "break", "continue":
		p.i = p.stmtEnd(i + 1)
		if s.isOp(p.i, ';') {
			p.i++
		}
		if s.noBodies {
			return nil
		}
		if s.is(i, "break") {
			return &BreakStmt{Line: line}
		}
		return &ContinueStmt{Line: line}
	case "else":
		// Dangling else (partial text).
		p.i++
		return p.body(Guard{Kind: "else", Line: line})
	}
	// label:
	if s.isOp(i+1, ':') && !s.isOp(i+2, ':') {
		p.i += 2
		if s.noBodies {
			return nil
		}
		return &LabelStmt{Line: line, Label: s.text(i)}
	}
	// scoped_guard(...) stmt and loop-like macros: IDENT(...) followed by a
	// statement rather than ';' or an operator.
	if s.isOp(i+1, '(') && !isNotCall(s.word(i)) {
		close := s.match(i+1, p.end)
		if close < p.end && p.startsStmt(close) {
			name := s.text(i)
			args := s.args(i+1, p.end)
			call := Call{Name: name, Args: args, Line: line, Guards: p.guards}
			p.addCall(call)
			inner := p.calls(i+2, close-1)
			p.i = close
			if name == "scoped_guard" {
				cond := strings.Join(args, ", ")
				body := p.body(Guard{Kind: "scoped_guard", Cond: cond, Line: line})
				if s.noBodies {
					return nil
				}
				return &ScopedGuardStmt{Line: line, Args: args, Call: call, Body: body}
			}
			cond := strings.Join(args, ", ")
			body := p.body(Guard{Kind: "loop", Cond: name + "(" + cond + ")", Line: line})
			if s.noBodies {
				return nil
			}
			return &LoopStmt{Line: line, Kind: "macro", Macro: name, Cond: cond, CondCalls: append([]Call{call}, inner...), Body: body}
		}
	}
	return p.expr()
}

// startsStmt reports whether token k begins a statement body (used after a
// macro's closing parenthesis).
func (p *parser) startsStmt(k int) bool {
	s := p.s
	if s.isOp(k, '{') {
		return true
	}
	if !s.isIdent(k) {
		return false
	}
	// IDENT(...) IDENT: could be a declaration with a macro type, such as
	// "DECLARE_BITMAP(x, 3) foo"; rare in bodies. Treat keywords and calls
	// as statements.
	switch string(s.word(k)) {
	case "if", "for", "while", "do", "switch", "return", "goto", "break", "continue":
		return true
	}
	if k+1 >= len(s.toks) {
		return false
	}
	switch s.toks[k+1].op {
	case '(', '=', opArrow, '.', opInc, opDec:
		return true
	}
	return false
}

func (p *parser) stmtOrNil() Stmt {
	if p.i >= p.end || p.s.isOp(p.i, '}') {
		return nil
	}
	return p.stmt()
}

// stmtEnd returns the index of the ';' ending the statement that starts at
// i, or of the '}' closing the enclosing block when the ';' is missing.
func (p *parser) stmtEnd(i int) int {
	s := p.s
	toks := s.toks
	for k := i; k < p.end; k++ {
		switch toks[k].op {
		case '(', '[', '{':
			// Skip the group; one never closed before the end hides every
			// later ';' and '}'.
			c := int(s.pair[k])
			if c < 0 || c >= p.end {
				return p.end
			}
			k = c
		case '}', ';':
			return k
		}
	}
	return p.end
}

func (p *parser) expr() Stmt {
	s := p.s
	i := p.i
	end := p.stmtEnd(i)
	if end == i {
		p.i++
		return nil
	}
	calls := p.calls(i, end)
	p.i = end
	if s.isOp(p.i, ';') {
		p.i++
	}
	if s.noBodies {
		return nil
	}
	return &ExprStmt{Line: s.line(i), Text: s.span(i, end), Calls: calls}
}

// calls collects the calls in tokens [a, b), outer before inner, records
// them in the function and returns them (nil without bodies: only the
// statement tree keeps them).
func (p *parser) calls(a, b int) []Call {
	s := p.s
	toks := s.toks
	var out []Call
	for k := a; k < b; k++ {
		if !s.isOp(k+1, '(') {
			continue
		}
		var name string
		switch {
		case toks[k].kind != tokIdent:
			// Through a table or a dereferenced pointer (callee.go).
			if name = s.pointerCallee(k, a); name == "" {
				continue
			}
		case isNotCall(s.word(k)):
			continue
		default:
			// Member calls: ops->release(...), a.b->fn(...),
			// tbl[i].fn(...).
			j := s.chainStart(k, a)
			switch {
			case j != k:
				name = s.chainText(j, k+1)
			case s.isMember(k - 1):
				name = string(s.word(k-1)) + string(s.word(k))
			default:
				name = s.text(k)
			}
		}
		args := s.args(k+1, b)
		if name == "guard" {
			if close := s.match(k+1, b); s.isOp(close, '(') {
				args = append(args, s.args(close, b)...)
			}
		}
		c := Call{Name: name, Args: args, Line: s.line(k), Guards: p.guards}
		if !s.noBodies {
			out = append(out, c)
		}
		p.addCall(c)
	}
	return out
}
