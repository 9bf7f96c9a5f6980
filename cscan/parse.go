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
	return parseFile(path, src, true)
}

// ScanFile is ParseFile without statement trees (every Func.Body is nil):
// cheaper, for indexing a whole tree.
func ScanFile(path string, src []byte) *File {
	return parseFile(path, src, false)
}

func parseFile(path string, src []byte, bodies bool) *File {
	f := &File{Path: path}
	if len(src) > MaxFileSize {
		f.Skipped = append(f.Skipped, Skip{Line: 1, Reason: fmt.Sprintf("file too large (%d bytes > %d)", len(src), MaxFileSize)})
		return f
	}
	toks, truncated := lex(src)
	if truncated {
		f.Skipped = append(f.Skipped, Skip{Line: int(toks[len(toks)-1].line), Reason: "too many tokens: rest of file not scanned"})
	}
	s := &scanner{src: src, toks: toks, path: path, noBodies: !bodies}
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
	toks, _ := lex(src)
	s := &scanner{src: src, toks: toks, lines: lines}
	fn := &Func{}
	defer func() {
		if r := recover(); r != nil {
			fn.Body = &Block{}
			fn.Calls, fn.Returns = nil, nil
		}
	}()
	// Look for the function header: the first top-level '{' that follows a
	// function declarator.
	declStart := 0
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		if t.kind != tokPunct {
			continue
		}
		switch s.text(i) {
		case ";", "}":
			declStart = i + 1
		case "(":
			i = s.match(i, len(toks)) - 1
		case "{":
			// In a fragment, "scoped_guard(x) {" or "list_for_each(...) {"
			// look like declarators: a definition needs a return type
			// (or is a SYSCALL_DEFINE-style macro).
			if name, ni := s.funcName(declStart, i); name != "" && (ni > declStart || isUpperIdent(name)) {
				s.fillHeader(fn, name, declStart, ni, i)
				p := &parser{s: s, fn: fn, end: len(toks), i: i}
				fn.Body = p.block()
				fn.End = fn.Body.EndLine
				return fn
			}
			i = len(toks)
		}
	}
	p := &parser{s: s, fn: fn, end: len(toks)}
	b := &Block{}
	if len(toks) > 0 {
		b.Line = s.line(0)
	}
	for p.i < p.end {
		if s.isPunct(p.i, "}") {
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
	src   []byte
	toks  []token
	path  string
	lines []int
	// noBodies skips building statement trees (calls are still collected).
	noBodies bool
}

func (s *scanner) text(i int) string {
	t := s.toks[i]
	return string(s.src[t.start:t.end])
}

// is reports whether token i is exactly w (no allocation).
func (s *scanner) is(i int, w string) bool {
	if i < 0 || i >= len(s.toks) {
		return false
	}
	t := s.toks[i]
	return int(t.end-t.start) == len(w) && string(s.src[t.start:t.end]) == w
}

func (s *scanner) isPunct(i int, w string) bool {
	return i >= 0 && i < len(s.toks) && s.toks[i].kind == tokPunct && s.is(i, w)
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
	var sb strings.Builder
	sb.Grow(int(s.toks[b-1].end - s.toks[a].start))
	for k := a; k < b; k++ {
		t := s.toks[k]
		if k > a && t.start > s.toks[k-1].end {
			sb.WriteByte(' ')
		}
		sb.Write(s.src[t.start:t.end])
	}
	return sb.String()
}

// match returns the index just past the bracket closing the one at i
// (or end when unbalanced).
func (s *scanner) match(i, end int) int {
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

// attrNames are macros that may follow or precede a declarator with a
// parenthesised argument but are not the function's name.
var attrNames = map[string]bool{
	"__attribute__": true, "__attribute": true, "__printf": true, "__scanf": true,
	"__acquires": true, "__releases": true, "__must_hold": true, "__aligned": true,
	"__section": true, "__alloc_size": true, "__cond_acquires": true, "__cond_releases": true,
	"__diagnose_as": true, "__malloc": true, "__nocapture": true, "__no_sanitize_address": true,
	"__counted_by": true, "__realloc_size": true, "__assume_aligned": true, "__weak": true,
	"__visible": true, "__used": true, "__noreturn": true, "__no_kcsan": true,
	"asmlinkage": true, "__asm__": true, "asm": true, "__asm": true,
}

// notCalls are identifiers followed by '(' that are not calls.
var notCalls = map[string]bool{
	"if": true, "while": true, "for": true, "switch": true, "return": true,
	"sizeof": true, "typeof": true, "__typeof__": true, "__typeof": true,
	"alignof": true, "_Alignof": true, "__alignof__": true, "_Generic": true,
	"asm": true, "__asm__": true, "__asm": true, "volatile": true, "__volatile__": true,
	"defined": true, "__attribute__": true, "__attribute": true, "case": true,
	"_Static_assert": true, "static_assert": true, "do": true, "else": true,
}

// funcName decides whether tokens [ds, brace) form a function declarator
// and returns its name token's text and index.
func (s *scanner) funcName(ds, brace int) (string, int) {
	if brace-ds < 3 || !s.isPunct(brace-1, ")") {
		return "", -1
	}
	if s.is(ds, "typedef") || s.is(ds, "struct") && brace-ds <= 3 {
		return "", -1
	}
	name, ni := "", -1
	for k := ds; k < brace; k++ {
		t := s.toks[k]
		if t.kind == tokPunct {
			switch s.text(k) {
			case "=":
				return "", -1
			case "(", "[":
				k = s.match(k, brace) - 1
			}
			continue
		}
		if t.kind != tokIdent || !s.isPunct(k+1, "(") {
			if t.kind == tokString {
				return "", -1
			}
			continue
		}
		w := s.text(k)
		if notCalls[w] || attrNames[w] {
			continue
		}
		if name == "" || !strings.HasPrefix(w, "__") || isUpperIdent(name) {
			name, ni = w, k
		}
	}
	if name == "" || notCalls[name] {
		return "", -1
	}
	return name, ni
}

func isUpperIdent(w string) bool {
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
		switch s.text(k) {
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
	if !s.isPunct(i, "(") {
		return nil
	}
	close := s.match(i, end) - 1
	var out []string
	depth := 0
	st := i + 1
	for k := i + 1; k < close; k++ {
		if s.toks[k].kind != tokPunct || s.toks[k].end-s.toks[k].start != 1 {
			continue
		}
		switch s.src[s.toks[k].start] {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, s.span(st, k))
				st = k + 1
			}
		}
	}
	if st < close || len(out) > 0 {
		out = append(out, s.span(st, close))
	}
	return out
}

// topLevel finds the function definitions of a whole file.
func (s *scanner) topLevel(f *File) {
	toks := s.toks
	declStart := 0
	for i := 0; i < len(toks); i++ {
		if toks[i].kind != tokPunct || toks[i].end-toks[i].start != 1 {
			continue
		}
		switch s.src[toks[i].start] {
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
	p := &parser{s: s, fn: fn, i: brace, end: end}
	fn.Body = p.block()
	fn.End = s.line(end - 1)
	if s.noBodies {
		fn.Body = nil
	}
	return fn, Skip{}
}

// parser builds the statement tree of one body.
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

func (p *parser) block() *Block {
	s := p.s
	b := &Block{Line: s.line(p.i)}
	p.i++
	p.nest++
	if p.nest > maxNesting {
		panic(tooDeep{})
	}
	casePushed := false
	for p.i < p.end && !s.isPunct(p.i, "}") {
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
		if !s.noBodies {
			b.Stmts = append(b.Stmts, st)
		}
	}
	if casePushed {
		p.pop()
	}
	if p.i < p.end {
		b.EndLine = s.line(p.i)
		p.i++
	}
	p.nest--
	return b
}

// paren parses a parenthesised condition at p.i and returns its text and
// calls (recorded in the function with the current guards).
func (p *parser) paren() (string, []Call) {
	s := p.s
	if !s.isPunct(p.i, "(") {
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
	if p.i >= p.end || p.s.isPunct(p.i, "}") {
		return nil
	}
	return p.stmt()
}

func (p *parser) stmt() Stmt {
	s := p.s
	i := p.i
	if i >= p.end {
		return nil
	}
	line := s.line(i)
	t := s.toks[i]
	if t.kind == tokPunct {
		switch s.text(i) {
		case "{":
			return p.block()
		case ";":
			p.i++
			return nil
		case "}":
			// Stray close (partial text): let the caller deal with it.
			p.i++
			return nil
		}
		return p.expr()
	}
	if t.kind != tokIdent {
		return p.expr()
	}
	switch s.text(i) {
	case "if":
		p.i++
		cond, cc := p.paren()
		st := &IfStmt{Line: line, Cond: cond, CondCalls: cc}
		st.Then = p.body(Guard{Kind: "if", Cond: cond, Line: line})
		if s.is(p.i, "else") {
			st.ElseLine = s.line(p.i)
			p.i++
			st.Else = p.body(Guard{Kind: "else", Line: st.ElseLine})
		}
		return st
	case "for", "while":
		p.i++
		cond, cc := p.paren()
		st := &LoopStmt{Line: line, Kind: s.text(i), Cond: cond, CondCalls: cc}
		st.Body = p.body(Guard{Kind: "loop", Cond: cond, Line: line})
		return st
	case "do":
		p.i++
		st := &LoopStmt{Line: line, Kind: "do"}
		p.push(Guard{Kind: "loop", Line: line})
		st.Body = p.stmtOrNil()
		if s.is(p.i, "while") {
			p.i++
			st.Cond, st.CondCalls = p.paren()
			p.guards[len(p.guards)-1].Cond = st.Cond
		}
		p.pop()
		if s.isPunct(p.i, ";") {
			p.i++
		}
		return st
	case "switch":
		p.i++
		cond, cc := p.paren()
		st := &SwitchStmt{Line: line, Cond: cond, CondCalls: cc}
		st.Body = p.body(Guard{Kind: "switch", Cond: cond, Line: line})
		return st
	case "case":
		k := p.i + 1
		depth := 0
		for ; k < p.end; k++ {
			if s.toks[k].kind != tokPunct {
				continue
			}
			w := s.text(k)
			if w == "(" || w == "[" {
				depth++
			} else if w == ")" || w == "]" {
				depth--
			} else if w == ":" && depth <= 0 {
				break
			} else if w == ";" || w == "{" || w == "}" {
				break
			}
		}
		st := &CaseStmt{Line: line, Label: s.span(p.i+1, k)}
		p.i = k
		if s.isPunct(p.i, ":") {
			p.i++
		}
		return st
	case "default":
		if s.isPunct(i+1, ":") {
			p.i += 2
			return &CaseStmt{Line: line, Label: "default"}
		}
	case "return":
		end := p.stmtEnd(i + 1)
		st := &ReturnStmt{Line: line, Expr: s.span(i+1, end)}
		st.Calls = p.calls(i+1, end)
		p.fn.Returns = append(p.fn.Returns, Return{Line: line, Expr: st.Expr, Guards: p.guards})
		p.i = end
		if s.isPunct(p.i, ";") {
			p.i++
		}
		return st
	case "goto":
		st := &GotoStmt{Line: line}
		if s.isIdent(i + 1) {
			st.Label = s.text(i + 1)
		}
		p.i = p.stmtEnd(i + 1)
		if s.isPunct(p.i, ";") {
			p.i++
		}
		return st
	case "break", "continue":
		p.i = p.stmtEnd(i + 1)
		if s.isPunct(p.i, ";") {
			p.i++
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
	if s.isPunct(i+1, ":") && !s.isPunct(i+2, ":") {
		p.i += 2
		return &LabelStmt{Line: line, Label: s.text(i)}
	}
	// scoped_guard(...) stmt and loop-like macros: IDENT(...) followed by a
	// statement rather than ';' or an operator.
	if s.isPunct(i+1, "(") && !notCalls[s.text(i)] {
		close := s.match(i+1, p.end)
		if close < p.end && p.startsStmt(close) {
			name := s.text(i)
			args := s.args(i+1, p.end)
			call := Call{Name: name, Args: args, Line: line, Guards: p.guards}
			p.fn.Calls = append(p.fn.Calls, call)
			inner := p.calls(i+2, close-1)
			p.i = close
			if name == "scoped_guard" {
				st := &ScopedGuardStmt{Line: line, Args: args, Call: call}
				st.Body = p.body(Guard{Kind: "scoped_guard", Cond: strings.Join(args, ", "), Line: line})
				return st
			}
			st := &LoopStmt{Line: line, Kind: "macro", Macro: name, Cond: strings.Join(args, ", "), CondCalls: append([]Call{call}, inner...)}
			st.Body = p.body(Guard{Kind: "loop", Cond: name + "(" + strings.Join(args, ", ") + ")", Line: line})
			return st
		}
	}
	return p.expr()
}

// startsStmt reports whether token k begins a statement body (used after a
// macro's closing parenthesis).
func (p *parser) startsStmt(k int) bool {
	s := p.s
	if s.isPunct(k, "{") {
		return true
	}
	if !s.isIdent(k) {
		return false
	}
	// IDENT(...) IDENT: could be a declaration with a macro type, such as
	// "DECLARE_BITMAP(x, 3) foo"; rare in bodies. Treat keywords and calls
	// as statements.
	switch s.text(k) {
	case "if", "for", "while", "do", "switch", "return", "goto", "break", "continue":
		return true
	}
	return s.isPunct(k+1, "(") || s.isPunct(k+1, "=") || s.isPunct(k+1, "->") || s.isPunct(k+1, ".") || s.isPunct(k+1, "++") || s.isPunct(k+1, "--")
}

func (p *parser) stmtOrNil() Stmt {
	if p.i >= p.end || p.s.isPunct(p.i, "}") {
		return nil
	}
	return p.stmt()
}

// stmtEnd returns the index of the ';' ending the statement that starts at
// i, or of the '}' closing the enclosing block when the ';' is missing.
func (p *parser) stmtEnd(i int) int {
	s := p.s
	depth := 0
	for k := i; k < p.end; k++ {
		t := s.toks[k]
		if t.kind != tokPunct || t.end-t.start != 1 {
			continue
		}
		switch s.src[t.start] {
		case '(', '[', '{':
			depth++
		case ')', ']':
			depth--
			if depth < 0 {
				depth = 0
			}
		case '}':
			if depth == 0 {
				return k
			}
			depth--
		case ';':
			if depth == 0 {
				return k
			}
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
	if s.noBodies {
		p.i = end
		if s.isPunct(p.i, ";") {
			p.i++
		}
		return nil
	}
	st := &ExprStmt{Line: s.line(i), Text: s.span(i, end), Calls: calls}
	p.i = end
	if s.isPunct(p.i, ";") {
		p.i++
	}
	return st
}

// calls collects the calls in tokens [a, b), outer before inner, records
// them in the function and returns them.
func (p *parser) calls(a, b int) []Call {
	s := p.s
	var out []Call
	for k := a; k < b; k++ {
		if s.toks[k].kind != tokIdent || !s.isPunct(k+1, "(") {
			continue
		}
		name := s.text(k)
		if notCalls[name] {
			continue
		}
		// Member calls: ops->release(...), a.b->fn(...).
		j := k
		for j-2 >= a && (s.isPunct(j-1, "->") || s.isPunct(j-1, ".")) && s.isIdent(j-2) {
			j -= 2
		}
		if j != k {
			name = s.span(j, k+1)
		} else if s.isPunct(k-1, "->") || s.isPunct(k-1, ".") {
			name = s.text(k-1) + name
		}
		args := s.args(k+1, b)
		close := s.match(k+1, b)
		if (name == "guard") && s.isPunct(close, "(") {
			args = append(args, s.args(close, b)...)
		}
		c := Call{Name: name, Args: args, Line: s.line(k), Guards: p.guards}
		out = append(out, c)
		p.fn.Calls = append(p.fn.Calls, c)
	}
	return out
}
