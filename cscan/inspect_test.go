package cscan

import (
	"fmt"
	"strings"
	"testing"
)

func TestInspect(t *testing.T) {
	fn := ParseBody("static int f(void)\n{\n\tif (a) {\n\t\tb();\n\t} else\n\t\tgoto out;\n\twhile (c)\n\t\td();\nout:\n\treturn 0;\n}\n", nil)
	var kinds []string
	Inspect(fn.Body, func(s Stmt) {
		kinds = append(kinds, strings.TrimPrefix(fmt.Sprintf("%T", s), "*cscan."))
	})
	want := "[Block IfStmt Block ExprStmt GotoStmt LoopStmt ExprStmt LabelStmt ReturnStmt]"
	if fmt.Sprint(kinds) != want {
		t.Errorf("got %v, want %s", kinds, want)
	}
}
