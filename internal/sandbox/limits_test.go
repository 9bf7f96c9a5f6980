package sandbox

import (
	"context"
	"strings"
	"testing"
)

// TestMemoryAndTmpBounds (issue 37 point 7): a build process cannot take
// more address space than Options.Memory, nor fill /tmp past
// Options.TmpSize (the tmpfs defaulted to half of the host's RAM).
func TestMemoryAndTmpBounds(t *testing.T) {
	s, dir, helper := needBwrap(t, Options{Memory: 3 << 30, TmpSize: 16 << 20})
	tests := []struct {
		name    string
		args    []string
		wantErr bool
		want    string
	}{
		{"small allocation", []string{"alloc", "64"}, false, "allocated"},
		{"allocation over the limit", []string{"alloc", "4096"}, true, ""},
		{"small /tmp file", []string{"filltmp", "4"}, false, "wrote 4"},
		{"/tmp over its size", []string{"filltmp", "64"}, true, "no space left"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := runHelper(context.Background(), s, dir, helper, nil, tt.args...)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, want error %v: %s", err, tt.wantErr, out)
			}
			if !strings.Contains(out, tt.want) {
				t.Fatalf("output lacks %q: %s", tt.want, out)
			}
		})
	}
	// The limit is on the command line bwrap's child runs under.
	out, err := runHelper(context.Background(), s, dir, helper, nil, "cat", "/proc/self/limits")
	if err != nil || !matches(`Max address space\s+3221225472\s+3221225472`, out) {
		t.Errorf("no address-space limit: %v\n%s", err, out)
	}
}
