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
		{"exit moved into a helper",
			"\tif (it->buf == sbuf && n > 8)\n\t\treturn;\n\tp = kmalloc(n, GFP_KERNEL);\n",
			"\tif (overflows(it, n))\n\t\treturn;\n\tp = kmalloc(n, GFP_KERNEL);\n",
			nil},
		{"operands swapped",
			"\tif (it->buf == sbuf && n > 8)\n\t\treturn;\n\tp = kmalloc(n, GFP_KERNEL);\n",
			"\tif (sbuf == it->buf && n > 8)\n\t\treturn;\n\tp = kmalloc(n, GFP_KERNEL);\n",
			nil},
		{"exit split into nested ifs",
			"\tif (it->buf == sbuf && n > 8)\n\t\treturn;\n\tp = kmalloc(n, GFP_KERNEL);\n",
			"\tif (it->buf == sbuf) {\n\t\tif (n > 8) {\n\t\t\tpr_warn(\"big\");\n\t\t\treturn;\n\t\t}\n\t}\n\tp = kmalloc(n, GFP_KERNEL);\n",
			nil},
		{"goto to a label before the call",
			"\tif (it->mode == FAST)\n\t\tgoto alloc;\n\tprep(it);\nalloc:\n\tp = kmalloc(n, GFP_KERNEL);\n",
			"\tprep(it);\n\tp = kmalloc(n, GFP_KERNEL);\n",
			nil},
		{"exit in another case",
			"\tswitch (n) {\n\tcase 1:\n\t\tif (it->mode == RESET)\n\t\t\treturn;\n\t\tbreak;\n\tcase 2:\n\t\tp = kmalloc(n, GFP_KERNEL);\n\t}\n",
			"\tswitch (n) {\n\tcase 1:\n\t\tbreak;\n\tcase 2:\n\t\tp = kmalloc(n, GFP_KERNEL);\n\t}\n",
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
		for _, pc := range liftedChecks(of, nf, kmallocLine(of), kmallocLine(nf), condsText(nf.Body, kmallocLine(nf)), contextTest) {
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
		bare, want bool
	}{
		{"iter->temp = static_buf;", "temp", false, true},
		{"d.mode = MODE_DUMP;", "mode", false, false},
		{"d.mode = MODE_DUMP;", "mode", true, true},
		{"d->dumping = true;", "dumping", true, true},
		{"d->need++; d->need += 2;", "need", true, false},
		{"d->size = compute(d);", "size", true, false},
		{"d->temp == static_buf;", "temp", false, false},
		{"d->temp = NULL;", "temp", false, false},
	} {
		if got := setsMember(c.body, c.name, []string{"static_buf"}, c.bare); got != c.want {
			t.Errorf("setsMember(%q, %q, bare %v) = %v", c.body, c.name, c.bare, got)
		}
	}
	const file = "#define DUMP_MAX 8\nstatic char static_buf[DUMP_MAX];\nint dump_level = 1;\nstatic bool dumping __read_mostly;\n" +
		"void f(int len)\n{\n\tint local;\n}\n"
	for _, c := range []struct {
		name string
		want bool
	}{
		{"static_buf", true}, {"dump_level", true}, {"dumping", true},
		{"DUMP_MAX", false}, {"len", false}, {"local", false}, {"NULL", false}, {"f", false},
	} {
		if got := fileScopeVar(strings.Split(file, "\n"), c.name); got != c.want {
			t.Errorf("fileScopeVar(%q) = %v", c.name, got)
		}
	}
}
