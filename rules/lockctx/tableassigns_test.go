package lockctx

import "testing"

// TestTableStoreRe: stores of a table's element into a member, and what
// is no such store.
func TestTableStoreRe(t *testing.T) {
	for _, tc := range []struct {
		src, want string // want: "base member table", "" for no match
	}{
		{"chip->get_position[0] = chip->get_position[1] = callbacks[fix];", "chip get_position callbacks"},
		{"rd->handle = rr_handlers[busy];", "rd handle rr_handlers"},
		{"chip->streams[i].get_pos = callbacks[fix];", "chip->streams[i] get_pos callbacks"},
		{"p->fn = (handler_t)tbl[i];", "p fn tbl"},
		{"return p->handler == handlers[i];", ""},
		{"if (p->handler == handlers[i]);", ""},
		{"p->count = 3;", ""},
	} {
		got := ""
		if m := tableStoreRe.FindStringSubmatch(tc.src); m != nil {
			got = m[1] + " " + m[2] + " " + m[3]
		}
		if got != tc.want {
			t.Errorf("%q: got %q, want %q", tc.src, got, tc.want)
		}
	}
}
