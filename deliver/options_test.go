package deliver

import (
	"os"
	"path/filepath"
	"testing"
)

func TestOptionsValidate(t *testing.T) {
	smtp := SMTPOptions{Addr: "127.0.0.1:25"}
	tests := []struct {
		name    string
		o       Options
		wantErr bool
	}{
		{"dry-run", Options{}, false},
		{"send without a server", Options{Send: true}, true},
		{"send without an allow-list", Options{Send: true, SMTP: smtp}, true},
		{"send to allowed lists", Options{Send: true, SMTP: smtp, Policy: Policy{Allow: Allow{Lists: []string{"l"}}}}, false},
		{"send to allowed domains", Options{Send: true, SMTP: smtp, Policy: Policy{Allow: Allow{Domains: []string{"kernel.org"}}}}, false},
		{"send redirected", Options{Send: true, SMTP: SMTPOptions{Addr: "127.0.0.1:25", RedirectTo: "me@x"}}, false},
	}
	for _, tt := range tests {
		if err := tt.o.Validate(); (err != nil) != tt.wantErr {
			t.Errorf("%s: err %v, want error %v", tt.name, err, tt.wantErr)
		}
	}
}

func TestOutboxPath(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", "/x/state")
	if got := (&Options{}).OutboxPath(); got != filepath.Join("/x/state", "autosel-bot", "outbox") {
		t.Errorf("default outbox %s", got)
	}
	if got := (&Options{Outbox: "/o"}).OutboxPath(); got != "/o" {
		t.Errorf("configured outbox %s", got)
	}
}

// TestNewSMTPPasswordFile: the password file wins over the inline
// password, and an unreadable one is an error.
func TestNewSMTPPasswordFile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "pass")
	if err := os.WriteFile(file, []byte("from-file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		pass, file, want string
		wantErr          bool
	}{
		{"inline", "", "inline", false},
		{"inline", file, "from-file", false},
		{"", file + ".missing", "", true},
	}
	for _, tt := range tests {
		s, err := NewSMTP(SMTPOptions{Addr: "127.0.0.1:25", TLS: "plain", Username: "u", Password: tt.pass, PasswordFile: tt.file})
		if (err != nil) != tt.wantErr {
			t.Errorf("%q/%q: err %v, want error %v", tt.pass, tt.file, err, tt.wantErr)
			continue
		}
		if err == nil && s.opts.Password != tt.want {
			t.Errorf("%q/%q: password %q, want %q", tt.pass, tt.file, s.opts.Password, tt.want)
		}
	}
}
