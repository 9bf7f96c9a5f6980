package mail

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"strings"
	"time"

	"github.com/autosel-bot/autosel-bot/internal/textfmt"
)

// Patch files that are not mail: plain "git diff" output, "git show" (or
// "git log -p") output, and quilt / DEP-3 patch files whose header is a
// "Description:" field with continuation lines, "Author:", "Origin:" and
// the like. parsePlain turns them into a Message as if the patch had been
// mailed: the subject becomes "[PATCH] <title>", the author the sender, and
// the Message-ID is synthetic (derived from the bytes, so stable).

// gitShowRe matches the first line of "git show" / "git log" output.
var gitShowRe = regexp.MustCompile(`^commit ([0-9a-f]{40}|[0-9a-f]{64})\b`)

// mailOnly are header fields of mail that no DEP-3 header has: with one of
// them the file is mail.
var mailOnly = map[string]bool{
	"message-id": true, "date": true, "to": true, "cc": true, "in-reply-to": true,
	"references": true, "received": true, "mime-version": true, "content-type": true,
	"return-path": true, "delivered-to": true, "list-id": true,
}

// dep3Only are DEP-3 fields no mail has: their presence (without a
// Message-ID or Date) marks a DEP-3 header.
var dep3Only = map[string]bool{
	"description": true, "author": true, "origin": true, "forwarded": true,
	"last-update": true, "applied-upstream": true,
}

// parsePlain returns raw as a Message when it is a patch file that is not
// mail (see above), nil otherwise.
func parsePlain(raw []byte) *Message {
	text := strings.ReplaceAll(string(raw), "\r\n", "\n")
	trimmed := strings.TrimLeft(text, "\n")
	first, _, _ := strings.Cut(trimmed, "\n")
	switch {
	case gitShowRe.MatchString(first):
		return plainMessage(raw, parseGitShow(trimmed))
	case startsDiff(trimmed):
		return plainMessage(raw, plainPatch{body: trimmed})
	}
	if p, ok := parseDEP3(trimmed); ok {
		return plainMessage(raw, p)
	}
	return nil
}

// startsDiff reports whether text starts with a diff.
func startsDiff(text string) bool {
	lines := splitLinesKeep(text)
	return len(lines) > 0 && diffStartsAt(lines, 0)
}

// plainPatch is what a non-mail patch file says about itself.
type plainPatch struct {
	title  string
	author string
	date   time.Time
	// body is the commit message, a "---" line and the diff.
	body string
	// mailSubject is set when the title is a quilt header's Subject:
	// field, which may carry its own [PATCH] tag.
	mailSubject bool
}

// plainMessage builds the Message of a non-mail patch file.
func plainMessage(raw []byte, p plainPatch) *Message {
	sum := sha256.Sum256(raw)
	msg := &Message{MessageID: hex.EncodeToString(sum[:16]) + "@" + SyntheticIDDomain, Date: p.date}
	if p.author != "" {
		msg.From = addressFromText(p.author)
	}
	if msg.From.Addr == "" {
		msg.From = Address{Name: strings.TrimSpace(p.author), Addr: UnknownSender}
	}
	msg.Author = msg.From
	msg.Body = p.body
	fillBody(msg)
	title := p.title
	if title == "" {
		title = diffTitle(msg.Diff)
	}
	msg.Subject = ParseSubject("[PATCH] " + title)
	if p.mailSubject {
		// A quilt Subject: field is often the mailed subject, its
		// [PATCH ...] tag included: keep that one.
		if sub := ParseSubject(title); sub.Patch {
			msg.Subject = sub
		}
	}
	return msg
}

// diffTitle names a diff without a commit message by the files it touches.
func diffTitle(diff string) string {
	var files []string
	for _, l := range strings.Split(diff, "\n") {
		if strings.HasPrefix(l, "+++ ") {
			p := headerFile(strings.TrimPrefix(l, "+++ "))
			if p == "/dev/null" {
				continue
			}
			files = append(files, p)
		}
	}
	switch len(files) {
	case 0:
		return "diff"
	case 1:
		return "diff of " + files[0]
	}
	return "diff of " + files[0] + " and " + textfmt.Plural(len(files)-1, "other file", "other files")
}

// headerFile is the path of a "+++ " line without b/ and timestamp.
func headerFile(p string) string {
	if i := strings.IndexByte(p, '\t'); i >= 0 {
		p = p[:i]
	}
	p = strings.TrimSpace(p)
	if strings.HasPrefix(p, "b/") || strings.HasPrefix(p, "a/") {
		p = p[2:]
	}
	return p
}

// parseGitShow reads "git show" output: commit line, Author/Date headers,
// the commit message indented by four spaces, then the diff.
func parseGitShow(text string) plainPatch {
	var p plainPatch
	lines := strings.SplitAfter(text, "\n")
	i := 1
	for ; i < len(lines); i++ {
		l := strings.TrimRight(lines[i], "\n")
		if l == "" {
			i++
			break
		}
		key, val, _ := strings.Cut(l, ":")
		val = strings.TrimSpace(val)
		switch key {
		case "Author":
			p.author = val
		case "Date", "AuthorDate":
			p.date = lenientDate(val)
		}
	}
	var msg strings.Builder
	for ; i < len(lines); i++ {
		l := lines[i]
		if strings.HasPrefix(l, "    ") {
			msg.WriteString(l[4:])
			continue
		}
		if strings.TrimSpace(l) == "" {
			msg.WriteString("\n")
			continue
		}
		break
	}
	cm := strings.TrimSpace(msg.String())
	p.title, _, _ = strings.Cut(cm, "\n")
	rest := strings.TrimPrefix(cm, p.title)
	p.body = strings.TrimLeft(rest, "\n") + "\n---\n" + strings.Join(lines[i:], "")
	return p
}

var dep3FieldRe = regexp.MustCompile(`^([A-Za-z][A-Za-z0-9-]*):[ \t]*(.*)$`)

// parseDEP3 reads a DEP-3 / quilt header: fields with continuation lines
// (" ." is an empty line), up to a blank line, a "---" line or the diff;
// free text may follow before the diff.
func parseDEP3(text string) (plainPatch, bool) {
	var p plainPatch
	lines := strings.SplitAfter(text, "\n")
	fields := map[string]string{}
	var order []string
	cur := ""
	i := 0
	// blankEnd is set when the header ends with a blank line, as mail's
	// does; one ended by "---" or the diff is no mail header.
	blankEnd := false
	for ; i < len(lines); i++ {
		l := strings.TrimRight(lines[i], "\n")
		if l == "" || strings.TrimSpace(l) == "---" || diffStartsAt(lines, i) {
			blankEnd = l == ""
			break
		}
		if (l[0] == ' ' || l[0] == '\t') && cur != "" {
			c := strings.TrimSpace(l)
			if c == "." {
				c = ""
			}
			fields[cur] += "\n" + c
			continue
		}
		m := dep3FieldRe.FindStringSubmatch(l)
		if m == nil {
			return p, false
		}
		cur = strings.ToLower(m[1])
		if mailOnly[cur] {
			// Message-ID, Date, To...: this is mail.
			return p, false
		}
		if _, seen := fields[cur]; !seen {
			order = append(order, cur)
		}
		fields[cur] = m[2]
	}
	// A quilt header of mail-like fields only ("Subject:", "From:") ended
	// by "---" is no mail either: a mail reader stops at its first line
	// that is not a field.
	dep3 := !blankEnd && i < len(lines) && len(order) > 0
	for _, k := range order {
		if dep3Only[k] {
			dep3 = true
		}
	}
	if !dep3 {
		return p, false
	}
	desc := fields["description"]
	if desc == "" {
		desc = fields["subject"]
		p.mailSubject = desc != ""
	}
	desc = strings.TrimSpace(desc)
	p.title, _, _ = strings.Cut(desc, "\n")
	long := strings.TrimSpace(strings.TrimPrefix(desc, p.title))
	p.author = fields["author"]
	if p.author == "" {
		p.author = fields["from"]
	}
	if d := fields["last-update"]; d != "" {
		if t, err := time.Parse("2006-01-02", strings.TrimSpace(d)); err == nil {
			p.date = t
		}
	}
	var b strings.Builder
	if long != "" {
		b.WriteString(long + "\n\n")
	}
	for _, k := range []string{"origin", "bug", "forwarded", "applied-upstream"} {
		if v := fields[k]; v != "" {
			b.WriteString(dep3Label(k) + ": " + strings.TrimSpace(v) + "\n")
		}
	}
	for _, k := range []string{"reviewed-by", "acked-by", "signed-off-by"} {
		if v := fields[k]; v != "" {
			b.WriteString(dep3Label(k) + ": " + strings.TrimSpace(v) + "\n")
		}
	}
	rest := strings.Join(lines[i:], "")
	if !strings.HasPrefix(strings.TrimLeft(rest, "\n"), "---") {
		b.WriteString("---\n")
	}
	b.WriteString(rest)
	p.body = b.String()
	return p, true
}

// dep3Label writes a field name the usual way ("Signed-off-by").
func dep3Label(k string) string {
	return strings.ToUpper(k[:1]) + k[1:]
}

// logChunk is one commit of "git log -p" output and its line offset.
type logChunk struct {
	data []byte
	line int
}

// splitGitLog splits "git log -p" output (several "commit <sha>" blocks)
// into one chunk per commit; anything else is one chunk. A commit line
// only starts a block at the top or after an empty line (commit messages
// are indented, diff lines start with ' ', '+' or '-').
func splitGitLog(data []byte) []logChunk {
	if !gitShowRe.Match(data[:min(len(data), 80)]) {
		return []logChunk{{data, 0}}
	}
	var (
		out   []logChunk
		start int
		line  int
		first int
	)
	prevBlank := false
	for off := 0; off < len(data); {
		end := off
		for end < len(data) && data[end] != '\n' {
			end++
		}
		l := data[off:end]
		if off > 0 && prevBlank && gitShowRe.Match(l) {
			out = append(out, logChunk{data[start:off], first})
			start, first = off, line
		}
		prevBlank = len(bytes.TrimSpace(l)) == 0
		line++
		off = end + 1
	}
	return append(out, logChunk{data[start:], first})
}
