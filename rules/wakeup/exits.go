package wakeup

import "github.com/autosel-bot/autosel-bot/cscan"

// Exits of a function body and whether a call made earlier in source
// order lies on the path to each. Source order alone is wrong for the
// goto-style error tails of the kernel:
//
//	out:
//		finish_wait(q, &wait);
//		return err;
//	out_noerr:
//		return 1;
//
// the second return follows finish_wait() in the text, but the first
// return ends that straight line: the second is reached only through
// out_noerr, from gotos that may come before finish_wait().

// jump is a return, goto or continue of a body (or the end of the
// body), with the statements enclosing it, outermost first.
type jump struct {
	line  int
	label string // a goto's label
	ret   bool   // a return, or falling off the end of the body
	// loopEnd is, for a continue, the closing line of its loop's body:
	// what follows the continue in that body runs only in a later
	// iteration, what follows the loop may run next.
	loopEnd int
	encl    []cscan.Stmt
}

// bodyFlow is the jumps, labels and gotos of a body.
type bodyFlow struct {
	jumps  []jump
	labels map[string]int   // label -> line
	gotos  map[string][]int // label -> lines of the gotos to it
	// encl holds the statements enclosing the first statement of each
	// line (reaches).
	encl map[int][]cscan.Stmt
	// breaks are the break statements and case labels, which leave or
	// enter a straight line in ways reaches does not follow.
	breaks []jump
	// conts are the continue statements: only reaches follows them (to
	// the others a loop body is one straight line, run again).
	conts []jump
}

// flowOf collects the jumps of a function body; falling off its end is
// an exit when the whole body was seen.
func flowOf(f *wfunc) bodyFlow {
	fl := bodyFlow{labels: map[string]int{}, gotos: map[string][]int{}, encl: map[int][]cscan.Stmt{}}
	if f == nil || f.F == nil || f.F.Body == nil {
		return fl
	}
	fl.walk(f.F.Body, nil)
	if !f.Partial && f.F.Body.EndLine > 0 {
		fl.jumps = append(fl.jumps, jump{line: f.F.Body.EndLine, ret: true, encl: []cscan.Stmt{f.F.Body}})
	}
	return fl
}

// walk records the jumps under s; encl are the statements enclosing s.
func (fl *bodyFlow) walk(s cscan.Stmt, encl []cscan.Stmt) {
	in := func(c cscan.Stmt) {
		if c == nil {
			return
		}
		e := append(append([]cscan.Stmt(nil), encl...), s)
		if _, ok := c.(*cscan.Block); !ok {
			e = append(e, c) // a branch without braces is a scope of its own
		}
		fl.walk(c, e)
	}
	if _, block := s.(*cscan.Block); !block {
		// A block's statements have their own lines.
		if l := cscan.StmtLine(s); l > 0 && fl.encl[l] == nil {
			fl.encl[l] = encl
		}
	}
	switch s := s.(type) {
	case *cscan.Block:
		e := append(append([]cscan.Stmt(nil), encl...), s)
		for _, st := range s.Stmts {
			fl.walk(st, e)
		}
	case *cscan.IfStmt:
		in(s.Then)
		in(s.Else)
	case *cscan.LoopStmt:
		in(s.Body)
	case *cscan.SwitchStmt:
		in(s.Body)
	case *cscan.ScopedGuardStmt:
		in(s.Body)
	case *cscan.ReturnStmt:
		fl.jumps = append(fl.jumps, jump{line: s.Line, ret: true, encl: encl})
	case *cscan.GotoStmt:
		fl.jumps = append(fl.jumps, jump{line: s.Line, label: s.Label, encl: encl})
		fl.gotos[s.Label] = append(fl.gotos[s.Label], s.Line)
	case *cscan.LabelStmt:
		fl.labels[s.Label] = s.Line
	case *cscan.ContinueStmt:
		if end := loopEnd(encl); end > 0 {
			fl.conts = append(fl.conts, jump{line: s.Line, loopEnd: end, encl: encl})
		}
	case *cscan.BreakStmt:
		fl.breaks = append(fl.breaks, jump{line: s.Line, encl: encl})
	case *cscan.CaseStmt:
		fl.breaks = append(fl.breaks, jump{line: s.Line, encl: encl})
	}
}

// loopEnd returns the closing line of the innermost loop among encl
// (outermost first) whose body is a block, 0 if there is none or a
// scoped_guard() comes first (itself a one-round for loop: a continue in
// it only leaves the guard).
func loopEnd(encl []cscan.Stmt) int {
	for i := len(encl) - 1; i >= 0; i-- {
		switch l := encl[i].(type) {
		case *cscan.ScopedGuardStmt:
			return 0
		case *cscan.LoopStmt:
			if b, ok := l.Body.(*cscan.Block); ok {
				return b.EndLine
			}
			return 0
		}
	}
	return 0
}

// enclosedBy reports whether outer's enclosing statements are a prefix of
// inner's: a jump at outer ends the straight line that leads to inner.
func enclosedBy(outer, inner []cscan.Stmt) bool {
	if len(outer) > len(inner) {
		return false
	}
	for i := range outer {
		if outer[i] != inner[i] {
			return false
		}
	}
	return true
}

// cut returns the line of the last jump strictly between from and to
// that ends the straight line to the jump at to (0 if none): code after
// it is reached only through a label.
func (fl *bodyFlow) cut(from int, to jump) int {
	last := 0
	for _, j := range fl.jumps {
		if j.line > from && j.line < to.line && j.line > last && enclosedBy(j.encl, to.encl) {
			last = j.line
		}
	}
	return last
}

// passes reports whether the path to the exit ex goes through a call at
// one of the lines at (each after start, the line that opens the region):
// the call comes before the exit on its straight line, and every goto to
// a label between them comes from before start or after such a call. When
// it does not, via is the line of a goto that reaches the exit around the
// calls (0: the exit's own straight line misses them).
func (fl *bodyFlow) passes(at []int, start int, ex jump) (ok bool, via int) {
	for _, l := range at {
		if l >= ex.line {
			continue
		}
		from := l
		if c := fl.cut(l, ex); c > from {
			from = c
		}
		ok, via = true, 0
		for lab, ll := range fl.labels {
			if ll <= from || ll >= ex.line {
				continue
			}
			for _, g := range fl.gotos[lab] {
				if g > start && !fl.before(at, g) {
					ok, via = false, g
				}
			}
		}
		if ok {
			return true, 0
		}
	}
	return false, via
}

// armEndsBefore reports whether a case label lies between line l and
// the exit ex, at the exit's level, whose arm before it ends in a jump
// (goto, return, break, continue): code at l, in an earlier arm, reaches
// ex only by falling through that label, which it cannot (msgctl_down()'s
// IPC_SET arm ending in "goto out_unlock0;" before "default:"). A goto
// to a label inside the later arm is an exit of its own to the wake_q
// check (gotoPastFlushes), reported there.
func (fl *bodyFlow) armEndsBefore(l int, ex jump) bool {
	for _, c := range fl.breaks {
		if c.line <= l || c.line >= ex.line || !enclosedBy(c.encl, ex.encl) || len(c.encl) == 0 {
			continue
		}
		b, ok := c.encl[len(c.encl)-1].(*cscan.Block)
		if !ok {
			continue
		}
		for i, st := range b.Stmts {
			if cs, ok := st.(*cscan.CaseStmt); ok && cs.Line == c.line && i > 0 && cscan.StmtLine(b.Stmts[0]) <= l && cscan.EndsInJump(b.Stmts[i-1]) {
				return true
			}
		}
	}
	return false
}

// before reports whether one of the lines at comes before line g on its
// straight line (source order, no jump between them that encloses g).
func (fl *bodyFlow) before(at []int, g int) bool {
	var gj *jump
	for i := range fl.jumps {
		if fl.jumps[i].line == g {
			gj = &fl.jumps[i]
		}
	}
	for _, l := range at {
		if l < g && (gj == nil || fl.cut(l, *gj) == 0) {
			return true
		}
	}
	return false
}

// maxGotoHops bounds the gotos reaches follows.
const maxGotoHops = 8

// reaches reports whether code at line to may run after the statement at
// (or first after) line from on the same path: no return on from's
// straight line comes first, and a goto on it leads to a label before
// to. Whether a branch around to is taken is not asked: a later wake-up
// in an if still may cover the path. A break or case label first (switch
// arms, loop exits) answers true, as does a body without a statement
// tree (source order). A continue first ends the path for the rest of
// its loop's body (that runs in a later iteration) and leads on past
// the loop.
func (fl *bodyFlow) reaches(from, to int) bool {
	if len(fl.encl) == 0 {
		return true
	}
	if fl.exclusive(from, to) {
		return false
	}
	cur := from
	for hop := 0; hop < maxGotoHops; hop++ {
		e, ok := fl.enclAt(cur)
		if !ok {
			return true
		}
		var first *jump
		for _, js := range [][]jump{fl.jumps, fl.conts} {
			for i := range js {
				j := &js[i]
				if j.line >= cur && j.line < to && enclosedBy(j.encl, e) && (first == nil || j.line < first.line) {
					first = j
				}
			}
		}
		if first == nil {
			return true
		}
		// A break or a case label on the way (a switch arm that ends
		// before a later arm's return) leaves the straight line: do not
		// claim the path ends.
		for _, b := range fl.breaks {
			if b.line >= cur && b.line < first.line && enclosedBy(b.encl, e) {
				return true
			}
		}
		if first.ret {
			return false
		}
		if first.loopEnd > 0 {
			// A continue: the rest of its loop's body runs only in a
			// later iteration, after the loop's wait (if any) again.
			if to <= first.loopEnd {
				return false
			}
			cur = first.loopEnd + 1
			continue
		}
		lab, ok := fl.labels[first.label]
		if !ok || lab <= cur || lab > to {
			return false
		}
		cur = lab
	}
	return false
}

// enclAt returns the statements enclosing the first statement at or
// after line.
func (fl *bodyFlow) enclAt(line int) ([]cscan.Stmt, bool) {
	best := 0
	for l := range fl.encl {
		if l >= line && (best == 0 || l < best) {
			best = l
		}
	}
	if best == 0 {
		return nil, false
	}
	return fl.encl[best], true
}

// exclusive reports whether the statements at lines from and to lie in
// the two branches of one if statement, or in two arms of one switch the
// earlier of which ends in a break or return, with no loop around it and
// no goto out of it: no path runs from one to the other.
func (fl *bodyFlow) exclusive(from, to int) bool {
	a, ok := fl.enclAt(from)
	if !ok {
		return false
	}
	b, ok := fl.enclAt(to)
	if !ok {
		return false
	}
	k := 0
	for k < len(a) && k < len(b) && a[k] == b[k] {
		k++
	}
	var head cscan.Stmt
	switch {
	case k == 0:
		return false
	case k < len(a) && k < len(b):
		if ifs, ok := a[k-1].(*cscan.IfStmt); ok && ifs.Else != nil &&
			(a[k] == ifs.Then && b[k] == ifs.Else || a[k] == ifs.Else && b[k] == ifs.Then) {
			head = ifs
		}
	}
	if head == nil && k >= 2 {
		if sw, ok := a[k-2].(*cscan.SwitchStmt); ok && sw.Body == a[k-1] && separateArms(a[k-1], from, to) {
			head = sw
		}
	}
	if head == nil {
		return false
	}
	for _, s := range a[:k-1] {
		if _, loop := s.(*cscan.LoopStmt); loop {
			return false
		}
	}
	// A goto from inside the if or switch (back to a retry label, or into
	// the other branch) may run the other branch after this one.
	for _, j := range fl.jumps {
		if !j.ret && j.line >= cscan.StmtLine(head) && j.line <= max(from, to) {
			return false
		}
	}
	return true
}

// separateArms reports whether lines from and to of switch body body lie
// in different arms (after different case labels), the earlier arm
// ending in a break or return of its own before the later arm's label,
// directly or as the last statement of a braced block (no fall-through,
// no break that only some path takes).
func separateArms(body cscan.Stmt, from, to int) bool {
	blk, ok := body.(*cscan.Block)
	if !ok {
		return false
	}
	lo, hi := min(from, to), max(from, to)
	at := func(line int) int { // the last statement starting at or before line
		i := -1
		for j, s := range blk.Stmts {
			if cscan.StmtLine(s) <= line {
				i = j
			}
		}
		return i
	}
	i, j := at(lo), at(hi)
	if i < 0 || j < 0 {
		return false
	}
	label := -1 // the later position's case label
	for x := j; x > i; x-- {
		if _, ok := blk.Stmts[x].(*cscan.CaseStmt); ok {
			label = x
			break
		}
	}
	if label < 0 {
		return false
	}
	for x := i; x < label; x++ {
		if endsArm(blk.Stmts[x]) {
			return true
		}
	}
	return false
}

// endsArm reports whether statement s leaves its switch arm on every
// path: a break or return, or a braced block whose last statement does
// (case X: { ...; break; }).
func endsArm(s cscan.Stmt) bool {
	switch v := s.(type) {
	case *cscan.BreakStmt, *cscan.ReturnStmt:
		return true
	case *cscan.Block:
		return v != nil && len(v.Stmts) > 0 && endsArm(v.Stmts[len(v.Stmts)-1])
	}
	return false
}
