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
		{[]string{"__complete", "test", "--backend", ""}, []string{"local", "lava"}},
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

// TestDirCompletion: --tree, --repo and --dir complete directories only.
func TestDirCompletion(t *testing.T) {
	for _, args := range [][]string{{"check", "--tree"}, {"check", "--repo"}, {"test", "--tree"}, {"man", "--dir"}} {
		_, out, _ := runCLI(t, "", append(append([]string{"__complete"}, args...), "")...)
		if !strings.HasSuffix(strings.TrimSpace(out), ":16") { // cobra.ShellCompDirectiveFilterDirs
			t.Errorf("%v: %q, want the directive to complete directories (:16)", args, out)
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

// TestManPages: man, a visible command, writes a page per command with
// EXIT STATUS, ENVIRONMENT and FILES, and autosel-bot.yaml(5) with every
// key of the configuration.
func TestManPages(t *testing.T) {
	_, help, _ := runCLI(t, "", "--help")
	if !strings.Contains(help, "\n  man ") {
		t.Errorf("man is not listed in --help:\n%s", help)
	}
	dir := t.TempDir()
	code, _, stderr := runCLI(t, "", "man", "--dir", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, page := range []string{"autosel-bot.1", "autosel-bot-check.1", "autosel-bot-test.1", "autosel-bot-version.1", "autosel-bot-watch.1"} {
		b, err := os.ReadFile(filepath.Join(dir, page))
		if err != nil || !bytes.Contains(b, []byte(".TH \"AUTOSEL-BOT\" \"1\"")) {
			t.Errorf("%s: %v %.80q", page, err, b)
		}
		for _, sec := range []string{".SH EXIT STATUS\n", ".SH ENVIRONMENT\n", ".SH FILES\n", ".SH SEE ALSO\n"} {
			if !bytes.Contains(b, []byte(sec)) {
				t.Errorf("%s: no %q", page, sec)
			}
		}
	}
	check, _ := os.ReadFile(filepath.Join(dir, "autosel-bot-check.1"))
	if !bytes.Contains(check, []byte("at least one finding at or above --fail-on")) {
		t.Error("autosel-bot-check.1: the exit status of findings is not described")
	}
	b, err := os.ReadFile(filepath.Join(dir, "autosel-bot.yaml.5"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{".TH \"AUTOSEL-BOT.YAML\" \"5\"", "\n  fail_on: ", "\nreply:\n", "/etc/autosel-bot/config.yaml"} {
		if !bytes.Contains(b, []byte(want)) {
			t.Errorf("autosel-bot.yaml.5: no %q", want)
		}
	}
}
