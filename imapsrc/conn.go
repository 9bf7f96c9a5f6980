// Package imapsrc reads mailing-list mail from IMAP servers (dovecot,
// public-inbox-imapd, lore-style archives) with go-imap v2: TLS, STARTTLS
// or plain (loopback only unless allowed), LOGIN or AUTHENTICATE PLAIN,
// several mailboxes per server, IDLE with a polling fallback, reconnects
// with exponential backoff, and per-mailbox cursors (UIDVALIDITY + last UID)
// kept in the store so each new message is handed over exactly once.
package imapsrc

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapclient"
	"github.com/emersion/go-sasl"

	"github.com/autosel-bot/autosel-bot/internal/netaddr"
)

// Server is one IMAP account to read.
type Server struct {
	// Name identifies the server in the store and logs (Addr when empty).
	Name string
	// Addr is host:port.
	Addr string
	// TLS is "tls" (implicit), "starttls" or "plain".
	TLS string
	// AllowPlain permits plain IMAP to a non-loopback address.
	AllowPlain bool
	// InsecureSkipVerify disables certificate checks (test servers).
	InsecureSkipVerify bool
	// Username and Password log in; public-inbox-imapd accepts anything.
	Username, Password string
	// Auth is "login" (LOGIN) or "plain" (AUTHENTICATE PLAIN).
	Auth string
	// Mailboxes are names or LIST patterns ("*", "%"), e.g. "INBOX" or
	// "org.kernel.vger.linux-kernel.*" for public-inbox's NEWSGROUP.N folders.
	Mailboxes []string
	// Start is where a first start begins: zero means "now" (only mail
	// arriving from now on), otherwise every message since that date.
	Start time.Time
	// NoIdle disables IDLE (polling only).
	NoIdle bool
	// PollInterval is the polling period without IDLE, the period after
	// which IDLE is renewed (default 5m; servers drop IDLE after 30m), and
	// how often the mailbox is selected again to catch a changed
	// UIDVALIDITY.
	PollInterval time.Duration
	// MaxMessageSize skips bigger messages (logged with their Message-ID).
	MaxMessageSize int64
	// BackoffMin and BackoffMax bound the reconnect delay (1s, 5m).
	BackoffMin, BackoffMax time.Duration
	// DialTimeout bounds connecting (default 30s).
	DialTimeout time.Duration
}

// withDefaults fills zero fields and checks the transport settings.
func (s Server) withDefaults() (Server, error) {
	if s.Addr == "" {
		return s, errors.New("imap: server without an address")
	}
	if s.Name == "" {
		s.Name = s.Addr
	}
	mode, err := netaddr.TLSMode("imap", s.Addr, s.TLS, s.AllowPlain)
	if err != nil {
		return s, err
	}
	s.TLS = mode
	switch s.Auth {
	case "", "login":
		s.Auth = "login"
	case "plain":
	default:
		return s, fmt.Errorf("imap %s: unknown auth %q (login, plain)", s.Addr, s.Auth)
	}
	if len(s.Mailboxes) == 0 {
		s.Mailboxes = []string{"INBOX"}
	}
	if s.PollInterval <= 0 {
		s.PollInterval = 5 * time.Minute
	}
	if s.MaxMessageSize <= 0 {
		s.MaxMessageSize = 10 << 20
	}
	if s.BackoffMin <= 0 {
		s.BackoffMin = time.Second
	}
	if s.BackoffMax <= 0 {
		s.BackoffMax = 5 * time.Minute
	}
	if s.DialTimeout <= 0 {
		s.DialTimeout = 30 * time.Second
	}
	return s, nil
}

// dial connects and logs in. handler receives unilateral data (EXISTS).
func (s *Server) dial(handler *imapclient.UnilateralDataHandler) (*imapclient.Client, error) {
	host, _, _ := net.SplitHostPort(s.Addr)
	opts := &imapclient.Options{
		TLSConfig:             &tls.Config{ServerName: host, InsecureSkipVerify: s.InsecureSkipVerify},
		UnilateralDataHandler: handler,
		Dialer:                &net.Dialer{Timeout: s.DialTimeout, KeepAlive: 30 * time.Second},
	}
	var c *imapclient.Client
	var err error
	switch s.TLS {
	case "tls":
		c, err = imapclient.DialTLS(s.Addr, opts)
	case "starttls":
		c, err = imapclient.DialStartTLS(s.Addr, opts)
	default:
		c, err = imapclient.DialInsecure(s.Addr, opts)
	}
	if err != nil {
		return nil, fmt.Errorf("imap %s: connect: %w", s.Addr, err)
	}
	if s.Auth == "plain" {
		err = c.Authenticate(sasl.NewPlainClient("", s.Username, s.Password))
	} else {
		err = c.Login(s.Username, s.Password).Wait()
	}
	if err != nil {
		c.Close()
		return nil, fmt.Errorf("imap %s: login as %q: %w", s.Addr, s.Username, err)
	}
	return c, nil
}

// resolve expands mailbox patterns with LIST.
func (s *Server) resolve(c *imapclient.Client) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	for _, m := range s.Mailboxes {
		if !hasWildcard(m) {
			if !seen[m] {
				seen[m] = true
				out = append(out, m)
			}
			continue
		}
		list, err := c.List("", m, nil).Collect()
		if err != nil {
			return nil, fmt.Errorf("imap %s: LIST %q: %w", s.Addr, m, err)
		}
		for _, l := range list {
			if hasAttr(l.Attrs, imap.MailboxAttrNoSelect) || seen[l.Mailbox] {
				continue
			}
			seen[l.Mailbox] = true
			out = append(out, l.Mailbox)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("imap %s: no mailbox matches %q", s.Addr, s.Mailboxes)
	}
	return out, nil
}

func hasWildcard(s string) bool {
	for _, r := range s {
		if r == '*' || r == '%' {
			return true
		}
	}
	return false
}

func hasAttr(attrs []imap.MailboxAttr, a imap.MailboxAttr) bool {
	for _, x := range attrs {
		if x == a {
			return true
		}
	}
	return false
}
