package typing

import (
	"fmt"
	"strings"
	"testing"
)

// TestExprTagFromDefiningFile: the struct of a member is looked for from
// the file defining the struct that holds it. Here the caller's file
// includes more headers than the breadth-first search reads
// (maxIncludeFiles), so only linux/outer.h is seen from it, and struct
// inner, in the <asm/inner.h> that outer.h includes, is found from
// outer.h. The arch header is reached as the kernel's include path
// reaches it (arch/x86/include/asm/).
func TestExprTagFromDefiningFile(t *testing.T) {
	var src strings.Builder
	src.WriteString("#include <linux/outer.h>\n")
	tree := map[string]string{
		"include/linux/outer.h":          "#include <asm/inner.h>\n\nstruct outer {\n\tstruct inner *in;\n};\n",
		"arch/x86/include/asm/inner.h":   "struct inner {\n\tstruct leaf *leaf;\n};\n",
		"arch/arm64/include/asm/inner.h": "struct inner {\n\tstruct branch *leaf;\n};\n",
	}
	for i := 0; i < maxIncludeFiles+4; i++ {
		name := fmt.Sprintf("include/linux/pad%d.h", i)
		tree[name] = "\n"
		fmt.Fprintf(&src, "#include <linux/pad%d.h>\n", i)
	}
	src.WriteString("\nvoid f(struct outer *o)\n{\n\to->in->leaf = 0;\n}\n")
	tree["drivers/x/f.c"] = src.String()
	ix := openTree(t, tree)
	ty := New(ix, nil)
	fn := funcNamed(t, ix, "f")
	for _, tc := range []struct{ expr, want string }{
		{"o", "outer"},
		{"o->in", "inner"},
		{"o->in->leaf", "leaf"},
	} {
		if got := ty.ExprTag(tc.expr, fn); got != tc.want {
			t.Errorf("ExprTag(%q) = %q, want %q", tc.expr, got, tc.want)
		}
	}
	if tag, _ := ty.chainTag("o->in->leaf", fn); tag != "leaf" {
		t.Errorf("chainTag(o->in->leaf) = %q, want leaf", tag)
	}
}
