package sleep

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/rules/lockctx"
)

// gfpMemberRow is a struct member that holds a GFP mask with a sleeping
// default (the "gfp_members" rows of the table): sock_init_data() sets
// sk->sk_allocation to GFP_KERNEL, and only some owners store an atomic
// mask there. An allocation with that member's mask sleeps unless the
// file making it stores an atomic mask in the member (a protocol or
// driver whose sockets must allocate atomically).
type gfpMemberRow struct {
	Members []string `yaml:"members"`
	Why     string   `yaml:"why"`
	Source  string   `yaml:"source"`
}

// compileGFPMembers indexes the rows by member.
func (m *sleeper) compileGFPMembers(rows []gfpMemberRow) error {
	m.gfpMembers = map[string]string{}
	for i, r := range rows {
		if len(r.Members) == 0 || r.Why == "" {
			return fmt.Errorf("sleep.gfp_members[%d]: needs members and why", i)
		}
		for _, mem := range r.Members {
			m.gfpMembers[mem] = r.Why
		}
	}
	return nil
}

// memberMaskRe matches a mask read from a struct member ("sk->sk_allocation",
// "(conn->sock->sk->sk_allocation)"), capturing the member.
var memberMaskRe = regexp.MustCompile(`^[A-Za-z_][\w\[\]]*(?:(?:->|\.)[A-Za-z_][\w\[\]]*)*(?:->|\.)([A-Za-z_]\w*)$`)

// memberMask returns the gfp_members member whose value allocator call c
// passes as its whole mask, "" for another call or mask.
func (m *sleeper) memberMask(c cscan.Call) string {
	i, ok := m.alloc[c.Name]
	if !ok || i < 0 || i >= len(c.Args) || len(m.gfpMembers) == 0 {
		return ""
	}
	a := strings.Join(strings.Fields(cscan.StripParens(strings.TrimSpace(c.Args[i]))), "")
	mm := memberMaskRe.FindStringSubmatch(a)
	if mm == nil {
		return ""
	}
	if _, ok := m.gfpMembers[mm[1]]; !ok {
		return ""
	}
	return mm[1]
}

// atomicMembers returns the gfp_members members that flattened source
// flat stores an atomic mask in (".sk_allocation = GFP_ATOMIC").
func (m *sleeper) atomicMembers(flat []byte) map[string]bool {
	var out map[string]bool
	for mem := range m.gfpMembers {
		var texts []string
		for _, a := range m.gfpAtomic {
			if !strings.HasPrefix(a, "~") {
				texts = append(texts, mem+" = "+a)
			}
		}
		if lockctx.FlatHoldsAny(flat, texts) {
			if out == nil {
				out = map[string]bool{}
			}
			out[mem] = true
		}
	}
	return out
}

// memberMaskReaches reports whether allocator call c, whose mask is the
// gfp_members member mem, sleeps in a file storing an atomic mask in the
// members atomic holds.
func (m *sleeper) memberMaskReaches(c cscan.Call, mem string, atomic map[string]bool) (string, bool) {
	if atomic[mem] {
		return "", false
	}
	i := m.alloc[c.Name]
	return "allocates with " + strings.TrimSpace(c.Args[i]) + ": " + m.gfpMembers[mem], true
}
