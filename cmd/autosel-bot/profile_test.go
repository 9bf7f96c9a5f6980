package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/autosel-bot/autosel-bot/config"
)

// TestProfiles: --cpuprofile and --memprofile write pprof profiles (gzip),
// also for a command that fails.
func TestProfiles(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		fail bool
	}{
		{"ok", []string{"rules"}, false},
		{"failing command", []string{"check", "/nonexistent/x.patch"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			cpu, mem := filepath.Join(dir, "cpu.prof"), filepath.Join(dir, "mem.prof")
			v, err := config.New()
			if err != nil {
				t.Fatal(err)
			}
			a := &app{v: v}
			root := newRoot(a)
			root.SetArgs(append([]string{"--cpuprofile", cpu, "--memprofile", mem}, tc.args...))
			root.SetOut(&bytes.Buffer{})
			root.SetErr(&bytes.Buffer{})
			if err := execute(a, root); (err != nil) != tc.fail {
				t.Fatalf("execute: %v", err)
			}
			for _, f := range []string{cpu, mem} {
				b, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				if len(b) < 2 || b[0] != 0x1f || b[1] != 0x8b {
					t.Errorf("%s is not a gzipped profile (%d bytes)", filepath.Base(f), len(b))
				}
			}
		})
	}
}
