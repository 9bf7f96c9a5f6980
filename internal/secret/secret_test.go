package secret

import (
	"os"
	"path/filepath"
	"testing"
)

func TestRead(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "pass")
	if err := os.WriteFile(f, []byte("s3cret \r\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		value, file, want string
		wantErr           bool
	}{
		{"inline", "", "inline", false},
		{"inline", f, "s3cret ", false},
		{"", filepath.Join(dir, "missing"), "", true},
	} {
		got, err := Read(tt.value, tt.file)
		if got != tt.want || (err != nil) != tt.wantErr {
			t.Errorf("Read(%q, %q) = %q, %v", tt.value, tt.file, got, err)
		}
	}
}

// TestToken: the file wins over the environment variable; both trimmed;
// neither set is anonymous ("").
func TestToken(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "tok")
	if err := os.WriteFile(f, []byte(" filetok\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("AUTOSEL_TEST_TOKEN", " envtok ")
	for _, tt := range []struct {
		env, file, want string
		wantErr         bool
	}{
		{"AUTOSEL_TEST_TOKEN", f, "filetok", false},
		{"AUTOSEL_TEST_TOKEN", "", "envtok", false},
		{"", "", "", false},
		{"", filepath.Join(dir, "missing"), "", true},
	} {
		got, err := Token(tt.env, tt.file, "test token")
		if got != tt.want || (err != nil) != tt.wantErr {
			t.Errorf("Token(%q, %q) = %q, %v", tt.env, tt.file, got, err)
		}
	}
}
