// Package gitsrc reads patches from a local git repository: the commits of
// a range, as the mail a maintainer would receive for them.
package gitsrc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/autosel-bot/autosel-bot/internal/git"
	"github.com/autosel-bot/autosel-bot/mail"
)

// ValidateRange checks that rng has the form A..B (B may be empty for
// HEAD), with revisions that cannot be mistaken for options or contain
// whitespace or control characters. A...B and single revisions are refused.
func ValidateRange(rng string) (from, to string, err error) {
	from, to, ok := strings.Cut(rng, "..")
	switch {
	case !ok:
		return "", "", fmt.Errorf("range %q: want the form A..B", rng)
	case strings.HasPrefix(to, "."):
		return "", "", fmt.Errorf("range %q: symmetric differences (A...B) are not supported, want A..B", rng)
	case from == "":
		return "", "", fmt.Errorf("range %q: the start revision is empty, want A..B", rng)
	}
	for _, r := range []string{from, to} {
		if strings.HasPrefix(r, "-") {
			return "", "", fmt.Errorf("range %q: revision %q looks like an option", rng, r)
		}
		if strings.Contains(r, "..") {
			return "", "", fmt.Errorf("range %q: want exactly one '..'", rng)
		}
		for _, c := range r {
			if c <= ' ' || c == 0x7f {
				return "", "", fmt.Errorf("range %q: revision %q contains whitespace or a control character", rng, r)
			}
		}
	}
	if to == "" {
		to = "HEAD"
	}
	return from, to, nil
}

// Range returns the commits of rng (A..B) in repoDir as patch mail, oldest
// first, exactly as `git format-patch --stdout --thread --numbered` writes
// them: numbered "[PATCH n/N]" subjects, each patch a reply to the first,
// so series.Assemble makes one series of them. Merge commits are skipped
// (as format-patch does). The repository is only read.
func Range(ctx context.Context, repoDir, rng string) ([]*mail.Message, error) {
	from, to, err := ValidateRange(rng)
	if err != nil {
		return nil, err
	}
	for _, rev := range []string{from, to} {
		if _, err := gitOut(ctx, repoDir, "rev-parse", "--verify", "--quiet", "--end-of-options", rev+"^{commit}"); err != nil {
			return nil, fmt.Errorf("range %s: %q is not a commit in %s", rng, rev, repoDir)
		}
	}
	out, err := gitOut(ctx, repoDir, "format-patch", "--stdout", "--thread=shallow", "--numbered",
		"--no-cover-letter", "--src-prefix=a/", "--dst-prefix=b/", "--no-signature",
		"--end-of-options", from+".."+to)
	if err != nil {
		return nil, fmt.Errorf("range %s: %w", rng, err)
	}
	if len(bytes.TrimSpace(out)) == 0 {
		return nil, fmt.Errorf("range %s has no (non-merge) commits", rng)
	}
	var msgs []*mail.Message
	var errs []error
	err = mail.ReadMbox(bytes.NewReader(out), func(raw []byte, line int) error {
		m, err := mail.Parse(bytes.NewReader(raw))
		if err != nil {
			errs = append(errs, fmt.Errorf("format-patch output line %d: %w", line, err))
			return nil
		}
		msgs = append(msgs, m)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("range %s: %w", rng, err)
	}
	if err := stableIDs(ctx, repoDir, from, to, msgs); err != nil {
		errs = append(errs, err)
	}
	return msgs, errors.Join(errs...)
}

// IDDomain is the right-hand side of the Message-IDs Range gives its
// patches.
const IDDomain = "git.autosel-bot.invalid"

// stableIDs replaces the Message-IDs git format-patch made up (they hold
// the time) by ones derived from each commit ("<sha>@git.autosel-bot.invalid"),
// so the series ID of a range is the same on every run; the threading
// (In-Reply-To, References) follows.
func stableIDs(ctx context.Context, repoDir, from, to string, msgs []*mail.Message) error {
	out, err := gitOut(ctx, repoDir, "rev-list", "--reverse", "--no-merges", "--end-of-options", from+".."+to)
	if err != nil {
		return err
	}
	shas := strings.Fields(string(out))
	if len(shas) != len(msgs) {
		return fmt.Errorf("range %s..%s: %d commits but %d patches; Message-IDs left as git made them", from, to, len(shas), len(msgs))
	}
	ids := make(map[string]string, len(msgs))
	for i, m := range msgs {
		ids[m.MessageID] = shas[i] + "@" + IDDomain
		m.MessageID = ids[m.MessageID]
	}
	for _, m := range msgs {
		if id, ok := ids[m.InReplyTo]; ok {
			m.InReplyTo = id
		}
		for i, r := range m.References {
			if id, ok := ids[r]; ok {
				m.References[i] = id
			}
		}
	}
	return nil
}

// repoGit is git for the repository dir with the settings format-patch
// and diff output depend on fixed (plus internal/git's own).
func repoGit(dir string) *git.Git {
	return git.New(dir).WithConfig("core.quotePath=false", "diff.noprefix=false",
		"format.signature=", "format.coverLetter=false")
}

// gitOut runs git with args in the repository dir and returns its stdout.
func gitOut(ctx context.Context, dir string, args ...string) ([]byte, error) {
	return repoGit(dir).Output(ctx, nil, args...)
}
