package wakeup

import "testing"

// TestCodeOnly: comments are left out, code around them is kept.
func TestCodeOnly(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"\tp->on_rq = 1;\t/* queued */", "\tp->on_rq = 1;\t"},
		{"\t/* atomic_dec_and_test() is fully ordered */", "\t"},
		{"\tx->a = 1; // set", "\tx->a = 1; "},
		{"\t * list_add(&e->node, &q) in a block comment", ""},
		{"\t*p = 1;", "\t*p = 1;"},
		{"\t * end of it */ x->b = 2;", " x->b = 2;"},
		{"\ty->c = 3; /* starts here", "\ty->c = 3; "},
	} {
		if got := codeOnly(tc.in); got != tc.want {
			t.Errorf("codeOnly(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
