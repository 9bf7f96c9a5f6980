package reply

import (
	"strings"
	"testing"
)

// TestComposeWebLink: with FindingURL, every finding in a reply has a
// "Web:" line with its page under its id; without, none.
func TestComposeWebLink(t *testing.T) {
	s, _, _, _ := testSeries(t)
	for _, tc := range []struct {
		name string
		link func(string) string
		want int
	}{
		{"no base url", nil, 0},
		{"empty url", func(string) string { return "" }, 0},
		{"base url", func(id string) string { return "https://autosel.example.org/finding/" + id }, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := testReport(s)
			opts := sashaOptions()
			opts.FindingURL = tc.link
			mails, err := Compose(r, s, opts)
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range mails[1:] { // the per-patch replies, one finding each
				n := strings.Count(m.Body, "    Web: ")
				if n != tc.want {
					t.Errorf("%s: %d web lines, want %d:\n%s", m.MessageID, n, tc.want, m.Body)
				}
				if tc.want == 0 {
					continue
				}
				for _, p := range r.Patches {
					for _, f := range p.Findings {
						if strings.Contains(m.Body, "Finding id: "+f.ID+"\n") &&
							!strings.Contains(m.Body, "Finding id: "+f.ID+"\n    Web: https://autosel.example.org/finding/"+f.ID+"\n") {
							t.Errorf("finding %s has no link under its id:\n%s", f.ID, m.Body)
						}
					}
				}
			}
		})
	}
}
