package sleep

import (
	"testing"

	"github.com/autosel-bot/autosel-bot/cscan"
)

// TestMemberMask: an allocation whose whole mask is a gfp_members member
// sleeps unless the file stores an atomic mask in that member; a mask
// built from the member, another member or another call is not one.
func TestMemberMask(t *testing.T) {
	sl := tableSleeper(t)
	for _, tc := range []struct {
		call cscan.Call
		src  string
		want bool
	}{
		{cscan.Call{Name: "alloc_skb", Args: []string{"len", "sk->sk_allocation"}}, "", true},
		{cscan.Call{Name: "alloc_skb", Args: []string{"len", "(nr->sock->sk->sk_allocation)"}}, "", true},
		{cscan.Call{Name: "kmalloc", Args: []string{"len", "sock.sk_allocation"}}, "", true},
		{cscan.Call{Name: "alloc_skb", Args: []string{"len", "sk->sk_allocation"}}, "sk->sk_allocation = GFP_ATOMIC;", false},
		{cscan.Call{Name: "alloc_skb", Args: []string{"len", "sk->sk_allocation"}}, "sk->sk_allocation  =  GFP_NOWAIT | __GFP_NOWARN;", false},
		{cscan.Call{Name: "alloc_skb", Args: []string{"len", "sk->sk_allocation"}}, "sk->sk_allocation = GFP_NOIO;", true},
		{cscan.Call{Name: "alloc_skb", Args: []string{"len", "sk_gfp_mask(sk, GFP_ATOMIC)"}}, "", false},
		{cscan.Call{Name: "alloc_skb", Args: []string{"len", "sk->sk_allocation | __GFP_NOWARN"}}, "", false},
		{cscan.Call{Name: "alloc_skb", Args: []string{"len", "dev->gfp"}}, "", false},
		{cscan.Call{Name: "memcpy", Args: []string{"a", "sk->sk_allocation"}}, "", false},
	} {
		dep := sl.FileDependent(tc.call)
		_, got := sl.ReachesIn(tc.call, sl.FileFacts("net/x.c", []byte(tc.src)))
		if got != tc.want || got && !dep {
			t.Errorf("%s(%v) in %q: reaches %v (file dependent %v), want %v", tc.call.Name, tc.call.Args, tc.src, got, dep, tc.want)
		}
	}
}
