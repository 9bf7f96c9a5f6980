package cscan

// Block is a brace-enclosed statement list. The statement tree is defined
// by the scanner implementation; see Stmt.
type Block struct {
	// Line is the line of the opening brace.
	Line int
	// Stmts are the statements in order.
	Stmts []Stmt
}

// Stmt is one statement of the tree.
type Stmt interface{ stmtLine() int }
