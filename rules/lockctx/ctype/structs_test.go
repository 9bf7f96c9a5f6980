package ctype

import (
	"reflect"
	"slices"
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

// TestParseStructsTypedefMembers: a member declared with a struct's
// typedef is typed with the struct's tag when the text defines the
// typedef (before or after the struct), and not otherwise.
func TestParseStructsTypedefMembers(t *testing.T) {
	src := `
typedef struct zt_ops {
	void (*release)(struct zt *t);
} zt_ops_t;

typedef struct zt_lock zt_lock_t;

struct zt {
	const zt_ops_t *ops;
	zt_lock_t lock;
	zt_cfg_t *cfg;
	u32 count;
	later_t *later;
};

typedef   struct  later_s {
	int x;
}
later_t;
`
	got := ParseStructs(src)
	want := Structs{
		"zt_ops":  {},
		"zt":      {"ops": "zt_ops", "lock": "zt_lock", "later": "later_s"},
		"later_s": {},
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

// TestResolveIncludes: local includes resolve against the file's
// directory, <...> ones against include/, and <asm/...> against the
// file's architecture (x86 for generic code), then asm-generic.
func TestResolveIncludes(t *testing.T) {
	for _, tc := range []struct {
		file  string
		src   string
		angle bool
		want  []string
	}{
		{"drivers/net/a.c", "#include \"a.h\"\n#include <linux/b.h>\n", false, []string{"drivers/net/a.h"}},
		{"drivers/net/a.c", "#include \"a.h\"\n#include <linux/b.h>\n", true, []string{"drivers/net/a.h", "include/linux/b.h"}},
		{"include/linux/kvm_host.h", "#include <asm/kvm_host.h>\n", true,
			[]string{"arch/x86/include/asm/kvm_host.h", "include/asm-generic/kvm_host.h"}},
		{"arch/arm64/kvm/mmu.c", "#include <asm/kvm_mmu.h>\n", true,
			[]string{"arch/arm64/include/asm/kvm_mmu.h", "include/asm-generic/kvm_mmu.h"}},
		{"drivers/x.c", "#include <asm/io.h>\n", false, nil},
	} {
		delims, names := IncludeDirectives(tc.src)
		got := ResolveIncludes(tc.file, delims, names, tc.angle)
		if !slices.Equal(got, tc.want) {
			t.Errorf("ResolveIncludes(%s, %q, angle %v) = %q, want %q", tc.file, tc.src, tc.angle, got, tc.want)
		}
	}
}

// TestResolveIncludesIn: an <asm/...> include is the first candidate the
// tree has: the architecture's header, else asm-generic's, else none.
func TestResolveIncludesIn(t *testing.T) {
	src := "#include <asm/a.h>\n#include <asm/b.h>\n#include <asm/c.h>\n"
	have := map[string]bool{"arch/x86/include/asm/a.h": true, "include/asm-generic/a.h": true, "include/asm-generic/b.h": true}
	delims, names := IncludeDirectives(src)
	got := ResolveIncludesIn("drivers/x.c", delims, names, true, func(p string) bool { return have[p] })
	want := []string{"arch/x86/include/asm/a.h", "include/asm-generic/b.h"}
	if !slices.Equal(got, want) {
		t.Errorf("ResolveIncludesIn = %q, want %q", got, want)
	}
}

// TestClosingBrace: the offset of the brace closing the one before the
// text, nested braces skipped, -1 past the bound or when it never closes.
func TestClosingBrace(t *testing.T) {
	for _, tc := range []struct {
		s    string
		max  int
		want int
	}{
		{".a = 1 }", 100, 7},
		{"{ .b = { 1 } } }x", 100, 15},
		{"{ never", 100, -1},
		{".a = 1 }", 5, -1},
	} {
		if got := ClosingBrace(tc.s, tc.max); got != tc.want {
			t.Errorf("ClosingBrace(%q, %d) = %d, want %d", tc.s, tc.max, got, tc.want)
		}
	}
}

// TestParseStructsMemberAliases: a macro naming a member of an embedded
// struct (include/net/sock.h's "#define sk_prot __sk_common.skc_prot")
// is a member of the embedding struct, of the aliased member's type; a
// macro whose path does not lead to a struct-typed member, or that a
// struct already declares as a member, adds nothing.
func TestParseStructsMemberAliases(t *testing.T) {
	src := `
struct sock_common {
	struct proto		*skc_prot;
	unsigned short		skc_family;
};

struct sock {
	struct sock_common	__sk_common;
#define sk_prot			__sk_common.skc_prot
#define sk_family		__sk_common.skc_family
#define sk_node			__sk_common.skc_node
	struct socket		*sk_socket;
#define sk_socket		__sk_common.skc_prot
};
`
	got := ParseStructs(src)
	want := Structs{
		"sock_common": {"skc_prot": "proto"},
		"sock":        {"__sk_common": "sock_common", "sk_prot": "proto", "sk_socket": "socket"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ParseStructs:\n got %v\nwant %v", got, want)
	}
}

func TestMemberDecl(t *testing.T) {
	src := `
struct sock {
	spinlock_t		sk_lock;
	gfp_t			sk_allocation;	/* the mask */
	struct sk_buff		*sk_send_head, *sk_tail;
	u8			sk_pad[4];
	unsigned int		sk_flag:1;
	void			(*sk_data_ready)(struct sock *sk);
};
struct other { gfp_t gfp; };
`
	body := StructBody(src, "sock")
	for _, tc := range []struct{ m, want string }{
		{"sk_allocation", "gfp_t"},
		{"sk_lock", "spinlock_t"},
		{"sk_send_head", "struct sk_buff		*"},
		{"sk_tail", "struct sk_buff		*sk_send_head, *"},
		{"sk_pad", "u8"},
		{"sk_flag", "unsigned int"},
		{"gfp", ""},
		{"sk_alloc", ""},
	} {
		if got := MemberDecl(body, tc.m); got != tc.want {
			t.Errorf("MemberDecl(%q) = %q, want %q", tc.m, got, tc.want)
		}
	}
	if StructBody(src, "sk") != "" {
		t.Errorf("StructBody found struct sk")
	}
}
