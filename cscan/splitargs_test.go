package cscan

import "testing"

func TestMatchParen(t *testing.T) {
	for _, tc := range []struct {
		s    string
		open int
		want int
	}{
		{"f(a, (b))", 1, 8},
		{"f(a, (b))", 5, 7},
		{"(a) + (b)", 0, 2},
		{"f(a", 1, -1},
		{"f(a)", 0, -1},
		{"f(a)", 9, -1},
	} {
		if got := MatchParen(tc.s, tc.open); got != tc.want {
			t.Errorf("MatchParen(%q, %d) = %d, want %d", tc.s, tc.open, got, tc.want)
		}
	}
}

func TestTernary(t *testing.T) {
	for _, tc := range []struct {
		s        string
		q, colon int
	}{
		{"a ? b : c", 2, 6},
		{"f(a ? b : c)", -1, -1},
		{"a ? (b ? c : d) : e", 2, 16},
		{"a ? b ? c : d : e", 2, 14},
		{"x | y", -1, -1},
	} {
		if q, c := Ternary(tc.s); q != tc.q || c != tc.colon {
			t.Errorf("Ternary(%q) = %d, %d, want %d, %d", tc.s, q, c, tc.q, tc.colon)
		}
	}
}

func TestTopLevel(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"atomic_read(&e->e_refcnt)", "atomic_read"},
		{"static struct x a = { .f = g(1) }, b;", "static struct x a = , b;"},
		{"a)b", "a)b"},
		{"", ""},
	} {
		if got := TopLevel(tc.in); got != tc.want {
			t.Errorf("TopLevel(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
