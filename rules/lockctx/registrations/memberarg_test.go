package registrations

import "testing"

func TestMemberArg(t *testing.T) {
	for _, tc := range []struct {
		in, base, member string
		ok               bool
	}{
		{"desc->handler", "desc", "handler", true},
		{"(irq_handler_t)tbl[i].fn", "tbl[i]", "fn", true},
		{"priv->ops->isr", "priv->ops", "isr", true},
		{"foo_isr", "", "", false},
		{"&foo_isr", "", "", false},
		{"NULL", "", "", false},
	} {
		base, member, ok := memberArg(tc.in)
		if ok != tc.ok || base != tc.base || member != tc.member {
			t.Errorf("memberArg(%q) = %q, %q, %v; want %q, %q, %v", tc.in, base, member, ok, tc.base, tc.member, tc.ok)
		}
	}
}
