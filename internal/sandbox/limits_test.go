package sandbox

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
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

// TestProcessLimitAsRoot (issue 37 point 7): the kernel does not apply
// RLIMIT_NPROC to root, so a build run as root started all 300 processes
// of a fork bomb under a limit of 100. Builds run as the unprivileged
// build user, without capabilities, and the limit holds.
func TestProcessLimitAsRoot(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("the root exemption matters only when the bot runs as root")
	}
	s, dir, helper := needBwrap(t, Options{Processes: 100})
	out, err := runHelper(context.Background(), s, dir, helper, nil, "forkbomb", "300")
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	m := regexp.MustCompile(`started (\d+)`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no count: %s", out)
	}
	if n, _ := strconv.Atoi(m[1]); n >= 100 {
		t.Fatalf("%d of 300 processes started under a limit of 100", n)
	}
	out, err = runHelper(context.Background(), s, dir, helper, nil, "cat", "/proc/self/status")
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	for _, re := range []string{`(?m)^Uid:\s+65534\s+65534\s+65534\s+65534$`, `(?m)^Gid:\s+65534\s`, `(?m)^Groups:\s*$`,
		`(?m)^CapEff:\s+0+$`, `(?m)^CapPrm:\s+0+$`, `(?m)^CapInh:\s+0+$`, `(?m)^CapAmb:\s+0+$`, `(?m)^NoNewPrivs:\s+1$`} {
		if !regexp.MustCompile(re).MatchString(out) {
			t.Errorf("%s not in the build's status:\n%s", re, out)
		}
	}
}

// TestBuildUserOwnsWritable: what the build user may write is handed to
// it (root-owned files the bot left in a build dir included), and
// Reclaim gives a directory back to the bot.
func TestBuildUserOwnsWritable(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("builds run as the bot's user when it is not root")
	}
	s, dir, helper := needBwrap(t, Options{})
	sub := filepath.Join(dir, "sub")
	os.MkdirAll(sub, 0o700)
	old := filepath.Join(sub, "old")
	os.WriteFile(old, []byte("x"), 0o600)
	out, err := runHelper(context.Background(), s, dir, helper, nil, "write", old, filepath.Join(sub, "new"))
	if err != nil || strings.Contains(out, "FAIL") {
		t.Fatalf("%v: %s", err, out)
	}
	owner := func(p string) uint32 {
		fi, err := os.Lstat(p)
		if err != nil {
			t.Fatal(err)
		}
		return fi.Sys().(*syscall.Stat_t).Uid
	}
	if u := owner(filepath.Join(sub, "new")); u != 65534 {
		t.Errorf("a file the build wrote is uid %d's", u)
	}
	if err := s.Reclaim(dir); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{dir, sub, old, filepath.Join(sub, "new")} {
		if u := owner(p); u != 0 {
			t.Errorf("%s still uid %d's after Reclaim", p, u)
		}
	}
}

func TestResolveBuildUser(t *testing.T) {
	for _, tt := range []struct {
		name    string
		euid    int
		want    *identity
		wantErr bool
	}{
		{"", 1000, nil, false},
		{"", 0, &identity{uid: 65534, gid: 65534}, false},
		{"nobody", 0, &identity{uid: 65534, gid: 65534}, false},
		{"4000:4001", 0, &identity{uid: 4000, gid: 4001}, false},
		{"root", 0, nil, true},
		{"0", 0, nil, true},
		{"4000:0", 0, nil, true},
		{"no-such-user-autosel", 0, nil, true},
		{"x:1", 0, nil, true},
	} {
		got, err := resolveBuildUser(tt.name, tt.euid)
		if got != nil && (!strings.HasPrefix(got.setpriv, "/usr/") || !strings.HasPrefix(got.unshare, "/usr/")) {
			t.Errorf("resolveBuildUser(%q): tools %q %q", tt.name, got.setpriv, got.unshare)
		}
		if got != nil {
			got.setpriv, got.unshare = "", ""
		}
		if (err != nil) != tt.wantErr || (got == nil) != (tt.want == nil) || got != nil && *got != *tt.want {
			t.Errorf("resolveBuildUser(%q, %d) = %v, %v; want %v", tt.name, tt.euid, got, err, tt.want)
		}
	}
}

// TestMountAt: a throwaway copy mounted at the original's path takes the
// build's writes; the original, on the host, is not even visible.
func TestMountAt(t *testing.T) {
	s, dir, helper := needBwrap(t, Options{})
	orig, copied := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(orig, "fixdep"), []byte("genuine"), 0o644)
	os.WriteFile(filepath.Join(copied, "fixdep"), []byte("copy"), 0o644)
	var out strings.Builder
	err := s.Run(context.Background(), Spec{
		Args: []string{helper, "-test.run=^TestHelperProcess$", "--", "cat", filepath.Join(orig, "fixdep")},
		Dir:  dir, Writable: []string{dir}, Mounts: []Mount{{Host: copied, At: orig}}, Stdout: &out, Stderr: &out,
	})
	if err != nil || out.String() != "copy" {
		t.Fatalf("read through the mount: %v %q", err, out.String())
	}
	out.Reset()
	err = s.Run(context.Background(), Spec{
		Args: []string{helper, "-test.run=^TestHelperProcess$", "--", "write", filepath.Join(orig, "fixdep"), filepath.Join(orig, "planted")},
		Dir:  dir, Writable: []string{dir}, Mounts: []Mount{{Host: copied, At: orig}}, Stdout: &out, Stderr: &out,
	})
	if err != nil || strings.Contains(out.String(), "FAIL") {
		t.Fatalf("write through the mount: %v %s", err, out.String())
	}
	if b, _ := os.ReadFile(filepath.Join(orig, "fixdep")); string(b) != "genuine" {
		t.Errorf("the original changed: %q", b)
	}
	if _, err := os.Stat(filepath.Join(orig, "planted")); err == nil {
		t.Error("a file appeared in the original")
	}
	if b, _ := os.ReadFile(filepath.Join(copied, "planted")); string(b) != "marker\n" {
		t.Errorf("the copy did not take the write: %q", b)
	}
	// Unsandboxed, a mount cannot be honoured: refused.
	u := New(Options{Bwrap: "/nonexistent/bwrap", AllowUnsandboxed: true}, nil)
	if err := u.Run(context.Background(), Spec{Args: []string{"true"}, Dir: dir, Mounts: []Mount{{Host: copied, At: orig}}}); err == nil {
		t.Error("unsandboxed run with a mount accepted")
	}
}

// TestProcessBudgetPerBuild: each build has its own process budget. A
// build holding 80 processes under a limit of 100 does not stop a
// concurrent build (same build user) from starting 50: the kernel counts
// RLIMIT_NPROC in the build's own user namespace first. With one budget
// per user, the second build got about 20.
func TestProcessBudgetPerBuild(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("builds run as the bot's user when it is not root")
	}
	s, dir, helper := needBwrap(t, Options{Processes: 100})
	if !s.userns {
		t.Skip("no unprivileged user namespaces: builds share the budget")
	}
	started, release := filepath.Join(dir, "started"), filepath.Join(dir, "release")
	done := make(chan string, 1)
	go func() {
		out, err := runHelper(context.Background(), s, dir, helper, nil, "hold", "80", started, release)
		done <- fmt.Sprint(out, err)
	}()
	defer func() {
		os.WriteFile(release, nil, 0o644)
		t.Logf("holder: %s", <-done)
	}()
	for i := 0; ; i++ {
		if _, err := os.Stat(started); err == nil {
			break
		}
		if i == 600 {
			t.Fatal("the holding build never started")
		}
		time.Sleep(50 * time.Millisecond)
	}
	out, err := runHelper(context.Background(), s, dir, helper, nil, "forkbomb", "50")
	if err != nil || !strings.Contains(out, "started 50\n") {
		t.Fatalf("a concurrent build got less than its own budget: %v: %s", err, out)
	}
}
