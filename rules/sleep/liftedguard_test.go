package sleep

import (
	"slices"
	"strings"
	"testing"

	"github.com/autosel-bot/autosel-bot/cscan"
)

// TestLiftedChecks: the checks on the way to a call, compared between two
// versions of a function: an exit or a term dropped is lifted, the same
// check written another way (an exit turned into the negated condition
// of an if around the call, re-indented) is not, nor an error check or a
// test of the context another test takes the place of.
func TestLiftedChecks(t *testing.T) {
	const head = "void f(struct it *it, int n)\n{\n"
	contextTest := func(c string) bool { return strings.Contains(c, "in_atomic(") || strings.Contains(c, "in_task(") }
	for _, c := range []struct {
		name, old, new string
		want           []string
	}{
		{"exit dropped",
			"\tif (it->buf == sbuf && n > 8)\n\t\treturn;\n\tp = kmalloc(n, GFP_KERNEL);\n",
			"\tp = kmalloc(n, GFP_KERNEL);\n",
			[]string{"exit it->buf == sbuf && n > 8"}},
		{"goto exit dropped",
			"\tif (it->mode == DUMP)\n\t\tgoto out;\n\tp = kmalloc(n, GFP_KERNEL);\nout:\n\treturn;\n",
			"\tp = kmalloc(n, GFP_KERNEL);\nout:\n\treturn;\n",
			[]string{"exit it->mode == DUMP"}},
		{"term dropped",
			"\tif (n > it->size && !WARN_ON(it->buf == sbuf))\n\t\tp = kmalloc(n, GFP_KERNEL);\n",
			"\tif (n > it->size)\n\t\tp = kmalloc(n, GFP_KERNEL);\n",
			[]string{"if !WARN_ON(it->buf == sbuf)"}},
		{"else condition dropped",
			"\tif (it->mode != SLOW)\n\t\tp = NULL;\n\telse\n\t\tp = kmalloc(n, GFP_KERNEL);\n",
			"\tp = kmalloc(n, GFP_KERNEL);\n",
			[]string{"else it->mode != SLOW"}},
		{"exit turned into an if around the call",
			"\tif (it->buf == sbuf && n > 8)\n\t\treturn;\n\tp = kmalloc(n, GFP_KERNEL);\n",
			"\tif (it->buf != sbuf || n <= 8) {\n\t\tp = kmalloc(n,\n\t\t\t    GFP_KERNEL);\n\t}\n",
			nil},
		{"term kept, another added",
			"\tif (n > it->size)\n\t\tp = kmalloc(n, GFP_KERNEL);\n",
			"\tif (n > it->size && it->ok)\n\t\tp = kmalloc(n, GFP_KERNEL);\n",
			nil},
		{"error checks dropped (a bare test may be one)",
			"\tif (!it)\n\t\treturn;\n\tif (it->buf)\n\t\treturn;\n\tif (IS_ERR(it->buf))\n\t\treturn;\n\tif (ret < 0)\n\t\treturn;\n\tp = kmalloc(n, GFP_KERNEL);\n",
			"\tp = kmalloc(n, GFP_KERNEL);\n",
			nil},
		{"context test replaced",
			"\tif (in_atomic())\n\t\treturn;\n\tp = kmalloc(n, GFP_KERNEL);\n",
			"\tif (!in_task())\n\t\treturn;\n\tp = kmalloc(n, GFP_KERNEL);\n",
			nil},
		{"context test dropped",
			"\tif (in_atomic())\n\t\treturn;\n\tp = kmalloc(n, GFP_KERNEL);\n",
			"\tp = kmalloc(n, GFP_KERNEL);\n",
			[]string{"exit in_atomic()"}},
		{"exit in another branch",
			"\tif (n) {\n\t\tif (it->mode)\n\t\t\treturn;\n\t\tn++;\n\t}\n\tp = kmalloc(n, GFP_KERNEL);\n",
			"\tif (n) {\n\t\tn++;\n\t}\n\tp = kmalloc(n, GFP_KERNEL);\n",
			nil},
	} {
		of := parseOne(t, head+c.old+"}\n")
		nf := parseOne(t, head+c.new+"}\n")
		var got []string
		for _, pc := range liftedChecks(of, nf, kmallocLine(of), kmallocLine(nf), contextTest) {
			got = append(got, pc.from+" "+pc.cond)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: lifted %q, want %q", c.name, got, c.want)
		}
	}
}

// parseOne parses a file holding one function.
func parseOne(t *testing.T, src string) *cscan.Func {
	t.Helper()
	f := cscan.ParseFile("a.c", []byte(src))
	if len(f.Funcs) != 1 {
		t.Fatalf("parsed %d functions of %q", len(f.Funcs), src)
	}
	return f.Funcs[0]
}

// kmallocLine returns the line of fn's call to kmalloc().
func kmallocLine(fn *cscan.Func) int {
	for _, c := range fn.Calls {
		if c.Name == "kmalloc" {
			return c.Line
		}
	}
	return 0
}

// TestCheckNames: the names a check reads, and which of them a caller's
// stores set up.
func TestCheckNames(t *testing.T) {
	got := readNames("iter->temp == static_buf && !WARN_ON(s.mode) && n > SIZE")
	want := []checkName{{name: "iter", base: true}, {name: "temp", member: true}, {name: "static_buf"},
		{name: "s", base: true}, {name: "mode", member: true}, {name: "n"}, {name: "SIZE"}}
	if !slices.Equal(got, want) {
		t.Errorf("readNames = %+v", got)
	}
	for _, c := range []struct {
		body, name string
		want       bool
	}{
		{"iter->temp = static_buf;", "temp", true},
		{"d.mode = MODE_DUMP;", "mode", true},
		{"d->dumping = true;", "dumping", true},
		{"d->need++; d->need += 2;", "need", false},
		{"d->size = compute(d);", "size", false},
		{"d->temp == static_buf;", "temp", false},
	} {
		if got := setsMember(c.body, c.name, []string{"static_buf"}); got != c.want {
			t.Errorf("setsMember(%q, %q) = %v", c.body, c.name, got)
		}
	}
	for _, c := range []struct {
		body, name string
		want       bool
	}{
		{"{ int len; }", "len", true},
		{"{ size_t a, *len = 0; }", "len", true},
		{"{ len = 3; }", "len", true},
		{"{ return static_buf; }", "static_buf", false},
		{"{ if (p == static_buf) x(); }", "static_buf", false},
	} {
		if got := declares(c.body, c.name); got != c.want {
			t.Errorf("declares(%q, %q) = %v", c.body, c.name, got)
		}
	}
}
