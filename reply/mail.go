package reply

import (
	"bytes"
	"fmt"
	"mime"
	"net/mail"
	"strings"
	"time"
)

// Mail is one composed reply.
type Mail struct {
	// From is the bot.
	From *mail.Address
	// To are the patch author and the people in its trailers; Cc the
	// original recipients (lists included) and stable when relevant.
	To, Cc []*mail.Address
	// Subject is "Re: <original subject>".
	Subject string
	// Date is when the reply was composed.
	Date time.Time
	// MessageID is the reply's Message-ID without angle brackets. It is
	// deterministic (see MessageID): the same series, version and patch
	// always give the same id.
	MessageID string
	// InReplyTo is the Message-ID of the mail replied to.
	InReplyTo string
	// References is the full thread chain, oldest first, ending with
	// InReplyTo; never empty.
	References []string
	// Patch is the patch number replied to (0 for the series reply).
	Patch int
	// Headers are extra headers (Auto-Submitted, X-Autosel-Bot), in order.
	Headers [][2]string
	// Body is the text body, LF line endings.
	Body string
	// Dropped are the recipients left out by Options.MaxRecipients (not
	// part of the mail; for the log).
	Dropped []string
}

// Recipients returns the bare To and Cc addresses, de-duplicated.
func (m *Mail) Recipients() []string {
	seen := map[string]bool{}
	var out []string
	for _, a := range append(append([]*mail.Address(nil), m.To...), m.Cc...) {
		k := strings.ToLower(a.Address)
		if !seen[k] {
			seen[k] = true
			out = append(out, a.Address)
		}
	}
	return out
}

// Bytes returns the message in RFC 5322 form with CRLF line endings
// throughout: folded headers (RFC 2047-encoded where not ASCII), a blank
// line, and the body as UTF-8 text (8bit).
func (m *Mail) Bytes() []byte {
	var b bytes.Buffer
	h := func(name, value string) { writeHeader(&b, name, value) }
	h("From", m.From.String())
	if len(m.To) > 0 {
		h("To", addrList(m.To))
	}
	if len(m.Cc) > 0 {
		h("Cc", addrList(m.Cc))
	}
	h("Subject", mime.QEncoding.Encode("utf-8", cleanLine(m.Subject)))
	h("Date", m.Date.Format(time.RFC1123Z))
	h("Message-ID", "<"+m.MessageID+">")
	if m.InReplyTo != "" {
		h("In-Reply-To", "<"+m.InReplyTo+">")
	}
	if len(m.References) > 0 {
		var refs []string
		for _, r := range m.References {
			refs = append(refs, "<"+r+">")
		}
		h("References", strings.Join(refs, " "))
	}
	h("MIME-Version", "1.0")
	h("Content-Type", "text/plain; charset=utf-8")
	h("Content-Transfer-Encoding", "8bit")
	for _, kv := range m.Headers {
		h(kv[0], cleanLine(kv[1]))
	}
	b.WriteString("\r\n")
	body := strings.ReplaceAll(m.Body, "\r\n", "\n")
	for _, l := range strings.SplitAfter(body, "\n") {
		if l == "" {
			continue
		}
		l = strings.TrimSuffix(l, "\n")
		// RFC 5322 caps lines at 998 octets.
		for len(l) > 998 {
			b.WriteString(l[:998] + "\r\n")
			l = l[998:]
		}
		b.WriteString(l + "\r\n")
	}
	return b.Bytes()
}

func addrList(as []*mail.Address) string {
	var parts []string
	for _, a := range as {
		parts = append(parts, a.String())
	}
	return strings.Join(parts, ", ")
}

// writeHeader writes "Name: value" folded at spaces so that lines stay
// within 78 columns where possible (a longer word stays whole).
func writeHeader(b *bytes.Buffer, name, value string) {
	value = cleanLine(value)
	line := name + ":"
	for _, w := range strings.Split(value, " ") {
		if w == "" {
			continue
		}
		if len(line)+1+len(w) > 78 && strings.TrimSpace(line) != name+":" {
			b.WriteString(line + "\r\n")
			line = " " + w
			continue
		}
		line += " " + w
	}
	b.WriteString(line + "\r\n")
}

// String is for debugging: the message with LF line endings.
func (m *Mail) String() string {
	return strings.ReplaceAll(string(m.Bytes()), "\r\n", "\n")
}

var _ fmt.Stringer = (*Mail)(nil)
