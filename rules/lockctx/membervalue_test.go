package lockctx

import (
	"reflect"
	"testing"
)

func TestScanMemberWrites(t *testing.T) {
	src := `static const struct foo_ops ops = {
	.gfp = GFP_NOIO,
};

void init(struct psock *ps, gfp_t gfp)
{
	/* ps->p_allocation = GFP_ATOMIC; in a comment */
	ps->p_allocation	=	GFP_KERNEL;
	ps->p_allocation |= __GFP_MEMALLOC;
	if (ps->p_allocation == GFP_ATOMIC)
		return;
	ps->conf->gfp = gfp | __GFP_ZERO;
	ps.p_allocation = (flags & X) ? GFP_ATOMIC : GFP_KERNEL;
	WRITE_ONCE(ps->mask, GFP_NOWAIT);
	ps->mask &= ~__GFP_DIRECT_RECLAIM;
	set_mask(&ps->addr_mask);
	set_mask(&ps->addr_mask.inner);
	ok = ps->state && ps->addr_mask == 1;
	p_psk(ps)->state = GFP_ATOMIC;
	(*pp)->state = GFP_KERNEL;
	x = y & ps->addr_mask;
}
`
	for _, tc := range []struct {
		m    string
		want memberWrites
	}{
		{"gfp", memberWrites{stores: []memberStore{{designatedBase, "GFP_NOIO", 2}, {"ps->conf", "gfp | __GFP_ZERO", 12}}}},
		{"p_allocation", memberWrites{stores: []memberStore{{"ps", "GFP_KERNEL", 8}, {"ps", "(flags & X) ? GFP_ATOMIC : GFP_KERNEL", 13}}}},
		{"mask", memberWrites{stores: []memberStore{{"ps", "GFP_NOWAIT", 14}}, opaqueLines: []int{15}}},
		{"addr_mask", memberWrites{opaqueLines: []int{16}}},
		{"allocation", memberWrites{}},
		{"state", memberWrites{stores: []memberStore{{otherBase, "GFP_ATOMIC", 19}, {otherBase, "GFP_KERNEL", 20}}}},
	} {
		if got := scanMemberWrites(src, tc.m); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("scanMemberWrites(%q):\n got %+v\nwant %+v", tc.m, got, tc.want)
		}
	}
}
