package lockctx

import (
	"regexp"
	"strings"
	"testing"

	"github.com/autosel-bot/autosel-bot/cscan"
)

// exitTarget is the test target with an ArgGuard: allow(x) tests x for
// reaching the target.
type exitTarget struct{ target }

var allowRe = regexp.MustCompile(`^allow\((\w+)\)$`)

func (exitTarget) GuardWords() []string { return []string{"allow("} }

func (exitTarget) GuardArg(gs []cscan.Guard) (string, bool) {
	for _, g := range gs {
		if m := allowRe.FindStringSubmatch(strings.TrimSpace(g.Cond)); m != nil {
			return m[1], true
		}
	}
	return "", false
}

// TestExitGuards (withExitGuards): an if with no else whose branch
// always leaves, on the negation of a deciding-argument test, guards the
// statements after it in its block up to a label or case label; the
// call x() is checked.
func TestExitGuards(t *testing.T) {
	m, err := Compile("test", testLocks(), &Tables{}, exitTarget{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, body, want string
	}{
		{"goto exit", "\tif (!allow(g))\n\t\tgoto out;\n\tx();\nout:\n\treturn;\n", "allow(g)"},
		{"return exit", "\tif (!allow(g))\n\t\treturn;\n\tx();\n", "allow(g)"},
		{"braced exit", "\tif (!allow(g)) {\n\t\ty();\n\t\treturn;\n\t}\n\tx();\n", "allow(g)"},
		{"nested after the exit", "\tif (!allow(g))\n\t\treturn;\n\tif (z) {\n\t\tx();\n\t}\n", "allow(g)"},
		{"label between", "\tif (!allow(g))\n\t\tgoto out;\nagain:\n\tx();\nout:\n\treturn;\n", ""},
		{"else branch", "\tif (!allow(g))\n\t\treturn;\n\telse\n\t\ty();\n\tx();\n", ""},
		{"branch falls through", "\tif (!allow(g))\n\t\ty();\n\tx();\n", ""},
		{"break leaves the loop, not the function", "\tfor (;;) {\n\t\tif (!allow(g))\n\t\t\tbreak;\n\t\ty();\n\t}\n\tx();\n", ""},
		{"positive test", "\tif (allow(g))\n\t\treturn;\n\tx();\n", ""},
		{"other test", "\tif (!ready(g))\n\t\treturn;\n\tx();\n", ""},
		{"case label after", "\tswitch (a) {\n\tcase 1:\n\t\tif (!allow(g))\n\t\t\tbreak;\n\t\ty();\n\tcase 2:\n\t\tx();\n\t}\n", ""},
		{"same case", "\tswitch (a) {\n\tcase 1:\n\t\tif (!allow(g))\n\t\t\tbreak;\n\t\tx();\n\t}\n", "allow(g)"},
		{"else-if on the closing brace", "\tif (a) {\n\t\tif (!allow(g))\n\t\t\treturn;\n\t\ty();\n\t} else if (x()) {\n\t\ty();\n\t}\n", ""},
		{"else on the closing brace", "\tif (a) {\n\t\tif (!allow(g))\n\t\t\treturn;\n\t\ty();\n\t} else x();\n", ""},
		{"do-while continue", "\tdo {\n\t\tif (!allow(g))\n\t\t\tcontinue;\n\t\ty();\n\t} while (x());\n", ""},
		{"nested label", "\tif (b)\n\t\tgoto in;\n\tif (!allow(g))\n\t\treturn;\n\tif (z) {\nin:\n\t\tx();\n\t}\n", ""},
		{"label in a loop", "\tif (b)\n\t\tgoto in;\n\tif (!allow(g))\n\t\treturn;\n\tfor (;;) {\nin:\n\t\tx();\n\t}\n", ""},
		{"nested case", "\tswitch (a) {\n\tcase 1:\n\t\tif (!allow(g))\n\t\t\treturn;\n\t\tif (z) {\n\tcase 2:\n\t\t\tx();\n\t\t}\n\t}\n", ""},
		{"an exit on two terms", "\tif (!allow(g) && !force)\n\t\treturn;\n\tx();\n", ""},
		{"under a branch hint", "\tif (unlikely(!allow(g)))\n\t\treturn;\n\tx();\n", "allow(g)"},
		{"a switch after the exit", "\tif (!allow(g))\n\t\treturn;\n\tswitch (a) {\n\tcase 1:\n\t\tx();\n\t}\n", "allow(g)"},
		{"on the exit's line", "\tif (!allow(g)) { y(); return; } x();\n", ""},
	} {
		src := "void f(gfp_t g)\n{\n" + tc.body + "}\n"
		fn := cscan.ParseFile("a.c", []byte(src)).Funcs[0]
		r := NewResolver(m, nil, nil)
		var got []string
		for _, c := range fn.Calls {
			if c.Name != "x" {
				continue
			}
			n := len(c.Guards)
			for _, g := range r.withExitGuards(fn, c).Guards[n:] {
				got = append(got, g.Cond)
			}
		}
		if s := strings.Join(got, " "); s != tc.want {
			t.Errorf("%s: exit guards of x() = %q, want %q", tc.name, s, tc.want)
		}
	}
}
