package pipeline

import (
	"context"
	"path/filepath"
	"strings"
	"time"

	"github.com/autosel-bot/autosel-bot/internal/git"
	"github.com/autosel-bot/autosel-bot/report"
	"github.com/autosel-bot/autosel-bot/series"
)

// reproduce says how to get the report of s again: the tree's commit
// (the base commit the patches applied onto, or the HEAD of the checkout
// whose working directory was read), the bot's version, and the check
// command with the stage's suppressions.
func (a *Analysis) reproduce(ctx context.Context, s *series.Series) *report.Reproduce {
	rp := &report.Reproduce{Version: a.opts.Version}
	if a.tree != nil {
		rp.Tree = filepath.Base(a.opts.Tree)
		if a.opts.Tree == "" {
			rp.Tree = "TREE"
		}
		if c, ok := a.tree.(interface{ Commit() string }); ok {
			rp.Base, rp.BaseFrom = c.Commit(), a.baseFrom
		} else if head := checkoutHead(ctx, a.tree.Root()); head != "" {
			rp.Base, rp.BaseFrom = head, report.BaseHead
		}
	}
	var ignore []string
	for _, sp := range a.opts.Ignore {
		ignore = append(ignore, sp.String())
	}
	rp.Command = report.CheckCommand(s.ID, rp.Tree, ignore)
	return rp
}

// checkoutHead is the HEAD commit of the git checkout at dir, or "" when
// dir is not the top of one.
func checkoutHead(ctx context.Context, dir string) string {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	out, err := git.New(dir).Run(ctx, "rev-parse", "--show-toplevel", "--verify", "HEAD")
	if err != nil {
		return ""
	}
	lines := strings.Fields(out)
	if len(lines) != 2 {
		return ""
	}
	top, err1 := filepath.EvalSymlinks(lines[0])
	abs, err2 := filepath.EvalSymlinks(dir)
	if err1 != nil || err2 != nil || top != abs {
		return ""
	}
	return lines[1]
}
