package cscan

// Block is a brace-enclosed statement list. The statement tree is defined
// by the scanner implementation; see Stmt.
type Block struct {
	// Line is the line of the opening brace.
	Line int
	// Stmts are the statements in order.
	Stmts []Stmt
	// EndLine is the line of the closing brace (0 when the text ended
	// before it, as in a partial function).
	EndLine int
}

// Stmt is one statement of the tree: *Block, *ExprStmt, *IfStmt,
// *LoopStmt, *SwitchStmt, *CaseStmt, *ReturnStmt, *GotoStmt, *LabelStmt,
// *BreakStmt, *ContinueStmt or *ScopedGuardStmt.
type Stmt interface{ stmtLine() int }

// ExprStmt is an expression statement or a declaration, with the calls it
// makes in evaluation (source) order.
type ExprStmt struct {
	Line  int
	Text  string
	Calls []Call
}

// IfStmt is if (Cond) Then [else Else].
type IfStmt struct {
	Line      int
	Cond      string
	CondCalls []Call
	Then      Stmt
	// Else is nil when there is no else branch.
	Else     Stmt
	ElseLine int
}

// LoopStmt is a for, while or do-while loop, or a loop-like macro such as
// list_for_each_entry(...) followed by a statement.
type LoopStmt struct {
	Line int
	// Kind is "for", "while", "do" or "macro".
	Kind string
	// Macro is the macro name for Kind "macro".
	Macro     string
	Cond      string
	CondCalls []Call
	Body      Stmt
}

// SwitchStmt is switch (Cond) Body; case labels appear as *CaseStmt inside
// the body.
type SwitchStmt struct {
	Line      int
	Cond      string
	CondCalls []Call
	Body      Stmt
}

// CaseStmt is a case or default label inside a switch body.
type CaseStmt struct {
	Line int
	// Label is the case expression, "default" for default.
	Label string
}

// ReturnStmt is return [Expr];
type ReturnStmt struct {
	Line  int
	Expr  string
	Calls []Call
}

// GotoStmt is goto Label;
type GotoStmt struct {
	Line  int
	Label string
}

// LabelStmt is Label: (the labelled statement follows as the next Stmt).
type LabelStmt struct {
	Line  int
	Label string
}

// BreakStmt is break;
type BreakStmt struct{ Line int }

// ContinueStmt is continue;
type ContinueStmt struct{ Line int }

// ScopedGuardStmt is scoped_guard(Class, Args...) Body: the guard's lock is
// held for the duration of Body. (A plain guard(class)(args); is an
// ExprStmt whose call is named "guard", held to the end of the enclosing
// block.)
type ScopedGuardStmt struct {
	Line int
	// Args are the macro arguments: the guard class first.
	Args []string
	Call Call
	Body Stmt
}

func (s *Block) stmtLine() int           { return s.Line }
func (s *ExprStmt) stmtLine() int        { return s.Line }
func (s *IfStmt) stmtLine() int          { return s.Line }
func (s *LoopStmt) stmtLine() int        { return s.Line }
func (s *SwitchStmt) stmtLine() int      { return s.Line }
func (s *CaseStmt) stmtLine() int        { return s.Line }
func (s *ReturnStmt) stmtLine() int      { return s.Line }
func (s *GotoStmt) stmtLine() int        { return s.Line }
func (s *LabelStmt) stmtLine() int       { return s.Line }
func (s *BreakStmt) stmtLine() int       { return s.Line }
func (s *ContinueStmt) stmtLine() int    { return s.Line }
func (s *ScopedGuardStmt) stmtLine() int { return s.Line }

// EndsInJump reports whether statement s never falls through to what
// follows it: a return, goto, break or continue, a block ending in one,
// an if whose branches both end in one.
func EndsInJump(s Stmt) bool {
	switch s := s.(type) {
	case *GotoStmt, *ReturnStmt, *BreakStmt, *ContinueStmt:
		return true
	case *Block:
		return len(s.Stmts) > 0 && EndsInJump(s.Stmts[len(s.Stmts)-1])
	case *IfStmt:
		return s.Else != nil && EndsInJump(s.Then) && EndsInJump(s.Else)
	}
	return false
}

// StmtLine returns the 1-based line of a statement.
func StmtLine(s Stmt) int { return s.stmtLine() }

// CondOf returns the condition of an if, loop or switch statement, and
// false for any other statement.
func CondOf(s Stmt) (string, bool) {
	switch v := s.(type) {
	case *IfStmt:
		return v.Cond, true
	case *LoopStmt:
		return v.Cond, true
	case *SwitchStmt:
		return v.Cond, true
	}
	return "", false
}
