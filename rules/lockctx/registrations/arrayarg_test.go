package registrations

import (
	"slices"
	"testing"
)

func TestArrayElems(t *testing.T) {
	for _, c := range []struct {
		name, text string
		want       []string
	}{
		{"callbacks", "vq_callback_t *callbacks[] = { rx_done, tx_done, NULL };", []string{"rx_done", "tx_done"}},
		{"cbs", "static vq_callback_t *cbs[N] = {\n\t[RX] = rx_done, /* rx */\n\t[TX] = (vq_callback_t *)tx_done,\n};", []string{"rx_done", "tx_done"}},
		{"callbacks", "callbacks = kmalloc_array(n, sizeof(*callbacks), GFP_KERNEL);\nfor (i = 0; i < n; i++)\n\tcallbacks[rxq2vq(i)] = skb_recv_done;\ncallbacks[ctrl] = NULL;", []string{"skb_recv_done"}},
		{"cb", "vq_callback_t *cb = done;\nerr = find(vdev, 1, &vq, &cb);", []string{"done"}},
		{"callbacks", "callbacks[i] = ok ? fast_done : slow_done;", []string{"fast_done", "slow_done"}},
		{"callbacks", "other_callbacks[0] = nope;\nx = callbacks[0] == y;", nil},
		{"callbacks", "// callbacks[0] = commented;\n", nil},
		{"callbacks", "callbacks[vq2rxq(vqs[i])] = rx_done;", []string{"rx_done"}},
		{"cb", "if (fast)\n\tcb = fast_done;\nelse\n\tcb = slow_done;", []string{"fast_done", "slow_done"}},
		{"handlers", "static int (*handlers[])(struct client *, union arg *) = {\n\t[0] = get_info,\n\tput_info,\n};", []string{"get_info", "put_info"}},
	} {
		got := arrayElems(c.text, c.name)
		if !slices.Equal(got, c.want) {
			t.Errorf("arrayElems(%q, %q) = %q, want %q", c.text, c.name, got, c.want)
		}
	}
}

func FuzzArrayElems(f *testing.F) {
	for _, s := range []string{"cbs[] = { a, [1] = b };", "cbs[x[i]] = c;", "*cbs = d;", "cbs = { ;"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, n := range arrayElems(s, "cbs") {
			if n == "" {
				t.Fatalf("arrayElems(%q) gave an empty name", s)
			}
		}
	})
}
