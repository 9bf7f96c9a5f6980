package mail

import (
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/emersion/go-message"
)

// bodyWalker collects the text of a MIME tree: text/plain parts and patch
// attachments, in order, each ending with a newline.
type bodyWalker struct {
	buf   strings.Builder
	limit int64
	parts int
}

// walk appends the text of entity e (and its children) to w.buf.
func (w *bodyWalker) walk(e *message.Entity, depth int) error {
	w.parts++
	if w.parts > maxParts {
		return fmt.Errorf("more than %d MIME parts", maxParts)
	}
	if depth > maxDepth {
		return fmt.Errorf("MIME nesting deeper than %d", maxDepth)
	}
	if mr := e.MultipartReader(); mr != nil {
		for {
			part, err := mr.NextPart()
			if errors.Is(err, io.EOF) {
				return nil
			}
			if err != nil {
				if message.IsUnknownCharset(err) || message.IsUnknownEncoding(err) {
					// The part is still readable (undecoded).
					if part == nil {
						continue
					}
				} else {
					return fmt.Errorf("multipart: %w", err)
				}
			}
			if err := w.walk(part, depth+1); err != nil {
				return err
			}
		}
	}
	mediaType, params, err := e.Header.ContentType()
	if err != nil || mediaType == "" {
		mediaType, params = "text/plain", map[string]string{}
	}
	if !w.wanted(e, mediaType, params) {
		// Drain so a broken part does not go unnoticed; bounded.
		_, _ = io.Copy(io.Discard, io.LimitReader(e.Body, w.limit))
		return nil
	}
	remaining := w.limit - int64(w.buf.Len())
	data, err := io.ReadAll(io.LimitReader(e.Body, remaining+1))
	if err != nil {
		return fmt.Errorf("decoding %s part: %w", mediaType, err)
	}
	if int64(len(data)) > remaining {
		return fmt.Errorf("%w: decoded body over %d bytes", ErrTooLarge, w.limit)
	}
	text := strings.ReplaceAll(string(data), "\r\n", "\n")
	if strings.EqualFold(params["format"], "flowed") {
		text = unflow(text, strings.EqualFold(params["delsp"], "yes"))
	}
	if w.buf.Len() > 0 && !strings.HasSuffix(w.buf.String(), "\n") {
		w.buf.WriteByte('\n')
	}
	w.buf.WriteString(text)
	return nil
}

// wanted reports whether a leaf part's text belongs in the body: text/plain
// (inline or attached), text/x-patch, text/x-diff and similar, and
// application/octet-stream or other non-text attachments named *.patch or
// *.diff. HTML and other attachments are skipped.
func (w *bodyWalker) wanted(e *message.Entity, mediaType string, params map[string]string) bool {
	mediaType = strings.ToLower(mediaType)
	switch mediaType {
	case "text/plain", "text/x-patch", "text/x-diff", "text/x-c", "text/x-csrc", "text/x-chdr",
		"text/patch", "text/diff", "application/x-patch", "application/x-diff":
		return true
	}
	name := params["name"]
	if _, dp, err := e.Header.ContentDisposition(); err == nil && dp["filename"] != "" {
		name = dp["filename"]
	}
	name = strings.ToLower(name)
	return strings.HasSuffix(name, ".patch") || strings.HasSuffix(name, ".diff")
}

// unflow decodes format=flowed text (RFC 3676): space-stuffing is removed
// and soft line breaks (a line ending in a space) are joined. Quoted lines
// join only with lines of the same quote depth. Lines that look like diff
// content are never joined (a diff line ending with a space is real
// content, and is what a flowed mailer damages).
func unflow(text string, delsp bool) string {
	lines := strings.Split(text, "\n")
	var out strings.Builder
	var para strings.Builder
	paraDepth := -1
	flush := func() {
		if paraDepth >= 0 {
			out.WriteString(para.String())
			out.WriteByte('\n')
		}
		para.Reset()
		paraDepth = -1
	}
	for i, l := range lines {
		if i == len(lines)-1 && l == "" {
			break
		}
		depth := 0
		for depth < len(l) && l[depth] == '>' {
			depth++
		}
		content := l[depth:]
		content = strings.TrimPrefix(content, " ") // space-stuffing
		if paraDepth >= 0 && depth != paraDepth {
			flush()
		}
		if paraDepth < 0 {
			para.WriteString(strings.Repeat(">", depth))
			if depth > 0 {
				para.WriteByte(' ')
			}
			paraDepth = depth
		}
		soft := strings.HasSuffix(content, " ") && content != "-- "
		if soft && delsp {
			content = content[:len(content)-1]
		}
		para.WriteString(content)
		if !soft {
			flush()
		}
	}
	flush()
	return out.String()
}

// fillBody derives CommitMsg, Author, Trailers, UpstreamCommit, Diff,
// DiffLine and InlineReview from msg.Body.
func fillBody(msg *Message) {
	body := msg.Body
	diff, line := ExtractDiff(body)
	msg.Diff, msg.DiffLine = diff, line
	// The commit message ends at the "---" separator or at the diff.
	cm := body
	if line > 0 {
		cm = strings.Join(strings.SplitAfter(body, "\n")[:line-1], "")
	}
	if i := separatorIndex(cm); i >= 0 {
		cm = cm[:i]
	}
	cm = stripInBodyHeaders(cm, msg)
	msg.CommitMsg = strings.TrimRight(cm, " \t\n") + "\n"
	if strings.TrimSpace(cm) == "" {
		msg.CommitMsg = ""
	}
	msg.Trailers = parseTrailers(msg.CommitMsg)
	msg.UpstreamCommit = parseUpstream(msg.CommitMsg)
	msg.InlineReview = msg.Diff != "" && isReply(msg)
	if line > 0 {
		msg.BaseCommit = parseBaseCommit(body[len(strings.Join(strings.SplitAfter(body, "\n")[:line-1], ""))+len(diff):])
	} else if msg.Subject.Patch && msg.Subject.Number == 0 {
		// A cover letter (git format-patch --cover-letter --base).
		msg.BaseCommit = parseBaseCommit(body)
	}
}

var baseCommitRe = regexp.MustCompile(`(?m)^base-commit: ([0-9a-f]{7,64})[ \t]*$`)

// parseBaseCommit finds the "base-commit:" line of `git format-patch
// --base` in the text after the diff (before the signature).
func parseBaseCommit(after string) string {
	if i := strings.Index(after, "\n-- \n"); i >= 0 {
		after = after[:i]
	}
	if m := baseCommitRe.FindStringSubmatch(after); m != nil {
		return m[1]
	}
	return ""
}

// isReply reports whether msg answers another message rather than submits
// a patch.
func isReply(msg *Message) bool {
	if msg.Subject.Reply {
		return true
	}
	return msg.InReplyTo != "" && !msg.Subject.Patch
}

// separatorIndex returns the offset of the "---" line that separates a
// commit message from the diffstat, or -1.
func separatorIndex(s string) int {
	off := 0
	for _, l := range strings.SplitAfter(s, "\n") {
		if t := strings.TrimRight(l, " \t\n"); t == "---" {
			return off
		}
		off += len(l)
	}
	return -1
}

// stripInBodyHeaders removes git's in-body "From:", "Date:" and "Subject:"
// lines at the top of the body, recording the in-body From as the Author.
func stripInBodyHeaders(cm string, msg *Message) string {
	rest := strings.TrimLeft(cm, "\n")
	stripped := false
	for {
		nl := strings.IndexByte(rest, '\n')
		if nl < 0 {
			break
		}
		l := rest[:nl]
		key, val, ok := strings.Cut(l, ":")
		if !ok {
			break
		}
		switch strings.ToLower(key) {
		case "from":
			if a := addressFromText(strings.TrimSpace(val)); a.Addr != "" {
				msg.Author = a
			}
		case "date", "subject":
		default:
			if stripped {
				return strings.TrimLeft(rest, "\n")
			}
			return cm
		}
		stripped = true
		rest = rest[nl+1:]
	}
	if stripped {
		return strings.TrimLeft(rest, "\n")
	}
	return cm
}

// addressFromText reads the sender of one From value leniently
// (senderOf); the zero Address when it names nobody.
func addressFromText(v string) Address {
	h := message.Header{}
	h.Set("From", v)
	a, _ := senderOf(gomailHeader(h))
	return a
}
