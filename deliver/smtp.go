package deliver

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"

	"github.com/autosel-bot/autosel-bot/internal/netaddr"
	"github.com/autosel-bot/autosel-bot/internal/secret"
)

// Sender submits one message. Send returns nil only when the server
// accepted the message (the reply to DATA); afterAccept, when not nil, is
// called right after that acceptance, before anything else happens (a
// fault-injection point for the crash tests).
type Sender interface {
	Send(ctx context.Context, from string, rcpt []string, raw []byte) error
}

// SMTPOptions configure an SMTP submission client: the watch.smtp section
// of the configuration (mapstructure tags).
type SMTPOptions struct {
	// Addr is host:port.
	Addr string `mapstructure:"addr"`
	// TLS is "tls" (implicit TLS), "starttls" or "plain".
	TLS string `mapstructure:"tls"`
	// AllowPlain permits a plain connection to a non-loopback address.
	AllowPlain bool `mapstructure:"allow_plain"`
	// InsecureSkipVerify disables certificate checks (test servers).
	InsecureSkipVerify bool `mapstructure:"insecure_skip_verify"`
	// Username and the password (Password, or the content of
	// PasswordFile, which wins) enable AUTH PLAIN when Username is set.
	Username     string `mapstructure:"username"`
	Password     string `mapstructure:"password"`
	PasswordFile string `mapstructure:"password_file"`
	// Helo is the EHLO name ("localhost" when empty).
	Helo string `mapstructure:"helo"`
	// RedirectTo, if set, replaces every envelope recipient (staging);
	// the Deliverer applies it, whatever the Sender.
	RedirectTo string `mapstructure:"redirect_to"`
	// Timeout bounds dialing and the whole transaction (default 2m).
	Timeout time.Duration `mapstructure:"-"`
}

// SMTP is a Sender talking to one submission server.
type SMTP struct {
	opts SMTPOptions
	// AfterAccept, if set, runs right after the server accepted DATA.
	AfterAccept func()
}

// NewSMTP checks the options and returns a Sender.
func NewSMTP(opts SMTPOptions) (*SMTP, error) {
	if opts.Addr == "" {
		return nil, errors.New("smtp: no server address")
	}
	mode, err := netaddr.TLSMode("smtp", opts.Addr, opts.TLS, opts.AllowPlain)
	if err != nil {
		return nil, err
	}
	opts.TLS = mode
	if opts.Password, err = secret.Read(opts.Password, opts.PasswordFile); err != nil {
		return nil, err
	}
	opts.PasswordFile = ""
	if opts.Helo == "" {
		opts.Helo = "localhost"
	}
	if opts.Timeout == 0 {
		opts.Timeout = 2 * time.Minute
	}
	return &SMTP{opts: opts}, nil
}

// Send implements Sender.
func (s *SMTP) Send(ctx context.Context, from string, rcpt []string, raw []byte) error {
	ctx, cancel := context.WithTimeout(ctx, s.opts.Timeout)
	defer cancel()
	host, _, _ := net.SplitHostPort(s.opts.Addr)
	tlsConf := &tls.Config{ServerName: host, InsecureSkipVerify: s.opts.InsecureSkipVerify}
	d := net.Dialer{Timeout: 30 * time.Second}
	conn, err := d.DialContext(ctx, "tcp", s.opts.Addr)
	if err != nil {
		return fmt.Errorf("smtp %s: %w", s.opts.Addr, err)
	}
	if dl, ok := ctx.Deadline(); ok {
		conn.SetDeadline(dl)
	}
	var c *smtp.Client
	switch s.opts.TLS {
	case "tls":
		c = smtp.NewClient(tls.Client(conn, tlsConf))
	case "starttls":
		c, err = smtp.NewClientStartTLS(conn, tlsConf)
		if err != nil {
			conn.Close()
			return fmt.Errorf("smtp %s: starttls: %w", s.opts.Addr, err)
		}
	default:
		c = smtp.NewClient(conn)
	}
	defer c.Close()
	if err := c.Hello(s.opts.Helo); err != nil {
		return fmt.Errorf("smtp %s: ehlo: %w", s.opts.Addr, err)
	}
	if s.opts.Username != "" {
		if err := c.Auth(sasl.NewPlainClient("", s.opts.Username, s.opts.Password)); err != nil {
			return fmt.Errorf("smtp %s: auth: %w", s.opts.Addr, err)
		}
	}
	if err := c.Mail(from, nil); err != nil {
		return fmt.Errorf("smtp %s: MAIL FROM: %w", s.opts.Addr, err)
	}
	accepted := 0
	var rcptErr error
	for _, r := range rcpt {
		if err := c.Rcpt(r, nil); err != nil {
			rcptErr = fmt.Errorf("smtp %s: RCPT TO %s: %w", s.opts.Addr, r, err)
			continue
		}
		accepted++
	}
	if accepted == 0 {
		if rcptErr == nil {
			rcptErr = fmt.Errorf("smtp %s: no recipients", s.opts.Addr)
		}
		return rcptErr
	}
	w, err := c.Data()
	if err != nil {
		return fmt.Errorf("smtp %s: DATA: %w", s.opts.Addr, err)
	}
	if _, err := w.Write(bytes.ReplaceAll(raw, []byte("\r\n"), []byte("\n"))); err != nil {
		w.Close()
		return fmt.Errorf("smtp %s: DATA: %w", s.opts.Addr, err)
	}
	if err := w.Close(); err != nil {
		var se *smtp.SMTPError
		if errors.As(err, &se) {
			return fmt.Errorf("smtp %s: end of DATA: %w", s.opts.Addr, err)
		}
		// The final dot went out but no answer came back: the server may
		// have accepted the message.
		return fmt.Errorf("smtp %s: end of DATA: %w: %w", s.opts.Addr, ErrAmbiguous, err)
	}
	if s.AfterAccept != nil {
		s.AfterAccept()
	}
	c.Quit()
	return nil
}

// Permanent reports whether a send error is a permanent (5xx) rejection
// that retrying cannot fix.
func Permanent(err error) bool {
	var se *smtp.SMTPError
	return errors.As(err, &se) && se.Code >= 500
}
