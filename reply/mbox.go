package reply

import (
	"bufio"
	"bytes"
	"io"
	"strings"
	"time"
)

// WriteMbox writes mails as an mbox (mboxrd): each message starts with a
// "From <sender> <asctime>" line, has its full headers (From, To, Cc,
// Subject, Date, Message-ID, In-Reply-To, References, MIME headers) and
// LF line endings, body lines starting with ">*From " get one more '>', and
// a blank line ends it. git send-email, git mailsplit, mutt -f and other
// mbox readers take it as is.
func WriteMbox(w io.Writer, mails []*Mail) error {
	bw := bufio.NewWriter(w)
	for _, m := range mails {
		sender := "MAILER-DAEMON"
		if m.From != nil && m.From.Address != "" {
			sender = m.From.Address
		}
		date := m.Date
		if date.IsZero() {
			date = time.Unix(0, 0)
		}
		bw.WriteString("From " + sender + " " + date.UTC().Format(time.ANSIC) + "\n")
		raw := strings.ReplaceAll(string(m.Bytes()), "\r\n", "\n")
		head, body, _ := strings.Cut(raw, "\n\n")
		bw.WriteString(head + "\n\n")
		for _, l := range strings.SplitAfter(body, "\n") {
			if l == "" {
				continue
			}
			if isFromLine(l) {
				bw.WriteByte('>')
			}
			bw.WriteString(l)
		}
		if !strings.HasSuffix(body, "\n") {
			bw.WriteByte('\n')
		}
		bw.WriteByte('\n')
	}
	return bw.Flush()
}

// isFromLine reports whether l is ">*From " (quoted one more level in
// mboxrd).
func isFromLine(l string) bool {
	return strings.HasPrefix(string(bytes.TrimLeft([]byte(l), ">")), "From ")
}
