package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSenderAddresses: a reply.from or watch.from that does not parse is an
// error naming the key and where it came from, not silently the default.
func TestSenderAddresses(t *testing.T) {
	file := filepath.Join(t.TempDir(), "c.yaml")
	tests := []struct {
		name, yaml, env string
		want            string // "" = loads, with reply.from as given
		from            string
	}{
		{name: "default", from: "autosel-bot <autosel-bot@localhost>"},
		{name: "file ok", yaml: "reply:\n  from: Bot <bot@example.org>\n", from: "Bot <bot@example.org>"},
		{name: "bare ok", yaml: "reply:\n  from: bot@example.org\n", from: "bot@example.org"},
		{name: "file bad", yaml: "reply:\n  greeting: Hello\n  from: Bot <bot@example.org\n",
			want: "config file " + file + ":3: reply.from: \"Bot <bot@example.org\" is not an address"},
		{name: "no domain", yaml: "reply:\n  from: autosel-bot\n",
			want: "config file " + file + ":2: reply.from: \"autosel-bot\""},
		{name: "env bad", env: "AUTOSEL_BOT_REPLY_FROM=Bot bot@example.org",
			want: "environment variable AUTOSEL_BOT_REPLY_FROM: reply.from:"},
		{name: "watch bad", yaml: "watch:\n  from: <nobody\n",
			want: "config file " + file + ":2: watch.from: \"<nobody\" is not an address"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.env != "" {
				k, v, _ := strings.Cut(tc.env, "=")
				t.Setenv(k, v)
			}
			f := ""
			if tc.yaml != "" {
				f = file
				if err := os.WriteFile(f, []byte(tc.yaml), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			v, err := New()
			if err != nil {
				t.Fatal(err)
			}
			c, err := Load(v, f)
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				if c.Reply.From != tc.from {
					t.Errorf("reply.from = %q, want %q", c.Reply.From, tc.from)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}
}
