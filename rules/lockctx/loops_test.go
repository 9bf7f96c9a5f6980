package lockctx

import (
	"testing"

	"github.com/autosel-bot/autosel-bot/cscan"
)

// TestReturnOnlyLoop (returnOnlyLoops): a forever loop counts as left by return alone
// unless a break of its own or a goto can leave it; a break of an inner
// loop, switch or scoped_guard() is theirs.
func TestReturnOnlyLoop(t *testing.T) {
	for _, tc := range []struct {
		body string
		want bool
	}{
		{"\tfor (;;) {\n\t\tif (a())\n\t\t\treturn;\n\t}\n", true},
		{"\twhile (1) {\n\t\tif (a())\n\t\t\tbreak;\n\t}\n", false},
		{"\twhile (true) {\n\t\tif (a())\n\t\t\tgoto out;\n\t}\nout:\n\treturn;\n", false},
		{"\tfor (;;) {\n\t\tswitch (a()) {\n\t\tcase 1:\n\t\t\tbreak;\n\t\tdefault:\n\t\t\treturn;\n\t\t}\n\t}\n", true},
		{"\tfor (;;) {\n\t\twhile (b())\n\t\t\tbreak;\n\t\tif (a())\n\t\t\treturn;\n\t}\n", true},
		{"\tfor (;;) {\n\t\tscoped_guard(spinlock, &l) {\n\t\t\tif (b())\n\t\t\t\tbreak;\n\t\t}\n\t\tif (a())\n\t\t\treturn;\n\t}\n", true},
	} {
		src := "void f(void)\n{\n" + tc.body + "}\n"
		fn := cscan.ParseFile("a.c", []byte(src)).Funcs[0]
		r := NewResolver(testModel(t), nil, nil)
		if got := r.returnOnlyLoops(fn)[3]; got != tc.want {
			t.Errorf("returnOnlyLoops(%q)[3] = %v, want %v", tc.body, got, tc.want)
		}
	}
}
