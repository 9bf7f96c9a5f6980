package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDefaultConfigFile: without --config, the file under
// $XDG_CONFIG_HOME/autosel-bot is read (and -v says so); --config wins
// over it.
func TestDefaultConfigFile(t *testing.T) {
	xdg := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", xdg)
	user := filepath.Join(xdg, "autosel-bot", "config.yaml")
	if err := os.MkdirAll(filepath.Dir(user), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(user, []byte("check:\n  format: json\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	explicit := writeFile(t, "explicit.yaml", "check:\n  format: terse\n")
	patch := writeFile(t, "0001-docs.patch", benign)
	tests := []struct {
		name     string
		args     []string
		out      string // output begins with
		stderr   string // "" = not checked
		noStderr string
	}{
		{"default", []string{"check", patch}, `{"schema":`, "", ""},
		{"verbose", []string{"-v", "check", patch}, `{"schema":`, "file=" + user, ""},
		{"explicit", []string{"-v", "--config", explicit, "check", patch}, "", "file=" + explicit, user},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, out, stderr := runCLI(t, "", tc.args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if !strings.HasPrefix(out, tc.out) {
				t.Errorf("output does not begin with %q:\n%s", tc.out, out)
			}
			if tc.stderr != "" && !strings.Contains(stderr, tc.stderr) {
				t.Errorf("stderr lacks %q:\n%s", tc.stderr, stderr)
			}
			if tc.noStderr != "" && strings.Contains(stderr, tc.noStderr) {
				t.Errorf("stderr names %q although --config was given:\n%s", tc.noStderr, stderr)
			}
		})
	}
	// A bad default file is an error naming it, never skipped.
	if err := os.WriteFile(user, []byte("check:\n  formatt: json\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCLI(t, "", "check", patch)
	if code != 2 || !strings.Contains(stderr, user) {
		t.Errorf("bad default file: exit %d, stderr %q; want 2 naming %s", code, stderr, user)
	}
}
