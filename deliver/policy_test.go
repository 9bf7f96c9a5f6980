package deliver

import (
	"fmt"
	"strings"
	"testing"
)

func TestCapRcpt(t *testing.T) {
	many := func(n int) []string {
		var out []string
		for i := 0; i < n; i++ {
			out = append(out, fmt.Sprintf("v%d@example.com", i))
		}
		return out
	}
	p := &Policy{MaxRecipients: 5, Allow: Allow{Lists: []string{"linux-kernel.vger.kernel.org"}}, StableList: "stable@vger.kernel.org"}
	tests := []struct {
		name     string
		policy   *Policy
		rcpt     []string
		author   string
		want     string
		nDropped int
	}{
		{"under the cap", p, many(3), "", "v0@example.com v1@example.com v2@example.com", 0},
		{"no cap", &Policy{}, many(30), "", strings.Join(many(30), " "), 0},
		{"author, list and stable kept from the end",
			p, append(many(3000), "linux-kernel@vger.kernel.org", "Stable@vger.kernel.org", "author@example.com"), "author@example.com",
			"v0@example.com v1@example.com linux-kernel@vger.kernel.org Stable@vger.kernel.org author@example.com", 2998},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			kept, dropped := tt.policy.capRcpt(tt.rcpt, tt.author)
			if got := strings.Join(kept, " "); got != tt.want {
				t.Errorf("kept %q, want %q", got, tt.want)
			}
			if len(dropped) != tt.nDropped || len(kept)+len(dropped) != len(tt.rcpt) {
				t.Errorf("%d dropped, want %d (kept %d of %d)", len(dropped), tt.nDropped, len(kept), len(tt.rcpt))
			}
		})
	}
}
