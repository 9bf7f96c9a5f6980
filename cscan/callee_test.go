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
		{"(*fnp)(x);", []string{"(*fnp)"}},
		{"return (*fn)(x);", []string{"(*fn)"}},
		{"if (fp)\n\t(*fp)(hdw, onoff);", []string{"(*fp)"}},
		{"(void)(*fp)(x);", []string{"(*fp)"}},
		{"(*batadv_rx_handler[idx])(skb, iface);", []string{"batadv_rx_handler[]"}},
		{"(*mod->modfunc[i])(cf, mod);", []string{"mod->modfunc[]"}},
		{"pp_handlers[PP_DISASSOC](p);", []string{"pp_handlers[PP_DISASSOC]"}},
		{"c->handlers[CPL_ACT_OPEN_RPL](dev, skb);", []string{"c->handlers[CPL_ACT_OPEN_RPL]"}},
		{"to_devx(p)->handlers[op](d);", []string{"to_devx", "->handlers[]"}},
		{"to_devx(p)->arr[i].fn(d);", []string{"to_devx", "->arr[].fn"}},
		{"u8 *(*get)(struct x *) = pick;", nil},
		{"void (*cb)(int) = f;", nil},
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
