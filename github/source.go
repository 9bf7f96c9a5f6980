package github

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	gh "github.com/google/go-github/v60/github"

	"github.com/autosel-bot/autosel-bot/mail"
	"github.com/autosel-bot/autosel-bot/series"
)

// PullRequest is the part of a GitHub pull request the bot works from.
type PullRequest struct {
	// Repo is "owner/name".
	Repo   string
	Number int
	// HeadSHA is the commit the review and check run are about.
	HeadSHA string
	// BaseSHA and BaseRef are the target branch's commit and name.
	BaseSHA, BaseRef string
	Title, Body      string
	// Author is the PR author's login.
	Author  string
	Draft   bool
	Updated time.Time
}

func fromGitHub(repo string, p *gh.PullRequest) PullRequest {
	return PullRequest{
		Repo: repo, Number: p.GetNumber(), HeadSHA: p.GetHead().GetSHA(), BaseSHA: p.GetBase().GetSHA(),
		BaseRef: p.GetBase().GetRef(), Title: p.GetTitle(), Body: p.GetBody(), Author: p.GetUser().GetLogin(),
		Draft: p.GetDraft(), Updated: p.GetUpdatedAt().Time,
	}
}

// OpenPullRequests lists the open pull requests of repo, most recently
// updated first, following pagination. Unchanged pages cost nothing
// against the rate limit (conditional requests).
func (c *Client) OpenPullRequests(ctx context.Context, repo string) ([]PullRequest, error) {
	owner, name, err := SplitRepo(repo)
	if err != nil {
		return nil, err
	}
	opts := &gh.PullRequestListOptions{State: "open", Sort: "updated", Direction: "desc", ListOptions: gh.ListOptions{PerPage: 100}}
	var out []PullRequest
	for {
		prs, resp, err := c.PullRequests.List(ctx, owner, name, opts)
		if err != nil {
			return nil, fmt.Errorf("github: list pull requests of %s: %w", repo, err)
		}
		for _, p := range prs {
			out = append(out, fromGitHub(repo, p))
		}
		if resp.NextPage == 0 {
			return out, nil
		}
		opts.Page = resp.NextPage
	}
}

// GetPullRequest returns one pull request.
func (c *Client) GetPullRequest(ctx context.Context, repo string, number int) (PullRequest, error) {
	owner, name, err := SplitRepo(repo)
	if err != nil {
		return PullRequest{}, err
	}
	p, _, err := c.PullRequests.Get(ctx, owner, name, number)
	if err != nil {
		return PullRequest{}, fmt.Errorf("github: pull request %s#%d: %w", repo, number, err)
	}
	return fromGitHub(repo, p), nil
}

// errPermanent marks errors that another attempt cannot fix (too many
// commits, nothing to review): the head is given up at once.
var errPermanent = errors.New("github: not reviewable")

// Commit is one commit of a pull request with its patch text.
type Commit struct {
	SHA string
	// Patch is the commit as `git format-patch` writes it (GitHub's
	// application/vnd.github.patch media type).
	Patch string
}

// Commits returns the non-merge commits of a pull request, oldest first,
// with their patch text. More than max commits is an error (0: 250, the
// most GitHub lists for a pull request).
func (c *Client) Commits(ctx context.Context, pr PullRequest, max int) ([]Commit, error) {
	if max <= 0 {
		max = 250
	}
	owner, name, err := SplitRepo(pr.Repo)
	if err != nil {
		return nil, err
	}
	opts := &gh.ListOptions{PerPage: 100}
	var shas []string
	for {
		cs, resp, err := c.PullRequests.ListCommits(ctx, owner, name, pr.Number, opts)
		if err != nil {
			return nil, fmt.Errorf("github: commits of %s#%d: %w", pr.Repo, pr.Number, err)
		}
		for _, rc := range cs {
			if len(rc.Parents) > 1 {
				continue // merge commits are not patches
			}
			shas = append(shas, rc.GetSHA())
		}
		if len(shas) > max {
			return nil, fmt.Errorf("%w: %s#%d has more than %d commits", errPermanent, pr.Repo, pr.Number, max)
		}
		if resp.NextPage == 0 {
			break
		}
		opts.Page = resp.NextPage
	}
	out := make([]Commit, 0, len(shas))
	for _, sha := range shas {
		p, _, err := c.Repositories.GetCommitRaw(ctx, owner, name, sha, gh.RawOptions{Type: gh.Patch})
		if err != nil {
			return nil, fmt.Errorf("github: patch of %s@%s: %w", pr.Repo, sha, err)
		}
		out = append(out, Commit{SHA: sha, Patch: p})
	}
	return out, nil
}

// Series turns a pull request into the series the pipeline analyses: one
// "[PATCH n/N]" mail per commit (its format-patch text, threaded under a
// cover letter) and a "[PATCH 0/N]" cover letter carrying the PR title and
// description. Message-IDs are derived from the repository, PR number and
// commit, so the same head always gives the same series.
func Series(pr PullRequest, commits []Commit) (*series.Series, error) {
	if len(commits) == 0 {
		return nil, fmt.Errorf("%w: %s#%d has no commits to review", errPermanent, pr.Repo, pr.Number)
	}
	domain := strings.ReplaceAll(pr.Repo, "/", ".") + ".github.invalid"
	coverID := fmt.Sprintf("pr%d.%s@%s", pr.Number, pr.HeadSHA, domain)
	var msgs []*mail.Message
	cover, err := mail.Parse(strings.NewReader(coverMail(pr, coverID, len(commits))))
	if err != nil {
		return nil, fmt.Errorf("github: cover letter of %s#%d: %w", pr.Repo, pr.Number, err)
	}
	msgs = append(msgs, cover)
	for i, c := range commits {
		raw := patchMail(c.Patch, fmt.Sprintf("%s.pr%d@%s", c.SHA, pr.Number, domain), coverID, i+1, len(commits))
		m, err := mail.Parse(bytes.NewReader(raw))
		if err != nil {
			return nil, fmt.Errorf("github: patch of %s: %w", c.SHA, err)
		}
		msgs = append(msgs, m)
	}
	all := series.Assemble(msgs, series.Options{})
	for _, s := range all {
		if s.ID == coverID {
			return s, nil
		}
	}
	return nil, fmt.Errorf("github: %s#%d: the commits did not form one series", pr.Repo, pr.Number)
}

// coverMail is the 0/N cover letter of a pull request.
func coverMail(pr PullRequest, id string, total int) string {
	var b strings.Builder
	author := pr.Author
	if author == "" {
		author = "unknown"
	}
	date := pr.Updated
	if date.IsZero() {
		date = time.Unix(0, 0)
	}
	fmt.Fprintf(&b, "From: %s <%s@users.noreply.github.com>\n", author, author)
	fmt.Fprintf(&b, "Date: %s\n", date.UTC().Format(time.RFC1123Z))
	fmt.Fprintf(&b, "Subject: [PATCH 0/%d] %s\n", total, oneLine(pr.Title))
	fmt.Fprintf(&b, "Message-ID: <%s>\n", id)
	b.WriteString("MIME-Version: 1.0\nContent-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: 8bit\n\n")
	body := strings.ReplaceAll(pr.Body, "\r\n", "\n")
	if strings.TrimSpace(body) == "" {
		body = "(no description)"
	}
	b.WriteString(body + "\n")
	return b.String()
}

// patchMail rewrites one format-patch text into the n/N mail of the
// series: the mbox "From <sha>" line dropped, Message-ID and threading
// headers added, "[PATCH]" numbered.
func patchMail(patch, id, coverID string, n, total int) []byte {
	patch = strings.ReplaceAll(patch, "\r\n", "\n")
	if strings.HasPrefix(patch, "From ") {
		if i := strings.IndexByte(patch, '\n'); i >= 0 {
			patch = patch[i+1:]
		}
	}
	head, body, _ := strings.Cut(patch, "\n\n")
	var hb strings.Builder
	fmt.Fprintf(&hb, "Message-ID: <%s>\nIn-Reply-To: <%s>\nReferences: <%s>\n", id, coverID, coverID)
	tag := fmt.Sprintf("[PATCH %d/%d] ", n, total)
	seenSubject, seenMIME := false, false
	for _, l := range strings.Split(head, "\n") {
		low := strings.ToLower(l)
		switch {
		case strings.HasPrefix(low, "message-id:"), strings.HasPrefix(low, "in-reply-to:"), strings.HasPrefix(low, "references:"):
			continue
		case strings.HasPrefix(low, "subject:") && !seenSubject:
			seenSubject = true
			rest := strings.TrimSpace(l[len("subject:"):])
			if strings.HasPrefix(rest, "[PATCH]") {
				rest = strings.TrimSpace(rest[len("[PATCH]"):])
			}
			l = "Subject: " + tag + rest
		case strings.HasPrefix(low, "content-type:"):
			seenMIME = true
		}
		hb.WriteString(l + "\n")
	}
	if !seenSubject {
		hb.WriteString("Subject: " + tag + "(no subject)\n")
	}
	if !seenMIME {
		hb.WriteString("MIME-Version: 1.0\nContent-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: 8bit\n")
	}
	return []byte(hb.String() + "\n" + body)
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
