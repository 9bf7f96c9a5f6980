// Package cscan is a tolerant scanner for kernel C: no preprocessor, no full
// parse. It finds function definitions (static inline in headers and
// macro-defined ones such as SYSCALL_DEFINEx included), their calls with
// argument text, and enough statement structure to follow lock state along
// paths. It is shared by every rule family.
package cscan

// Guard is one enclosing control construct of a call or return.
type Guard struct {
	// Kind is "if", "else", "loop" (for/while/do), "switch", "case",
	// or "scoped_guard".
	Kind string `json:"kind"`
	// Cond is the condition text (the if/while/switch expression, the case
	// label, or the scoped_guard arguments); empty for else.
	Cond string `json:"cond,omitempty"`
	// Line is the 1-based line of the construct.
	Line int `json:"line"`
}

// Call is one call expression inside a function body.
type Call struct {
	// Name is the callee identifier ("spin_lock", "wake_up_interruptible").
	// Calls through function pointers use the member expression text
	// ("ops->release").
	Name string `json:"name"`
	// Args is the argument text, one entry per top-level comma, whitespace
	// normalised.
	Args []string `json:"args,omitempty"`
	// Line is the 1-based line of the callee name.
	Line int `json:"line"`
	// Guards are the enclosing constructs, outermost first.
	Guards []Guard `json:"guards,omitempty"`
}

// Return is one return statement inside a function body (gotos to an exit
// label are GotoStmt/LabelStmt in the statement tree).
type Return struct {
	Line   int     `json:"line"`
	Expr   string  `json:"expr,omitempty"`
	Guards []Guard `json:"guards,omitempty"`
}

// Func is one function definition.
type Func struct {
	// Name is the function name (for SYSCALL_DEFINEn(name, ...) it is
	// "sys_name"; Macro holds "SYSCALL_DEFINEn").
	Name  string `json:"name"`
	Macro string `json:"macro,omitempty"`
	// File is the path given to the scanner.
	File string `json:"file"`
	// Start is the line of the function name; BodyStart the line of the
	// opening brace; End the line of the closing brace.
	Start     int  `json:"start"`
	BodyStart int  `json:"body_start"`
	End       int  `json:"end"`
	Static    bool `json:"static,omitempty"`
	Inline    bool `json:"inline,omitempty"`
	// Calls are all calls in the body, in source order.
	Calls []Call `json:"calls,omitempty"`
	// Returns are the return statements in the body, in source order.
	Returns []Return `json:"returns,omitempty"`
	// Body is the statement tree of the body (see stmt.go).
	Body *Block `json:"-"`
}

// Skip records a function (or region) the scanner could not handle.
type Skip struct {
	Name   string `json:"name,omitempty"`
	Line   int    `json:"line"`
	Reason string `json:"reason"`
}

// File is the scan result of one source file.
type File struct {
	Path    string  `json:"path"`
	Funcs   []*Func `json:"funcs"`
	Skipped []Skip  `json:"skipped,omitempty"`
}

// FuncAt returns the function of f whose body holds line, nil if none (or
// f is nil).
func (f *File) FuncAt(line int) *Func {
	if f == nil {
		return nil
	}
	for _, fn := range f.Funcs {
		if fn.BodyStart <= line && line <= fn.End {
			return fn
		}
	}
	return nil
}
