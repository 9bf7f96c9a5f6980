package imapsrc

import (
	"fmt"
	"strings"
	"time"

	"github.com/autosel-bot/autosel-bot/internal/secret"
)

// ServerOptions are one IMAP account as configured (an item of the
// configuration's watch.imap list; config.yaml documents the keys).
// Server turns them into a Server.
type ServerOptions struct {
	// Name identifies the server in the state (default: Addr).
	Name string `mapstructure:"name"`
	// Addr is host:port.
	Addr string `mapstructure:"addr"`
	// TLS is tls, starttls or plain (plain: loopback only unless AllowPlain).
	TLS string `mapstructure:"tls"`
	// AllowPlain permits plain IMAP to a non-loopback address.
	AllowPlain bool `mapstructure:"allow_plain"`
	// InsecureSkipVerify disables certificate verification.
	InsecureSkipVerify bool `mapstructure:"insecure_skip_verify"`
	// Username and Password (or PasswordFile, which wins) log in.
	Username     string `mapstructure:"username"`
	Password     string `mapstructure:"password"`
	PasswordFile string `mapstructure:"password_file"`
	// Auth is login (LOGIN) or plain (AUTHENTICATE PLAIN).
	Auth string `mapstructure:"auth"`
	// Mailboxes are names or LIST patterns.
	Mailboxes []string `mapstructure:"mailboxes"`
	// Start is "now" or a date (YYYY-MM-DD) for the first start.
	Start string `mapstructure:"start"`
	// Idle uses IMAP IDLE when the server has it (else polling).
	Idle bool `mapstructure:"idle"`
	// PollInterval is the polling period (and IDLE renewal period).
	PollInterval time.Duration `mapstructure:"poll_interval"`
	// BackoffMin and BackoffMax bound the reconnect delay.
	BackoffMin time.Duration `mapstructure:"backoff_min"`
	BackoffMax time.Duration `mapstructure:"backoff_max"`
}

// StartTime parses Start: zero for "now" or empty.
func (o ServerOptions) StartTime() (time.Time, error) {
	s := strings.TrimSpace(o.Start)
	if s == "" || s == "now" {
		return time.Time{}, nil
	}
	t, err := time.Parse("2006-01-02", s)
	if err != nil {
		return time.Time{}, fmt.Errorf("imap %s: start %q: want \"now\" or YYYY-MM-DD", o.Addr, o.Start)
	}
	return t, nil
}

// Server returns the server of o (the password read from PasswordFile
// when set); messages bigger than maxSize bytes are skipped.
func (o ServerOptions) Server(maxSize int64) (Server, error) {
	start, err := o.StartTime()
	if err != nil {
		return Server{}, err
	}
	pass, err := secret.Read(o.Password, o.PasswordFile)
	if err != nil {
		return Server{}, fmt.Errorf("imap %s: %w", o.Addr, err)
	}
	return Server{
		Name: o.Name, Addr: o.Addr, TLS: o.TLS, AllowPlain: o.AllowPlain, InsecureSkipVerify: o.InsecureSkipVerify,
		Username: o.Username, Password: pass, Auth: o.Auth, Mailboxes: o.Mailboxes, Start: start,
		NoIdle: !o.Idle, PollInterval: o.PollInterval, MaxMessageSize: maxSize,
		BackoffMin: o.BackoffMin, BackoffMax: o.BackoffMax,
	}, nil
}
