package lockctx

import "testing"

// TestAnnotationArg reads __must_hold() in function heads as Linux 6.1
// writes them.
func TestAnnotationArg(t *testing.T) {
	for _, tt := range []struct{ head, want string }{
		{"static u64 gs_usb_timestamp_read(const struct cyclecounter *cc) __must_hold(&dev->tc_lock)\n{", "&dev->tc_lock"},
		{"static void hci_conn_cleanup(struct hci_conn *conn,\n\t\t\t     const bdaddr_t *bdaddr, u8 addr_type)\n\t__must_hold(&hdev->lock)\n{", "&hdev->lock"},
		{"static enum lru_status shadow_lru_isolate(struct list_head *item,\n\tvoid *arg) __must_hold(lru_lock)\n{", "lru_lock"},
		{"static void f(int (*cb)(int)) __must_hold(&(x->l))\n{", "&(x->l)"},
		// Not after the parameter list, or another annotation.
		{"static void g(int __must_hold)\n{", ""},
		{"static void h(struct x *x) __releases(&x->lock)\n{", ""},
		{"static void k(struct x *x)\n{", ""},
	} {
		if got := annotationArg(tt.head, "__must_hold"); got != tt.want {
			t.Errorf("annotationArg(%q) = %q, want %q", tt.head, got, tt.want)
		}
	}
}
