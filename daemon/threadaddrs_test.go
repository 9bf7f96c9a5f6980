package daemon

import (
	"sort"
	"strings"
	"testing"

	"github.com/autosel-bot/autosel-bot/series"
	"github.com/autosel-bot/autosel-bot/stable/stabletest"
)

// TestThreadAddrs: a reply may go to the series' own correspondents, the
// patch authors named in the body (as reply addresses them) and the extra
// addresses; to the trailers' people only when the reply options add them.
func TestThreadAddrs(t *testing.T) {
	msg := stabletest.ParseMail(t, `From: Sasha Levin <sashal@kernel.org>
To: linux-kernel@vger.kernel.org
Cc: stable@vger.kernel.org
Subject: [PATCH AUTOSEL 6.1 1/2] x: y
Message-Id: <a@kernel.org>

From: Author Person <author@example.com>

Text.

Reviewed-by: Rev Iewer <rev@example.net>
Signed-off-by: Author Person <author@example.com>
Cc: Other <other@example.org> # 6.1+
---
diff --git a/a.c b/a.c
--- a/a.c
+++ b/a.c
@@ -1 +1 @@
-a
+b
`)
	s := &series.Series{ID: msg.MessageID, Patches: []*series.Patch{{Msg: msg, Number: 1}}}
	base := "author@example.com linux-kernel@vger.kernel.org list@x.org sashal@kernel.org stable@vger.kernel.org"
	for _, tt := range []struct {
		trailers bool
		want     string
	}{
		{false, base},
		{true, "author@example.com linux-kernel@vger.kernel.org list@x.org other@example.org rev@example.net sashal@kernel.org stable@vger.kernel.org"},
	} {
		set := threadAddrs(s, tt.trailers, "List@x.org")
		var got []string
		for a := range set {
			got = append(got, a)
		}
		sort.Strings(got)
		if g := strings.Join(got, " "); g != tt.want {
			t.Errorf("trailers %v:\n got %s\nwant %s", tt.trailers, g, tt.want)
		}
	}
}
