package config

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// TestDefaultPaths: the user file under XDG_CONFIG_HOME (~/.config when
// unset), then the system file.
func TestDefaultPaths(t *testing.T) {
	tests := []struct {
		xdg, home string
		want      []string
	}{
		{"/x/conf", "/home/u", []string{"/x/conf/autosel-bot/config.yaml", SystemFile}},
		{"", "/home/u", []string{"/home/u/.config/autosel-bot/config.yaml", SystemFile}},
		{"relative", "/home/u", []string{"/home/u/.config/autosel-bot/config.yaml", SystemFile}},
	}
	for _, tc := range tests {
		t.Setenv("XDG_CONFIG_HOME", tc.xdg)
		t.Setenv("HOME", tc.home)
		if got := DefaultPaths(); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("XDG_CONFIG_HOME=%q HOME=%q: %q, want %q", tc.xdg, tc.home, got, tc.want)
		}
	}
}

// TestFindDefault: the first file that exists wins; none is "".
func TestFindDefault(t *testing.T) {
	dir := t.TempDir()
	user := filepath.Join(dir, "user", "config.yaml")
	system := filepath.Join(dir, "etc", "config.yaml")
	missing := filepath.Join(dir, "missing", "config.yaml")
	for _, p := range []string{user, system} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("check:\n  format: json\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		paths []string
		want  string
	}{
		{[]string{user, system}, user},
		{[]string{missing, system}, system},
		{[]string{missing}, ""},
		{nil, ""},
	}
	for _, tc := range tests {
		got, err := FindDefault(tc.paths)
		if err != nil || got != tc.want {
			t.Errorf("FindDefault(%q) = %q, %v; want %q", tc.paths, got, err, tc.want)
		}
	}
	// A path under a file cannot be examined: an error, not skipped.
	if _, err := FindDefault([]string{filepath.Join(user, "x")}); err == nil {
		t.Error("a path under a regular file was skipped silently")
	}
}
