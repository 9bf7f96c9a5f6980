package ctype

import (
	"reflect"
	"testing"
)

func TestParseStructs(t *testing.T) {
	src := `
struct e1000_phy_info {
	struct e1000_phy_operations ops; /* the ops */
	const struct e1000_phy_stats *stats;
	u32 addr;
	union {
		struct foo_a a;
		struct foo_b *b[4];
	};
	void (*cb)(struct foo_c *c);
};

struct e1000_hw {
	struct e1000_adapter *adapter;
	unsigned long flags;
#define IS_VF(hw)	test_bit(HW_IS_VF, \
			 &(hw)->flags)
#ifdef CONFIG_E1000_PHY
	struct e1000_phy_info phy;
#endif
};

static struct e1000_hw global_hw = { .adapter = NULL };
`
	got := ParseStructs(src)
	want := Structs{
		"e1000_phy_info": {"ops": "e1000_phy_operations", "stats": "e1000_phy_stats", "a": "foo_a", "b": "foo_b"},
		"e1000_hw":       {"adapter": "e1000_adapter", "phy": "e1000_phy_info"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ParseStructs:\n got %v\nwant %v", got, want)
	}
}

func TestSplitMembers(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"hw->phy.ops", []string{"hw", "phy", "ops"}},
		{" dev -> netdev_ops ", []string{"dev", "netdev_ops"}},
		{"tbl[i].ops", nil},
		{"get_ops(dev)->x", nil},
	} {
		if got := SplitMembers(tc.in); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("SplitMembers(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
