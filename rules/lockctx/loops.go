package lockctx

import (
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
)

// isForever reports a loop left only by break, return or goto.
func isForever(s *cscan.LoopStmt) bool {
	return (s.Kind == "for" || s.Kind == "while") && foreverCond(s.Cond)
}

// foreverCond reports whether a loop's condition text never ends it: "1",
// "true", or a for's ";;" (init and step may be there, the test not).
func foreverCond(cond string) bool {
	c := strings.ReplaceAll(cond, " ", "")
	if parts := strings.Split(c, ";"); len(parts) == 3 {
		return parts[1] == ""
	}
	return c == "1" || c == "true"
}

// foreverOnly reports whether every guard of gs is a loop left only by
// break, return or goto ("while (true)", "for (;;)"): what runs under
// them runs on every path that gets there.
func foreverOnly(gs []cscan.Guard) bool {
	for _, g := range gs {
		if g.Kind != "loop" || !foreverCond(g.Cond) {
			return false
		}
	}
	return true
}
