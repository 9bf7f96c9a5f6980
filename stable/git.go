package stable

import (
	"context"
	"fmt"
	"strings"

	"github.com/autosel-bot/autosel-bot/internal/git"
)

// commitSubject returns the subject line of commit rev.
func commitSubject(ctx context.Context, g *git.Git, rev string) (string, error) {
	out, err := g.Run(ctx, "log", "-1", "--format=%s", rev, "--")
	return strings.TrimSpace(out), err
}

// findSubject returns the newest commit reachable from rev (and not from
// any of the excluded revisions) whose subject equals subject exactly, or ""
// when there is none. limit bounds the number of commits searched (0 = all).
func findSubject(ctx context.Context, g *git.Git, rev, subject string, limit int, exclude ...string) (string, error) {
	if strings.TrimSpace(subject) == "" {
		return "", nil
	}
	args := []string{"log", "--format=%H%x00%s", "--fixed-strings", "--grep=" + subject}
	if limit > 0 {
		args = append(args, fmt.Sprintf("--max-count=%d", limit))
	}
	args = append(args, rev)
	for _, x := range exclude {
		args = append(args, "^"+x)
	}
	args = append(args, "--")
	out, err := g.Run(ctx, args...)
	if err != nil {
		return "", err
	}
	for _, l := range strings.Split(out, "\n") {
		sha, subj, ok := strings.Cut(l, "\x00")
		if ok && strings.TrimSpace(subj) == strings.TrimSpace(subject) {
			return sha, nil
		}
	}
	return "", nil
}
