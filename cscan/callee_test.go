package cscan

import (
	"slices"
	"testing"
)

func TestPointerCallees(t *testing.T) {
	for _, tc := range []struct {
		body string
		want []string
	}{
		{"il->handlers[pkt->hdr.cmd](il, rxb);", []string{"il->handlers[]"}},
		{"icmp_pointers[icmph->type].handler(skb);", []string{"icmp_pointers[].handler"}},
		{"pos = chip->get_position[stream](chip, azx_dev);", []string{"chip->get_position[]"}},
		{"tbl[i][j].ops->fn(x);", []string{"tbl[][].ops->fn"}},
		{"handlers[cmd](x);", []string{"handlers[]"}},
		{"(*fnp)(x);", []string{"fnp"}},
		{"(*dev->ops->fn)(d);", []string{"dev->ops->fn"}},
		{"(dev->ops->fn)(d);", []string{"dev->ops->fn"}},
		{"ops->release(x);", []string{"ops->release"}},
		{"x = (u32)(y);", nil},
		{"x = (struct foo *)(y);", nil},
		{"z = get(a)(b);", []string{"get"}},
		{"n = sizeof(int)(x);", nil},
		{"m = (a + b)(c);", nil},
	} {
		fn := ParseBody("{\n"+tc.body+"\n}", nil)
		var got []string
		for _, c := range fn.Calls {
			got = append(got, c.Name)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: calls %q, want %q", tc.body, got, tc.want)
		}
	}
}

func TestCalleeMember(t *testing.T) {
	for _, tc := range []struct {
		name, want string
		ok         bool
	}{
		{"ops->release", "release", true},
		{"a.b->fn", "fn", true},
		{"il->handlers[]", "handlers", true},
		{"x->tbl[][]", "tbl", true},
		{"icmp_pointers[].handler", "handler", true},
		{"spin_lock", "", false},
		{"handlers[]", "", false},
	} {
		m, ok := CalleeMember(tc.name)
		if m != tc.want || ok != tc.ok {
			t.Errorf("CalleeMember(%q) = %q, %v; want %q, %v", tc.name, m, ok, tc.want, tc.ok)
		}
	}
}
