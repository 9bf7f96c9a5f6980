package imapsrc

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestServerOptions(t *testing.T) {
	for s, want := range map[string]bool{"": true, "now": true, "2024-03-01": true, "yesterday": false} {
		o := ServerOptions{Addr: "127.0.0.1:143", Start: s}
		if _, err := o.Server(0); (err == nil) != want {
			t.Errorf("start %q: %v", s, err)
		}
	}
	pass := filepath.Join(t.TempDir(), "pass")
	if err := os.WriteFile(pass, []byte("pw\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	o := ServerOptions{Name: "lore", Addr: "127.0.0.1:143", Password: "inline", PasswordFile: pass, Start: "2024-03-01",
		Idle: false, PollInterval: time.Minute, Mailboxes: []string{"INBOX"}}
	s, err := o.Server(1 << 20)
	if err != nil {
		t.Fatal(err)
	}
	if s.Password != "pw" || !s.NoIdle || s.MaxMessageSize != 1<<20 || s.Start.Format("2006-01-02") != "2024-03-01" ||
		s.Name != "lore" || s.PollInterval != time.Minute || len(s.Mailboxes) != 1 {
		t.Errorf("server %+v", s)
	}
	o.PasswordFile = filepath.Join(t.TempDir(), "missing")
	if _, err := o.Server(0); err == nil {
		t.Error("missing password file accepted")
	}
}
