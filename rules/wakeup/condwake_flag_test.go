package wakeup

import (
	"strings"
	"testing"

	"github.com/autosel-bot/autosel-bot/cscan"
)

// TestFlagStoreGuards: the guards a flag's one store adds to a wake-up
// that tests it, and the stored expression when it is not a constant.
func TestFlagStoreGuards(t *testing.T) {
	src := `void f(struct x *x)
{
	bool a = false, b = false, c = false, d = false;
	bool e = x->head != x->tail, f = false, g = false;

	for (i = 0; i < n; i++) {
		if (x->v[i] == 1)
			if (x->quiet)
				a = true;
		b = x->head != x->tail;
	}
	if (x->err)
		c = 1;
	else
		c = true;
	d = false;
	if (x->flush)
		e = true;
	f |= x->v[0] == 2;
	if (x->flush)
		f = true;
	note(&g);
	g = true;
	h = x->flush && a;
	h = x->v[0] & b;
	if (a || b || c || d || e || f || g)
		wake_up(&x->wq);
}
`
	fn := cscan.ParseFile("f.c", []byte(src)).Funcs[0]
	for _, tc := range []struct {
		flag string
		want string
		ok   bool
	}{
		{"a", "loop i = 0; i < n; i++|if x->v[i] == 1|if x->quiet", true},
		{"b", "loop i = 0; i < n; i++|if x->head != x->tail", true},
		{"c", "", false}, // two stores
		{"d", "", false}, // only cleared
		{"e", "", false}, // initialised from an expression
		{"f", "", false}, // or-ed into
		{"g", "", false}, // its address taken
	} {
		gs, ok := flagStoreGuards(fn.Body, tc.flag, 27)
		var got []string
		for _, g := range gs {
			got = append(got, g.Kind+" "+g.Cond)
		}
		if s := strings.Join(got, "|"); s != tc.want || ok != tc.ok {
			t.Errorf("%s: guards %q, %v; want %q, %v", tc.flag, s, ok, tc.want, tc.ok)
		}
	}
}

// TestWithArgs: a helper's parameters are replaced by the caller's
// arguments, but not a member of the same name.
func TestWithArgs(t *testing.T) {
	got := withArgs("c->packet_head = c->head + v->c;", []string{"c", "v"}, []string{"client", " &event"})
	if want := "client->packet_head = client->head + &event->c;"; got != want {
		t.Errorf("withArgs = %q, want %q", got, want)
	}
}
