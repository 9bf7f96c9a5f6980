package wakeup

import (
	"strings"
	"testing"

	"github.com/autosel-bot/autosel-bot/cscan"
)

// TestStmtGuards: a goto's guards are the statements around it,
// outermost first, as the scanner gives a return's.
func TestStmtGuards(t *testing.T) {
	src := `void f(struct x *x)
{
	if (x->a) {
		while (x->b)
			if (!x->c)
				goto out;
	} else {
		goto err;
	}
	goto end;
out:
err:
end:
	return;
}
`
	fn := cscan.ParseFile("f.c", []byte(src)).Funcs[0]
	for _, tc := range []struct {
		line int
		want string
	}{
		{6, "if x->a|loop x->b|if !x->c"},
		{8, "else x->a"},
		{10, ""},
		{3, ""}, // no goto there
	} {
		var got []string
		for _, g := range stmtGuards(fn.Body, tc.line) {
			got = append(got, g.Kind+" "+g.Cond)
		}
		if s := strings.Join(got, "|"); s != tc.want {
			t.Errorf("line %d: guards %q, want %q", tc.line, s, tc.want)
		}
	}
}

// TestHelperCalls: accessors whose meaning lies in their arguments are no
// shared helper; keywords are no calls.
func TestHelperCalls(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"tty_throttled(tty)", "tty_throttled"},
		{"!test_bit(XQ_STREAMING, &xd->flags)", ""},
		{"atomic_read(&x->n) && READ_ONCE(x->f)", ""},
		{"if (unlikely(xq_busy(xd)))", "xq_busy"},
	} {
		var got []string
		for h := range helperCalls(tc.text) {
			got = append(got, h)
		}
		if s := strings.Join(got, ","); s != tc.want {
			t.Errorf("helperCalls(%q) = %q, want %q", tc.text, s, tc.want)
		}
	}
}
