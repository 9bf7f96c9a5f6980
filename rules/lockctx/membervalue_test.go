package lockctx

import (
	"reflect"
	"testing"
)

func TestScanMemberStores(t *testing.T) {
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
}
`
	got := scanMemberStores(src)
	want := map[string][]memberStore{
		"gfp":          {{"GFP_NOIO", 2}, {"gfp | __GFP_ZERO", 12}},
		"p_allocation": {{"GFP_KERNEL", 8}, {"(flags & X) ? GFP_ATOMIC : GFP_KERNEL", 13}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("scanMemberStores:\n got %v\nwant %v", got, want)
	}
}
