package diffcheck

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// manaHeaderHunk is the include/net/mana/mana.h hunk of "net: mana: Add
// gdma stats to ethtool output": a prototype added after others, in a
// hunk whose section line git took from the multi-line prototype of
// mana_run_xdp().
const manaHeaderHunk = `diff --git a/include/net/mana/mana.h b/include/net/mana/mana.h
index 1111111..2222222 100644
--- a/include/net/mana/mana.h
+++ b/include/net/mana/mana.h
@@ -447,6 +447,7 @@ u32 mana_run_xdp(struct net_device *ndev, struct mana_rxq *rxq,
 struct bpf_prog *mana_xdp_get(struct mana_port_context *apc);
 void mana_chn_setxdp(struct mana_port_context *apc, struct bpf_prog *prog);
 int mana_bpf(struct net_device *ndev, struct netdev_bpf *bpf);
+void mana_query_gf_stats(struct mana_port_context *apc);
 
 extern const struct ethtool_ops mana_ethtool_ops;
 
`

// TestDeclarationsAreNotBodies: lines among top-level declarations belong
// to no function, whatever function the hunk's section names; a change
// inside a body still belongs to it.
func TestDeclarationsAreNotBodies(t *testing.T) {
	tests := []struct {
		name, diff string
		funcs      []string
	}{
		{"prototype after prototypes", manaHeaderHunk, nil},
		{"body", `diff --git a/fs/x.c b/fs/x.c
--- a/fs/x.c
+++ b/fs/x.c
@@ -10,4 +10,5 @@ static int f(struct x *p)
 	int a;
 
 	a = g(p);
+	h(p);
 	return a;
`, []string{"fs/x.c:f"}},
		{"label in body", `diff --git a/fs/x.c b/fs/x.c
--- a/fs/x.c
+++ b/fs/x.c
@@ -10,3 +10,4 @@ static int f(struct x *p)
 	a = g(p);
 out:
+	h(p);
 	return a;
`, []string{"fs/x.c:f"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cs, err := Parse(tc.diff)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, fc := range cs.Funcs {
				got = append(got, fc.File+":"+fc.Name)
			}
			if strings.Join(got, " ") != strings.Join(tc.funcs, " ") {
				t.Errorf("functions %q, want %q", got, tc.funcs)
			}
		})
	}
}

// debianManaH is include/net/mana/mana.h of Debian's linux-source-6.1
// around the hunk: the prototype is already there (backported), so the
// hunk does not apply.
const debianManaH = `void mana_remove(struct gdma_dev *gd, bool suspending);

void mana_xdp_tx(struct sk_buff *skb, struct net_device *ndev);
int mana_xdp_xmit(struct net_device *ndev, int n, struct xdp_frame **frames,
		  u32 flags);
u32 mana_run_xdp(struct net_device *ndev, struct mana_rxq *rxq,
		 struct xdp_buff *xdp, void *buf_va, uint pkt_len);
struct bpf_prog *mana_xdp_get(struct mana_port_context *apc);
void mana_chn_setxdp(struct mana_port_context *apc, struct bpf_prog *prog);
int mana_bpf(struct net_device *ndev, struct netdev_bpf *bpf);
void mana_query_gf_stats(struct mana_port_context *apc);
int mana_pre_alloc_rxbufs(struct mana_port_context *apc, int mtu, int num_queues);
void mana_pre_dealloc_rxbufs(struct mana_port_context *apc);

extern const struct ethtool_ops mana_ethtool_ops;
`

// TestDeclarationsNotBodiesWhenNotApplied: when the header hunk does not
// apply, the post-image mapping (the hunks' functions) makes no body of
// mana_run_xdp() out of the prototypes after it.
func TestDeclarationsNotBodiesWhenNotApplied(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "include", "net", "mana", "mana.h")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(debianManaH), 0o644); err != nil {
		t.Fatal(err)
	}
	cs, err := Parse(manaHeaderHunk)
	if err != nil {
		t.Fatal(err)
	}
	if err := ApplyTree(cs, DirTree(dir)); err != nil {
		t.Fatal(err)
	}
	if cs.ApplyError == "" {
		t.Fatal("the hunk applied: the test needs one that does not")
	}
	for _, fc := range cs.Funcs {
		t.Errorf("function %s:%s from a hunk of declarations", fc.File, fc.Name)
	}
}
