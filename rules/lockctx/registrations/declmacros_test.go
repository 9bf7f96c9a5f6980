package registrations

import (
	"reflect"
	"testing"

	"github.com/autosel-bot/autosel-bot/index/indextest"
)

func TestMacroArgs(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
		ok   bool
	}{
		{"mytimer, mytimer_handler);", []string{"mytimer", "mytimer_handler"}, true},
		{"t, (void (*)(struct timer_list *))fn, f(a, b));", []string{"t", "(void (*)(struct timer_list *))fn", "f(a, b)"}, true},
		{"x, {1, 2});", []string{"x", "{1, 2}"}, true},
		{"unterminated, a", nil, false},
		{"a, b};", nil, false},
	} {
		got, ok := macroArgs(tc.in)
		if ok != tc.ok || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("macroArgs(%q) = %q, %v; want %q, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

// TestDeclRegistrationsPerView: a tree file's declaration-macro
// registrations are shared by every view, and a file the patch changes is
// scanned in its view alone, in whichever order the views ask.
func TestDeclRegistrationsPerView(t *testing.T) {
	cbs := []Callback{{Names: []string{"DEFINE_TIMER"}, Decl: true, Arg: 1, Kind: "softirq", Why: "a test timer"}}
	timer := func(fn string) string {
		return "static void " + fn + "(struct timer_list *t)\n{\n}\n\nstatic DEFINE_TIMER(tm, " + fn + ");\n"
	}
	ix := indextest.Open(t, map[string]string{"a.c": timer("ha"), "b.c": timer("hb")})
	// The patch drops a.c's timer: its view sees none there, and still
	// b.c's; the tree, asked after and before, keeps both.
	view := ix.Overlay(map[string][]byte{"a.c": []byte("static void ha(struct timer_list *t)\n{\n}\n")})
	before := New(Config{Index: ix, ID: "test", Callbacks: cbs})
	if len(before.Decl("b.c", "hb")) != 1 {
		t.Fatal("the tree's b.c registers no timer")
	}
	r := New(Config{Index: view, ID: "test", Callbacks: cbs})
	if got := r.Decl("a.c", "ha"); len(got) != 0 {
		t.Errorf("the view sees a.c's dropped timer: %v", got)
	}
	if got := r.Decl("b.c", "hb"); len(got) != 1 || got[0].Row.Kind != "softirq" {
		t.Errorf("the view's b.c registrations %+v", got)
	}
	after := New(Config{Index: ix, ID: "test", Callbacks: cbs})
	if got := after.Decl("a.c", "ha"); len(got) != 1 {
		t.Errorf("the tree's a.c registrations after the view's: %+v", got)
	}
}
