package git

import (
	"context"
	"fmt"
	"strconv"
	"strings"
)

// BlameCommit is a commit that last touched some of the blamed lines.
type BlameCommit struct {
	// SHA is the full commit id.
	SHA string
	// Summary is the commit's subject line.
	Summary string
	// AuthorTime is the author date (Unix seconds).
	AuthorTime int64
	// Boundary is set for the root of the blamed history (the commit the
	// lines came from when the history stops there).
	Boundary bool
	// Lines is how many of the blamed lines it last touched.
	Lines int
}

// Blame returns the commits that last touched lines from..to (1-based,
// inclusive) of path at commit rev, in the order they first appear.
func (g *Git) Blame(ctx context.Context, rev, path string, from, to int) ([]BlameCommit, error) {
	out, err := g.Run(ctx, "blame", "--porcelain", "-L", fmt.Sprintf("%d,%d", from, to), rev, "--", path)
	if err != nil {
		return nil, err
	}
	return parseBlame(out), nil
}

// parseBlame parses `git blame --porcelain`: a header line "<sha> <orig
// line> <final line> [<group size>]" per line, followed (the first time a
// commit appears) by its header fields, then the line's text after a tab.
func parseBlame(out string) []BlameCommit {
	var (
		list []BlameCommit
		at   = map[string]int{} // sha -> index in list
		cur  = -1
	)
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "\t") {
			continue // the line's text
		}
		if f := strings.Fields(l); len(f) >= 3 && len(f[0]) == 40 && isHex(f[0]) {
			i, ok := at[f[0]]
			if !ok {
				i = len(list)
				at[f[0]] = i
				list = append(list, BlameCommit{SHA: f[0]})
			}
			list[i].Lines++
			cur = i
			continue
		}
		if cur < 0 {
			continue
		}
		switch {
		case strings.HasPrefix(l, "summary "):
			list[cur].Summary = strings.TrimPrefix(l, "summary ")
		case strings.HasPrefix(l, "author-time "):
			list[cur].AuthorTime, _ = strconv.ParseInt(strings.TrimPrefix(l, "author-time "), 10, 64)
		case l == "boundary":
			list[cur].Boundary = true
		}
	}
	return list
}

func isHex(s string) bool {
	for _, r := range s {
		if !(r >= '0' && r <= '9' || r >= 'a' && r <= 'f') {
			return false
		}
	}
	return true
}
