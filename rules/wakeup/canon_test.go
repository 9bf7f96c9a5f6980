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
