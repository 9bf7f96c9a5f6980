package deliver

import (
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"sync"
	"testing"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
)

// smtpBackend is an in-process SMTP server whose answer to DATA is scripted.
type smtpBackend struct {
	mu       sync.Mutex
	dataErr  error
	dropData bool // close the connection instead of answering DATA
	got      []string
	auth     string
}

func (b *smtpBackend) NewSession(c *smtp.Conn) (smtp.Session, error) {
	return &smtpSession{b: b, c: c}, nil
}

type smtpSession struct {
	b *smtpBackend
	c *smtp.Conn
}

func (s *smtpSession) AuthMechanisms() []string { return []string{sasl.Plain} }
func (s *smtpSession) Auth(mech string) (sasl.Server, error) {
	return sasl.NewPlainServer(func(identity, user, pass string) error {
		if user != "bot" || pass != "pw" {
			return errors.New("bad credentials")
		}
		s.b.mu.Lock()
		s.b.auth = user
		s.b.mu.Unlock()
		return nil
	}), nil
}
func (s *smtpSession) Reset()                                         {}
func (s *smtpSession) Logout() error                                  { return nil }
func (s *smtpSession) Mail(from string, opts *smtp.MailOptions) error { return nil }
func (s *smtpSession) Rcpt(to string, opts *smtp.RcptOptions) error {
	if strings.HasPrefix(to, "nobody@") {
		return &smtp.SMTPError{Code: 550, Message: "no such user"}
	}
	return nil
}
func (s *smtpSession) Data(r io.Reader) error {
	b, _ := io.ReadAll(r)
	s.b.mu.Lock()
	defer s.b.mu.Unlock()
	if s.b.dropData {
		s.c.Conn().Close()
		return errors.New("dropped")
	}
	if s.b.dataErr == nil {
		s.b.got = append(s.b.got, string(b))
	}
	return s.b.dataErr
}

func startSMTP(t *testing.T, b *smtpBackend) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := smtp.NewServer(b)
	s.Domain = "localhost"
	s.AllowInsecureAuth = true
	go s.Serve(ln)
	t.Cleanup(func() { s.Close() })
	return ln.Addr().String()
}

func TestSMTPSender(t *testing.T) {
	raw := []byte("From: bot@x\r\nTo: a@x\r\nSubject: s\r\nMessage-ID: <m@x>\r\n\r\n.leading dot\r\nbody\r\n")
	tests := []struct {
		name      string
		b         *smtpBackend
		user      string
		rcpt      []string
		ambiguous bool
		permanent bool
		ok        bool
	}{
		{name: "accepted", b: &smtpBackend{}, user: "bot", rcpt: []string{"a@x", "b@x"}, ok: true},
		{name: "one bad recipient", b: &smtpBackend{}, rcpt: []string{"nobody@x", "a@x"}, ok: true},
		{name: "all recipients rejected", b: &smtpBackend{}, rcpt: []string{"nobody@x"}, permanent: true},
		{name: "bad auth (go-smtp answers 454: retried)", b: &smtpBackend{}, user: "mallory", rcpt: []string{"a@x"}},
		{name: "rejected data", b: &smtpBackend{dataErr: &smtp.SMTPError{Code: 554, Message: "spam"}}, rcpt: []string{"a@x"}, permanent: true},
		{name: "temporary", b: &smtpBackend{dataErr: &smtp.SMTPError{Code: 451, Message: "later"}}, rcpt: []string{"a@x"}},
		{name: "connection lost after the final dot", b: &smtpBackend{dropData: true}, rcpt: []string{"a@x"}, ambiguous: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			addr := startSMTP(t, tt.b)
			pass := "pw"
			s, err := NewSMTP(SMTPOptions{Addr: addr, TLS: "plain", Username: tt.user, Password: pass})
			if err != nil {
				t.Fatal(err)
			}
			accepted := false
			s.AfterAccept = func() { accepted = true }
			err = s.Send(context.Background(), "bot@x", tt.rcpt, raw)
			if (err == nil) != tt.ok {
				t.Fatalf("err %v, want ok=%v", err, tt.ok)
			}
			if accepted != tt.ok {
				t.Errorf("AfterAccept called: %v", accepted)
			}
			if got := errors.Is(err, ErrAmbiguous); got != tt.ambiguous {
				t.Errorf("ambiguous %v, want %v (%v)", got, tt.ambiguous, err)
			}
			if got := Permanent(err); got != tt.permanent {
				t.Errorf("permanent %v, want %v (%v)", got, tt.permanent, err)
			}
			if tt.ok && (len(tt.b.got) != 1 || !strings.Contains(tt.b.got[0], "\r\n.leading dot\r\n")) {
				t.Errorf("server got %q", tt.b.got)
			}
			if tt.ok && tt.user != "" && tt.b.auth != tt.user {
				t.Errorf("not authenticated as %s", tt.user)
			}
		})
	}
}
