package cscan

// Inspect visits every statement of the tree rooted at s in source order,
// parents before children (path-insensitive; rules/lockctx.Walk is the
// context-tracking walk).
func Inspect(s Stmt, visit func(Stmt)) {
	switch v := s.(type) {
	case nil:
		return
	case *Block:
		if v == nil {
			return
		}
		visit(v)
		for _, c := range v.Stmts {
			Inspect(c, visit)
		}
	case *IfStmt:
		visit(v)
		Inspect(v.Then, visit)
		Inspect(v.Else, visit)
	case *LoopStmt:
		visit(v)
		Inspect(v.Body, visit)
	case *SwitchStmt:
		visit(v)
		Inspect(v.Body, visit)
	case *ScopedGuardStmt:
		visit(v)
		Inspect(v.Body, visit)
	default:
		visit(s)
	}
}

// StmtCalls returns the calls statement s makes itself (its condition's
// for an if, loop or switch), not those of the statements inside it.
func StmtCalls(s Stmt) []Call {
	switch v := s.(type) {
	case *ExprStmt:
		return v.Calls
	case *IfStmt:
		return v.CondCalls
	case *LoopStmt:
		return v.CondCalls
	case *SwitchStmt:
		return v.CondCalls
	case *ReturnStmt:
		return v.Calls
	case *ScopedGuardStmt:
		return []Call{v.Call}
	}
	return nil
}
