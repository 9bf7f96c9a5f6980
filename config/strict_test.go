package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	autoselbot "github.com/autosel-bot/autosel-bot"
)

// TestDefaultsKnown: every key of the embedded config.yaml is a setting
// (the documentation and the Go types agree).
func TestDefaultsKnown(t *testing.T) {
	if err := NewSchema().checkYAML("config.yaml", autoselbot.DefaultConfig, nil); err != nil {
		t.Fatal(err)
	}
}

func TestStrictFile(t *testing.T) {
	tests := []struct {
		name string
		yaml string
		want []string // substrings of the error; none: no error
	}{
		{"valid", "check:\n  format: json\nwatch:\n  imap:\n    - addr: x:1\n      mailboxes: [INBOX]\n", nil},
		{"typo of a section", "chekc:\n  format: json\n", []string{`c.yaml:1: unknown key "chekc" (did you mean "check"?)`}},
		{"unknown key under watch", "watch:\n  workers: 2\n  imapp: []\n", []string{`c.yaml:3: unknown key "watch.imapp" (did you mean "watch.imap"?)`}},
		{"key of a list item", "watch:\n  imap:\n    - addr: x:1\n    - adr: y:1\n", []string{`c.yaml:4: unknown key "watch.imap[1].adr" (did you mean "watch.imap[].addr"?)`}},
		{"nothing close", "zzzzzzzzzz: 1\n", []string{`unknown key "zzzzzzzzzz"`}},
		{"several", "chekc: {}\nreply:\n  gretting: Hi\n", []string{`"chekc"`, `"reply.gretting" (did you mean "reply.greeting"?)`}},
		{"stable trees", "stable:\n  trees:\n    - name: v6.1\n      reff: x\n", []string{`"stable.trees[0].reff" (did you mean "stable.trees[].ref"?)`}},
		{"empty file", "", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := NewSchema().checkYAML("c.yaml", []byte(tc.yaml), map[string]int{})
			if len(tc.want) == 0 {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil {
				t.Fatal("no error")
			}
			var uk *UnknownKeyError
			if !errors.As(err, &uk) {
				t.Errorf("%T is not an UnknownKeyError", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

func TestStrictEnv(t *testing.T) {
	s := NewSchema()
	tests := []struct {
		env  []string
		want string
	}{
		{[]string{"AUTOSEL_BOT_CHECK_FORMAT=json", "AUTOSEL_BOT_WATCH_RATE_LIMIT_PER_LIST=3", "HOME=/root"}, ""},
		{[]string{"AUTOSEL_BOT_CHEK_FORMAT=json"}, `environment variable AUTOSEL_BOT_CHEK_FORMAT names no configuration key (did you mean "AUTOSEL_BOT_CHECK_FORMAT"?)`},
		{[]string{"AUTOSEL_BOT_WATCH=1"}, "AUTOSEL_BOT_WATCH names no configuration key"},
	}
	for _, tc := range tests {
		err := s.checkEnv(tc.env)
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%v: %v, want %q", tc.env, err, tc.want)
		}
	}
}

// TestLoadValueSources: a value that does not decode names where it came
// from.
func TestLoadValueSources(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "c.yaml")
	tests := []struct {
		name, yaml, env, want string
	}{
		{"file", "check:\n  format: json\nwatch:\n  workers: many\n", "", "config file " + file + ":4: 'watch.workers'"},
		{"env", "", "AUTOSEL_BOT_WATCH_SERIES_WAIT=5x", "environment variable AUTOSEL_BOT_WATCH_SERIES_WAIT: 'watch.series_wait'"},
		{"reply section", "reply:\n  max_recipients: lots\n", "", "config file " + file + ":2: 'reply.max_recipients'"},
		{"unknown key", "watch:\n  sendd: true\n", "", `unknown key "watch.sendd" (did you mean "watch.send"?)`},
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
				os.WriteFile(f, []byte(tc.yaml), 0o644)
			}
			v, err := New()
			if err != nil {
				t.Fatal(err)
			}
			_, err = Load(v, f)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}
	v, _ := New()
	c, err := Load(v, "")
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Sources.Of("check.format"); got != "built-in defaults (config.yaml)" {
		t.Errorf("source of check.format: %q", got)
	}
}

func TestEditDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		d    int
	}{{"chekc", "check", 1}, {"imapp", "imap", 1}, {"", "abc", 3}, {"kitten", "sitting", 3}} {
		if d := editDistance(tc.a, tc.b); d != tc.d {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tc.a, tc.b, d, tc.d)
		}
	}
}
