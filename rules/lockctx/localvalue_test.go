package lockctx

import (
	"slices"
	"testing"
)

func TestAssignments(t *testing.T) {
	tests := []struct {
		text     string
		declares bool
		vals     []string
		ok       bool
	}{
		{"gfp_t gfp = GFP_KERNEL", true, []string{"GFP_KERNEL"}, true},
		{"const gfp_t gfp = flags | __GFP_ZERO, other = 0", true, []string{"flags | __GFP_ZERO"}, true},
		{"gfp_t gfp", true, nil, true},
		{"gfp = in_task() ? GFP_KERNEL : GFP_ATOMIC", false, []string{"in_task() ? GFP_KERNEL : GFP_ATOMIC"}, true},
		{"p = kmalloc(n, gfp)", false, nil, true},
		{"if_gfp = 1; gfpx = 2", false, nil, true},
		{"d->gfp = GFP_ATOMIC", false, nil, true},
		{"s.gfp = GFP_ATOMIC", false, nil, true},
		{"gfp |= __GFP_NOWARN", false, nil, false},
		{"gfp &= ~__GFP_DIRECT_RECLAIM", false, nil, false},
		{"setup(&gfp)", false, nil, false},
		{"ok = a && gfp == GFP_KERNEL", false, nil, true},
		{"gfp++", false, nil, false},
		{"return gfp", false, nil, true},
		{"return n * gfp", false, nil, true},
		{`pr_debug("reset, back to default gfp")`, false, nil, true},
		{`pr_info("gfp = %x", gfp)`, false, nil, true},
		{"struct foo *gfp = NULL", true, []string{"NULL"}, true},
		{"x = n * gfp", false, nil, true},
		{"WRITE_ONCE(gfp, GFP_ATOMIC)", false, nil, false},
		{"swap(gfp, alt)", false, nil, false},
		{"WRITE_ONCE(d->x, gfp)", false, nil, false},
	}
	for _, tt := range tests {
		d, vs, ok := assignments(tt.text, "gfp")
		if d != tt.declares || !slices.Equal(vs, tt.vals) || ok != tt.ok {
			t.Errorf("assignments(%q) = %v, %q, %v; want %v, %q, %v", tt.text, d, vs, ok, tt.declares, tt.vals, tt.ok)
		}
	}
}
