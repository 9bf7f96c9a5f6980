package main

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestVersion(t *testing.T) {
	for _, args := range [][]string{{"--version"}, {"version"}} {
		code, out, stderr := runCLI(t, "", args...)
		if code != 0 || !strings.HasPrefix(out, "autosel-bot ") || !strings.Contains(out, runtime.Version()) {
			t.Errorf("%v: exit %d, out %q, stderr %q", args, code, out, stderr)
		}
	}
}

func TestFlagCompletion(t *testing.T) {
	tests := []struct {
		args []string
		want []string
	}{
		{[]string{"__complete", "check", "--format", ""}, []string{"text", "json", "email", "terse", "sarif"}},
		{[]string{"__complete", "check", "--fail-on", ""}, []string{"note", "risk"}},
		{[]string{"__complete", "test", "--format", ""}, []string{"text", "json", "kcidb"}},
	}
	for _, tc := range tests {
		_, out, _ := runCLI(t, "", tc.args...)
		var got []string
		for _, l := range strings.Split(out, "\n") {
			if l == "" || strings.HasPrefix(l, ":") {
				continue
			}
			v, _, _ := strings.Cut(l, "\t")
			got = append(got, v)
		}
		if strings.Join(got, " ") != strings.Join(tc.want, " ") {
			t.Errorf("%v: %v, want %v", tc.args, got, tc.want)
		}
	}
}

// TestConfigTypo: a typo in the configuration fails with exit 2, naming
// the key, its line and the closest known key.
func TestConfigTypo(t *testing.T) {
	tests := []struct {
		yaml string
		env  string
		want string
	}{
		{"chekc:\n  format: json\n", "", `c.yaml:1: unknown key "chekc" (did you mean "check"?)`},
		{"watch:\n  imapp: []\n", "", `c.yaml:2: unknown key "watch.imapp" (did you mean "watch.imap"?)`},
		{"check:\n  format: xml\n", "", `check.format (config file `},
		{"", "AUTOSEL_BOT_CHECK_FAIL_ON=high", `check.fail_on (environment variable AUTOSEL_BOT_CHECK_FAIL_ON) "high"`},
	}
	for _, tc := range tests {
		args := []string{"check", seed002}
		if tc.yaml != "" {
			args = append([]string{"--config", writeFile(t, "c.yaml", tc.yaml)}, args...)
		}
		if tc.env != "" {
			k, v, _ := strings.Cut(tc.env, "=")
			t.Setenv(k, v)
		}
		code, _, stderr := runCLI(t, "", args...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%q: exit %d, stderr %q, want 2 and %q", tc.yaml, code, stderr, tc.want)
		}
	}
}

// TestManPages: the hidden man command writes a page per command.
func TestManPages(t *testing.T) {
	dir := t.TempDir()
	code, _, stderr := runCLI(t, "", "man", "--dir", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, page := range []string{"autosel-bot.1", "autosel-bot-check.1", "autosel-bot-test.1", "autosel-bot-version.1"} {
		b, err := os.ReadFile(filepath.Join(dir, page))
		if err != nil || !bytes.Contains(b, []byte(".TH \"AUTOSEL-BOT\" \"1\"")) {
			t.Errorf("%s: %v %.80q", page, err, b)
		}
	}
}
