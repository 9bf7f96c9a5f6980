package lockctx

import "testing"

func TestTableCall(t *testing.T) {
	for _, tc := range []struct {
		name string
		want bool
	}{
		{"handlers[]", true},
		{"il->handlers[]", true},
		{"icmp_pointers[].handler", true},
		{"->handlers[]", true},
		{"h->port[]->ops->xfer", false},
		{"stats_grps[]->update_stats", false},
		{"pp_handlers[PP_DISASSOC]", false},
		{"ops->release", false},
		{"(*fnp)", false},
	} {
		if got := TableCall(tc.name); got != tc.want {
			t.Errorf("TableCall(%q) = %v, want %v", tc.name, got, tc.want)
		}
	}
}
