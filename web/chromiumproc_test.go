package web

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// chromiumCommand is chromium with args in a process group of its own and
// a fresh profile directory: Chromium's helpers (renderer, GPU, crash
// handler) outlive a killed browser and keep writing to the profile, so a
// cancelled context kills the whole group, and the profile is removed only
// after the group has gone.
func chromiumCommand(ctx context.Context, t *testing.T, chromium string, args ...string) *exec.Cmd {
	t.Helper()
	profile, err := os.MkdirTemp("", "autosel-chromium-")
	if err != nil {
		t.Fatal(err)
	}
	args = append([]string{"--user-data-dir=" + profile, "--disable-breakpad", "--disable-crash-reporter"}, args...)
	cmd := exec.CommandContext(ctx, chromium, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return killGroup(cmd) }
	cmd.WaitDelay = 10 * time.Second
	t.Cleanup(func() {
		if cmd.Process != nil {
			killGroup(cmd)
		}
		if err := removeProfile(profile, 15*time.Second); err != nil {
			t.Logf("chromium profile: %v", err)
		}
	})
	return cmd
}

// killGroup kills the process group cmd leads.
func killGroup(cmd *exec.Cmd) error {
	err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	if errors.Is(err, syscall.ESRCH) {
		return os.ErrProcessDone
	}
	return err
}

// removeProfile removes dir, retrying while processes that have not yet
// died of their SIGKILL still create files in it.
func removeProfile(dir string, patience time.Duration) error {
	deadline := time.Now().Add(patience)
	for {
		err := os.RemoveAll(dir)
		if err == nil || time.Now().After(deadline) {
			return err
		}
		time.Sleep(200 * time.Millisecond)
	}
}
