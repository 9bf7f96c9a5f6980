package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestReplayExitCodes checks that unreadable inputs are reported and
// skipped, and that replay exits 2 only when nothing could be read.
func TestReplayExitCodes(t *testing.T) {
	good := writeFile(t, "benign.patch", benign)
	tests := []struct {
		name   string
		args   []string
		code   int
		stderr string
		stdout string
	}{
		{"missing path among good ones", []string{"/nonexistent/a.mbox", good}, 0, "/nonexistent/a.mbox: stat", "1 messages read"},
		{"a device among good ones", []string{"/dev/zero", good}, 0, "/dev/zero: not a regular file; skipped (character device)", "1 messages read"},
		{"nothing readable", []string{"/nonexistent/a.mbox", "/dev/null"}, 2, "nothing could be read (2 input errors)", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			args := append([]string{"replay", "--store", filepath.Join(dir, "s.db"), "--outbox", filepath.Join(dir, "outbox")}, tc.args...)
			code, out, stderr := runCLI(t, "", args...)
			if code != tc.code {
				t.Errorf("exit %d, want %d\nstderr: %s", code, tc.code, stderr)
			}
			if !strings.Contains(stderr, tc.stderr) {
				t.Errorf("stderr %q lacks %q", stderr, tc.stderr)
			}
			if !strings.Contains(out, tc.stdout) {
				t.Errorf("stdout lacks %q:\n%s", tc.stdout, out)
			}
		})
	}
}
