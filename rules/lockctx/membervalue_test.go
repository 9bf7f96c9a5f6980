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
	for _, tc := range []struct {
		m    string
		want []memberStore
	}{
		{"gfp", []memberStore{{"GFP_NOIO", 2}, {"gfp | __GFP_ZERO", 12}}},
		{"p_allocation", []memberStore{{"GFP_KERNEL", 8}, {"(flags & X) ? GFP_ATOMIC : GFP_KERNEL", 13}}},
		{"allocation", nil},
	} {
		if got := scanMemberStores(src, tc.m); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("scanMemberStores(%q):\n got %v\nwant %v", tc.m, got, tc.want)
		}
	}
}
