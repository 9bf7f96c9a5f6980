package stable

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/autosel-bot/autosel-bot/report"
	"github.com/autosel-bot/autosel-bot/stable/stabletest"
)

// TestDepsDepth: the patch (one line of context) changes the line after
// X's; X changes the line after Y's. Without X the patch conflicts; without
// Y, X conflicts. Depth 1 names X only, and X alone does not help; depth 2
// names Y and X, and both together make the patch apply.
func TestDepsDepth(t *testing.T) {
	r := stabletest.NewRepo(t)
	var lines []string
	for i := 1; i <= 16; i++ {
		lines = append(lines, fmt.Sprintf("line %d", i))
	}
	file := func() string { return strings.Join(lines, "\n") + "\n" }
	r.Write("f.c", file())
	c0 := r.Commit("f: initial")
	lines[4] = "line 5 (Y)"
	r.Write("f.c", file())
	y := r.Commit("f: Y")
	lines[5] = "line 6 (X)"
	r.Write("f.c", file())
	x := r.Commit("f: X")
	lines[6] = "line 7 (patch)"
	r.Write("f.c", file())
	p := r.Commit("f: the patch\n\nCc: stable@vger.kernel.org")
	r.Git("update-ref", "refs/heads/master", x)
	r.Git("branch", "old", c0)
	m := stabletest.ParseMail(t, r.Git("format-patch", "-1", "--stdout", "--no-signature", "-U1", p))

	for _, tt := range []struct {
		depth      int
		deps, pres []string
	}{
		{1, []string{x[:12]}, nil},
		{2, []string{y[:12], x[:12]}, []string{y[:12], x[:12]}},
	} {
		t.Run(fmt.Sprint("depth", tt.depth), func(t *testing.T) {
			opts := Options{Enabled: true, Repo: r.Dir, Upstream: UpstreamOptions{Ref: "master"},
				Trees: []TreeOptions{{Name: "v5.4.1", Ref: "old"}}, DepsDepth: tt.depth, WorkDir: t.TempDir()}
			rep := &report.Report{}
			if err := NewStage(opts, nil).Run(context.Background(), stabletest.Series(m), rep); err != nil {
				t.Fatal(err)
			}
			tr := treeResult(t, rep.Patches[0].Stable, "v5.4.1")
			if got := shas(tr.Dependencies); strings.Join(got, ",") != strings.Join(tt.deps, ",") {
				t.Errorf("dependencies %v, want %v", got, tt.deps)
			}
			if got := shas(tr.Prerequisites); strings.Join(got, ",") != strings.Join(tt.pres, ",") {
				t.Errorf("prerequisites %v, want %v", got, tt.pres)
			}
		})
	}
}
