package wakeup

import "testing"

// TestCanonKeyThroughIncludedHeaders re-roots queue keys whose first
// struct is defined in a header that the site's file reaches only through
// another header: 8250_port.c includes <linux/serial_8250.h>, which
// includes <linux/serial_core.h> (struct uart_port), past the files a
// search from 8250_port.c itself reads.
func TestCanonKeyThroughIncludedHeaders(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the kernel tree's index")
	}
	r := treeChecker(t)
	r.typ = newTyper(r)
	for _, tc := range []struct{ q, file, want string }{
		{"uart_port.state.port.delta_msr_wait", "drivers/tty/serial/8250/8250_port.c", "tty_port.delta_msr_wait"},
		{"uart_port.state.port.delta_msr_wait", "drivers/tty/serial/serial_core.c", "tty_port.delta_msr_wait"},
		{"tty_port.delta_msr_wait", "drivers/tty/serial/serial_core.c", "tty_port.delta_msr_wait"},
	} {
		if got := r.canonKey(tc.q, tc.file); got != tc.want {
			t.Errorf("canonKey(%q, %s) = %q, want %q", tc.q, tc.file, got, tc.want)
		}
	}
}

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
