package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestCheckTersePatchPrefix: --format terse prefixes every line with the
// patch (the file that held it alone, else its <Message-ID>), and
// --gcc-severities writes gcc's diagnostics (location first, warning: for
// a risk) with the patch at the end.
func TestCheckTersePatchPrefix(t *testing.T) {
	data, err := os.ReadFile(seed000)
	if err != nil {
		t.Fatal(err)
	}
	// The patch mail alone, as git format-patch writes it to a file.
	patch, _, _ := strings.Cut(string(data), "\nFrom avagin@gmail.com ")
	file := filepath.Join(t.TempDir(), "0001-pipe-exclusive.patch")
	if err := os.WriteFile(file, []byte(patch), 0o644); err != nil {
		t.Fatal(err)
	}
	const mid = "<20200214154854.6746-542-sashal@kernel.org>"
	tests := []struct {
		name string
		args []string
		line *regexp.Regexp // every line
	}{
		{"mbox", []string{seed000}, regexp.MustCompile(`^` + regexp.QuoteMeta(mid) + `: [a-z_/]+\.[ch]:\d+: (risk|note): wakeup: .* \[[0-9a-f]{12}\]$`)},
		{"file", []string{file}, regexp.MustCompile(`^` + regexp.QuoteMeta(file) + `: [a-z_/]+\.[ch]:\d+: (risk|note): wakeup: .* \[[0-9a-f]{12}\]$`)},
		{"gcc", []string{"--gcc-severities", file}, regexp.MustCompile(`^[a-z_/]+\.[ch]:\d+: (warning|note): wakeup: .* \[[0-9a-f]{12}\] \[` + regexp.QuoteMeta(file) + `\]$`)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, out, stderr := runCLI(t, "", append([]string{"check", "--format", "terse", "--fail-on", "risk"}, tc.args...)...)
			if code != 1 {
				t.Fatalf("exit %d, want 1 (risks): %s", code, stderr)
			}
			lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
			if len(lines) < 4 {
				t.Fatalf("%d lines, want the 4 risks and the notes:\n%s", len(lines), out)
			}
			for _, l := range lines {
				if !tc.line.MatchString(l) {
					t.Errorf("line %q does not match %s", l, tc.line)
				}
			}
			if sev := map[bool]string{false: ": risk: ", true: ": warning: "}[tc.name == "gcc"]; !strings.Contains(out, sev) {
				t.Errorf("no %q line:\n%s", sev, out)
			}
		})
	}
}
