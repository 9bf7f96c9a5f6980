package cscan

import (
	"fmt"
	"io"
	"strconv"
	"strings"
)

// dumpFile writes every field of a scan result, statement trees included,
// in a stable text form: two results are equal exactly when their dumps
// are. The equivalence tests compare scanner output through it.
func dumpFile(w io.Writer, f *File) {
	fmt.Fprintf(w, "file %q\n", f.Path)
	for _, sk := range f.Skipped {
		fmt.Fprintf(w, "skip %q %d %q\n", sk.Name, sk.Line, sk.Reason)
	}
	for _, fn := range f.Funcs {
		dumpFunc(w, fn)
	}
}

func dumpFunc(w io.Writer, fn *Func) {
	fmt.Fprintf(w, "func %q macro=%q file=%q %d %d %d static=%v inline=%v\n",
		fn.Name, fn.Macro, fn.File, fn.Start, fn.BodyStart, fn.End, fn.Static, fn.Inline)
	for _, c := range fn.Calls {
		fmt.Fprintf(w, "  call %s\n", callText(c))
	}
	for _, r := range fn.Returns {
		fmt.Fprintf(w, "  return %d %q %s\n", r.Line, r.Expr, guardsText(r.Guards))
	}
	if fn.Body != nil {
		dumpStmt(w, fn.Body, "  ")
	} else {
		fmt.Fprintf(w, "  nobody\n")
	}
}

func callText(c Call) string {
	args := make([]string, len(c.Args))
	for i, a := range c.Args {
		args[i] = strconv.Quote(a)
	}
	// A nil and an empty argument list marshal differently (omitempty):
	// tell them apart.
	nilArgs := ""
	if c.Args == nil {
		nilArgs = "nil"
	}
	return fmt.Sprintf("%q%s(%s) %d %s", c.Name, nilArgs, strings.Join(args, ", "), c.Line, guardsText(c.Guards))
}

func guardsText(gs []Guard) string {
	var sb strings.Builder
	sb.WriteByte('[')
	for i, g := range gs {
		if i > 0 {
			sb.WriteString(" ")
		}
		fmt.Fprintf(&sb, "%s:%q:%d", g.Kind, g.Cond, g.Line)
	}
	sb.WriteByte(']')
	return sb.String()
}

func callsText(cs []Call) string {
	parts := make([]string, len(cs))
	for i, c := range cs {
		parts[i] = callText(c)
	}
	return "{" + strings.Join(parts, "; ") + "}"
}

func dumpStmt(w io.Writer, st Stmt, ind string) {
	in := ind + "  "
	switch s := st.(type) {
	case nil:
		fmt.Fprintf(w, "%snil\n", ind)
	case *Block:
		fmt.Fprintf(w, "%sblock %d-%d\n", ind, s.Line, s.EndLine)
		for _, c := range s.Stmts {
			dumpStmt(w, c, in)
		}
	case *ExprStmt:
		fmt.Fprintf(w, "%sexpr %d %q %s\n", ind, s.Line, s.Text, callsText(s.Calls))
	case *IfStmt:
		fmt.Fprintf(w, "%sif %d %q %s else@%d\n", ind, s.Line, s.Cond, callsText(s.CondCalls), s.ElseLine)
		dumpStmt(w, s.Then, in)
		dumpStmt(w, s.Else, in)
	case *LoopStmt:
		fmt.Fprintf(w, "%sloop %d %s %q %q %s\n", ind, s.Line, s.Kind, s.Macro, s.Cond, callsText(s.CondCalls))
		dumpStmt(w, s.Body, in)
	case *SwitchStmt:
		fmt.Fprintf(w, "%sswitch %d %q %s\n", ind, s.Line, s.Cond, callsText(s.CondCalls))
		dumpStmt(w, s.Body, in)
	case *CaseStmt:
		fmt.Fprintf(w, "%scase %d %q\n", ind, s.Line, s.Label)
	case *ReturnStmt:
		fmt.Fprintf(w, "%sreturn %d %q %s\n", ind, s.Line, s.Expr, callsText(s.Calls))
	case *GotoStmt:
		fmt.Fprintf(w, "%sgoto %d %q\n", ind, s.Line, s.Label)
	case *LabelStmt:
		fmt.Fprintf(w, "%slabel %d %q\n", ind, s.Line, s.Label)
	case *BreakStmt:
		fmt.Fprintf(w, "%sbreak %d\n", ind, s.Line)
	case *ContinueStmt:
		fmt.Fprintf(w, "%scontinue %d\n", ind, s.Line)
	case *ScopedGuardStmt:
		args := make([]string, len(s.Args))
		for i, a := range s.Args {
			args[i] = strconv.Quote(a)
		}
		fmt.Fprintf(w, "%sscoped_guard %d (%s) %s\n", ind, s.Line, strings.Join(args, ", "), callText(s.Call))
		dumpStmt(w, s.Body, in)
	default:
		fmt.Fprintf(w, "%s%T\n", ind, st)
	}
}
