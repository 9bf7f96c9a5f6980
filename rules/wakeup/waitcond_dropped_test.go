package wakeup

import "testing"

func TestCanonCompare(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"atomic_read(&e->e_refcnt)<=2", "atomic_read(&e->e_refcnt)<=2"},
		{"atomic_read(&e->e_refcnt)<3", "atomic_read(&e->e_refcnt)<=2"},
		{"2>=atomic_read(&e->e_refcnt)", "atomic_read(&e->e_refcnt)<=2"},
		{"3>cnt", "cnt<=2"},
		{"cnt>0", "cnt>=1"},
		{"0<cnt", "cnt>=1"},
		{"p->next", "p->next"},
		{"a==2", "a==2"},
		{"a!=0", "a!=0"},
		{"x<y", "x<y"},
		{"0<a&&b", "0<a&&b"},
		{"3>a?b:c", "3>a?b:c"},
		{"x>-1", "x>-1"},
		{"cnt<0", "cnt<0"},
		{"a>9223372036854775807", "a>9223372036854775807"},
		{"!list_empty(&q->list)>0", "!list_empty(&q->list)>=1"},
		{"p->cnt[2]<4", "p->cnt[2]<=3"},
	} {
		if got := canonCompare(tc.in); got != tc.want {
			t.Errorf("canonCompare(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestContainsTerm(t *testing.T) {
	for _, tc := range []struct {
		whole, t string
		want     bool
	}{
		{"a>=10", "a>=1", false},
		{"a>=1&&b", "a>=1", true},
		{"ba>=1", "a>=1", false},
		{"x||done", "done", true},
		{"x||undone", "done", false},
		{"f(x)", "(x)", true},
	} {
		if got := containsTerm(tc.whole, tc.t); got != tc.want {
			t.Errorf("containsTerm(%q, %q) = %v, want %v", tc.whole, tc.t, got, tc.want)
		}
	}
}
