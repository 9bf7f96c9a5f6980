package mail

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	netmail "net/mail"
	"regexp"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/emersion/go-message"
	_ "github.com/emersion/go-message/charset" // registers the charsets go-message decodes
	gomail "github.com/emersion/go-message/mail"
)

// DefaultMaxBodySize is the default cap on the decoded text of one message
// (all parts together). Larger messages are rejected with an error naming
// their Message-ID.
const DefaultMaxBodySize = 10 << 20

// maxParts bounds the number of MIME parts walked in one message.
const maxParts = 256

// maxDepth bounds multipart nesting.
const maxDepth = 8

// SyntheticIDDomain is the domain of Message-IDs made up for messages that
// have none.
const SyntheticIDDomain = "autosel-bot.invalid"

// ErrTooLarge is wrapped by errors for messages over the size cap.
var ErrTooLarge = errors.New("message too large")

// ErrNoFrom is wrapped by errors for messages without a usable From header.
var ErrNoFrom = errors.New("missing From header")

// ParseError is the error Parse returns once the Message-ID is known.
type ParseError struct {
	// MessageID is the Message-ID of the message (synthetic if it had none).
	MessageID string
	// Err is the underlying error.
	Err error
}

// Error implements error.
func (e *ParseError) Error() string { return fmt.Sprintf("message <%s>: %v", e.MessageID, e.Err) }

// Unwrap returns the underlying error.
func (e *ParseError) Unwrap() error { return e.Err }

// Parser parses messages with configurable limits. The zero value uses the
// defaults.
type Parser struct {
	// MaxBodySize caps the decoded body (DefaultMaxBodySize when 0).
	MaxBodySize int64
}

// Parse parses one RFC 5322 message with the default limits. See
// Parser.Parse.
func Parse(r io.Reader) (*Message, error) {
	var p Parser
	return p.Parse(r)
}

func (p *Parser) maxBody() int64 {
	if p.MaxBodySize > 0 {
		return p.MaxBodySize
	}
	return DefaultMaxBodySize
}

// maxRaw is the cap on the raw (encoded) message: base64 needs 4/3 of the
// decoded size, plus room for headers and markup.
func (p *Parser) maxRaw() int64 { return p.maxBody()*3/2 + 1<<20 }

// Parse reads one RFC 5322 message (MIME multipart, base64, quoted-printable,
// any charset go-message knows, patch attachments, CRLF, format=flowed) and
// fills every Message field. Errors after the headers were read are
// *ParseError values naming the Message-ID. Parse never panics on hostile
// input.
func (p *Parser) Parse(r io.Reader) (msg *Message, err error) {
	raw, err := io.ReadAll(io.LimitReader(r, p.maxRaw()+1))
	if err != nil {
		return nil, fmt.Errorf("reading message: %w", err)
	}
	return p.parseRaw(raw)
}

func (p *Parser) parseRaw(raw []byte) (msg *Message, err error) {
	defer func() {
		if r := recover(); r != nil {
			// go-message is not expected to panic; never let hostile
			// input take the bot down if it does.
			msg, err = nil, fmt.Errorf("internal error parsing message: %v", r)
		}
	}()
	tooLarge := int64(len(raw)) > p.maxRaw()
	if !tooLarge {
		if m := parsePlain(raw); m != nil {
			return m, nil
		}
	}
	ent, err := message.Read(bytes.NewReader(raw))
	if err != nil && ent == nil {
		return nil, newNotMailError(raw, err)
	}
	msg = &Message{}
	h := gomail.Header{Header: ent.Header}
	if err := fillHeaders(msg, h, raw); err != nil {
		return nil, &ParseError{MessageID: msg.MessageID, Err: err}
	}
	if tooLarge {
		return nil, &ParseError{MessageID: msg.MessageID, Err: fmt.Errorf("%w: over %d bytes", ErrTooLarge, p.maxRaw())}
	}
	w := &bodyWalker{limit: p.maxBody()}
	if err := w.walk(ent, 0); err != nil {
		return nil, &ParseError{MessageID: msg.MessageID, Err: err}
	}
	msg.Body = w.buf.String()
	fillBody(msg)
	return msg, nil
}

// fillHeaders sets the header fields of msg.
func fillHeaders(msg *Message, h gomail.Header, raw []byte) error {
	id, err := h.MessageID()
	if err != nil || id == "" {
		id = lenientID(h.Get("Message-Id"))
	}
	if id == "" {
		sum := sha256.Sum256(raw)
		id = hex.EncodeToString(sum[:]) + "@" + SyntheticIDDomain
	}
	msg.MessageID = id
	if irt := msgIDList(h, "In-Reply-To"); len(irt) > 0 {
		msg.InReplyTo = irt[0]
	}
	msg.References = msgIDList(h, "References")
	from, ok := senderOf(h)
	if !ok {
		if h.Get("From") == "" {
			return ErrNoFrom
		}
		return fmt.Errorf("%w: unparsable %q", ErrNoFrom, truncate(h.Get("From"), 80))
	}
	msg.From = from
	msg.To = addressList(h, "To")
	msg.Cc = addressList(h, "Cc")
	if d, err := h.Date(); err == nil {
		msg.Date = d.UTC()
	} else {
		msg.Date = lenientDate(h.Get("Date"))
	}
	subj, err := h.Subject()
	if err != nil {
		subj = h.Get("Subject")
	}
	msg.Subject = ParseSubject(validUTF8(subj))
	msg.Author = msg.From
	msg.ListID, _ = h.Text("List-Id")
	msg.AutoSubmitted = strings.TrimSpace(h.Get("Auto-Submitted"))
	return nil
}

var msgIDRe = regexp.MustCompile(`<([^<>\s]+)>`)

// lenientID extracts an id from a Message-ID value go-message rejected.
func lenientID(v string) string {
	if m := msgIDRe.FindStringSubmatch(v); m != nil {
		return m[1]
	}
	v = strings.TrimSpace(v)
	if v == "" || strings.ContainsAny(v, " \t<>") {
		return ""
	}
	return v
}

// msgIDList parses a list of Message-IDs leniently.
func msgIDList(h gomail.Header, key string) []string {
	ids, err := h.MsgIDList(key)
	if err == nil {
		return ids
	}
	var out []string
	for _, m := range msgIDRe.FindAllStringSubmatch(h.Get(key), -1) {
		out = append(out, m[1])
	}
	return out
}

// addressList parses an address header (all fields of that name: some
// bots send several To: or Cc: fields), falling back to a lenient parse of
// each comma-separated item.
func addressList(h gomail.Header, key string) []Address {
	if fields := h.FieldsByKey(key); fields.Len() > 1 {
		var vals []string
		for fields.Next() {
			vals = append(vals, fields.Value())
		}
		var joined message.Header
		joined.Set(key, strings.Join(vals, ", "))
		h = gomailHeader(joined)
	}
	var out []Address
	if list, err := h.AddressList(key); err == nil {
		for _, a := range list {
			out = append(out, Address{Name: a.Name, Addr: normAddr(a.Address)})
		}
		return out
	}
	v, err := h.Text(key)
	if err != nil {
		v = h.Get(key)
	}
	for _, item := range strings.Split(v, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		if a, err := netmail.ParseAddress(item); err == nil {
			out = append(out, Address{Name: a.Name, Addr: normAddr(a.Address)})
			continue
		}
		if addr := extractAddr(item); strings.Contains(addr, "@") {
			name := item
			if i := strings.IndexByte(item, '<'); i >= 0 {
				name = item[:i]
			} else {
				name = ""
			}
			out = append(out, Address{Name: strings.Trim(strings.TrimSpace(name), `"`), Addr: addr})
		}
	}
	return out
}

// senderOf returns the sender a From header names: its first address,
// else a sender named without one (senderWithoutDomain); the name as
// valid UTF-8 without control characters. It is how every author is read:
// a message's From, an in-body From line (addressFromText), a plain patch
// file's author.
func senderOf(h gomail.Header) (Address, bool) {
	var a Address
	if list := addressList(h, "From"); len(list) > 0 {
		a = list[0]
	} else if s, ok := senderWithoutDomain(h.Get("From")); ok {
		a = s
	} else {
		return Address{}, false
	}
	a.Name = strings.TrimSpace(strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, validUTF8(a.Name)))
	return a, true
}

// quotedRe matches a quoted string of a header value.
var quotedRe = regexp.MustCompile(`"[^"]*"`)

// senderWithoutDomain reads a From value that names its sender without a
// usable address, as git format-patch writes for a commit whose author
// had none ("Stephen M. Cameron <StephenM.Cameron>"): the name (RFC 2047
// words decoded; else the local part) with the local part in the bot's
// own .invalid domain, which replies never write to. Keeping the local
// part keeps two such senders apart (series are joined by author) and
// lets the daemon's bot patterns ("*bot@*") still match. A value without
// a letter or digit ("<>", ",,,") names nobody, nor does a list.
func senderWithoutDomain(v string) (Address, bool) {
	v = strings.TrimSpace(v)
	if strings.ContainsAny(v, "@\r\n") || strings.ContainsAny(quotedRe.ReplaceAllString(v, `""`), ",;") {
		return Address{}, false // an address after all, or a list: unparsable
	}
	name, local := v, ""
	if before, rest, ok := strings.Cut(v, "<"); ok {
		inner, _, closed := strings.Cut(rest, ">")
		if !closed {
			return Address{}, false
		}
		name, local = before, strings.TrimSpace(inner)
	} else if !strings.ContainsAny(v, " \t\"") {
		local = v
	}
	if dec, err := subjectDecoder.DecodeHeader(name); err == nil {
		name = dec
	}
	name = strings.TrimSpace(strings.Trim(strings.TrimSpace(name), `"`))
	if name == "" {
		name = local
	}
	if strings.IndexFunc(name, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) < 0 {
		return Address{}, false
	}
	return Address{Name: name, Addr: standInAddr(local)}, true
}

// UnknownSender is the address of a sender a message or patch file does
// not name at all. Its domain is in .invalid (RFC 2606), as is every
// stand-in address: replies leave them out.
const UnknownSender = "unknown@" + SyntheticIDDomain

// standInAddr is the stand-in address of a sender known only by a local
// part: that part in the bot's .invalid domain when it is a plain dot-atom
// of at most 64 characters, else UnknownSender.
func standInAddr(local string) string {
	if local == "" || len(local) > 64 || strings.HasPrefix(local, ".") || strings.HasSuffix(local, ".") ||
		strings.Contains(local, "..") {
		return UnknownSender
	}
	for _, r := range local {
		if !(r < utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune(".-_+", r))) {
			return UnknownSender
		}
	}
	return local + "@" + SyntheticIDDomain
}

// normAddr lower-cases the domain of an address.
func normAddr(a string) string {
	if i := strings.LastIndexByte(a, '@'); i >= 0 {
		return a[:i] + "@" + strings.ToLower(a[i+1:])
	}
	return a
}

var dateLayouts = []string{
	"Mon, 2 Jan 2006 15:04:05 -0700 (MST)",
	"Mon, 2 Jan 2006 15:04:05 MST",
	"2 Jan 2006 15:04:05 -0700",
	"Mon Jan 2 15:04:05 2006",
	"Mon Jan 2 15:04:05 2006 -0700", // git log / git show
	"Mon, 2 Jan 2006 15:04 -0700",
	time.RFC3339,
}

// lenientDate parses dates net/mail rejects; zero time when hopeless.
func lenientDate(v string) time.Time {
	v = strings.Join(strings.Fields(v), " ")
	for _, l := range dateLayouts {
		if t, err := time.Parse(l, v); err == nil {
			return t.UTC()
		}
	}
	return time.Time{}
}

// validUTF8 returns s unchanged when it is valid UTF-8, else reads it as
// Latin-1 (what unencoded 8-bit header bytes nearly always are).
func validUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	r := make([]rune, len(s))
	for i := 0; i < len(s); i++ {
		r[i] = rune(s[i])
	}
	return string(r)
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

func gomailHeader(h message.Header) gomail.Header { return gomail.Header{Header: h} }
