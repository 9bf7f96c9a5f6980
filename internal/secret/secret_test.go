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
