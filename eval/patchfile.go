package eval

import (
	"errors"
	"regexp"
	"strings"

	"github.com/autosel-bot/autosel-bot/mail"
)

// PatchFile is a patch file of the corpus split into its parts. Files may be
// `git format-patch` output, a mail, a DEP-3/quilt patch (free-form header
// then the diff) or a bare diff.
type PatchFile struct {
	// Subject is the patch title without "[PATCH ...]" tags ("" if none).
	Subject string
	// Headers holds the leading "Key: value" lines (From, Date, Subject,
	// Origin, ...), first value of each key.
	Headers map[string]string
	// Message is the text between the headers and the diff (commit message,
	// trailers, diffstat).
	Message string
	// Diff is the unified diff, from its first "diff --git" or "---"/"+++"
	// line to its last hunk.
	Diff string
}

// errNoDiff is returned for a patch file that carries no diff.
var errNoDiff = errors.New("no unified diff found")

// ParsePatchFile splits text into headers, message and diff.
func ParsePatchFile(text string) (*PatchFile, error) {
	text = strings.ReplaceAll(text, "\r\n", "\n")
	diff, line := mail.ExtractDiff(text)
	if diff == "" {
		return nil, errNoDiff
	}
	lines := strings.SplitAfter(text, "\n")
	head := lines[:line-1]
	p := &PatchFile{Diff: diff, Headers: map[string]string{}}
	i := 0
	if i < len(head) && strings.HasPrefix(head[i], "From ") && !strings.HasPrefix(head[i], "From: ") {
		i++ // mbox separator of git format-patch
	}
	var key string
	for ; i < len(head); i++ {
		l := strings.TrimRight(head[i], "\n")
		if l == "" {
			i++
			break
		}
		if (l[0] == ' ' || l[0] == '\t') && key != "" { // folded header
			p.Headers[key] += " " + strings.TrimSpace(l)
			continue
		}
		k, v, ok := strings.Cut(l, ":")
		if !ok || k == "" || strings.ContainsAny(k, " \t") {
			break // not a header block: the message starts here
		}
		key = k
		if _, seen := p.Headers[k]; seen {
			key = ""
			continue
		}
		p.Headers[k] = strings.TrimSpace(v)
	}
	p.Message = strings.Join(head[i:], "")
	switch {
	case p.Headers["Subject"] != "":
		p.Subject = mail.ParseSubject(p.Headers["Subject"]).Title
	case p.Headers["Description"] != "":
		p.Subject = p.Headers["Description"]
	default:
		for _, l := range strings.Split(p.Message, "\n") {
			if l = strings.TrimSpace(l); l != "" {
				p.Subject = l
				break
			}
		}
	}
	return p, nil
}

var (
	// "commit 0123abc... upstream." (stable backports) and
	// "[ Upstream commit 0123abc... ]".
	upstreamLineRE = regexp.MustCompile(`(?i)(?:^|\n)\s*\[?\s*(?:upstream\s+)?commit\s+([0-9a-f]{12,40})\s+upstream`)
	// "Origin: https://git.kernel.org/linus/0123abc" or "...?id=0123abc".
	originIDRE = regexp.MustCompile(`(?i)(?:/commit/\?id=|/linus/|/commit/|[?&;]h=|[?&;]id=)([0-9a-f]{12,40})`)
)

// UpstreamID returns the upstream commit id the patch names in a DEP-3
// Origin header or a "commit <id> upstream" line, or "".
func (p *PatchFile) UpstreamID() string {
	if o := p.Headers["Origin"]; o != "" {
		if m := originIDRE.FindStringSubmatch(o); m != nil {
			return strings.ToLower(m[1])
		}
	}
	if m := upstreamLineRE.FindStringSubmatch(p.Message); m != nil {
		return strings.ToLower(m[1])
	}
	return ""
}
