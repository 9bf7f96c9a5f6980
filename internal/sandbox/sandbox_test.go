package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strconv"

	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestHelperProcess is the program the tests run inside the sandbox (a
// copy of the test binary): `-test.run=^TestHelperProcess$ -- CMD ARGS`.
func TestHelperProcess(t *testing.T) {
	args := os.Args
	i := 0
	for i < len(args) && args[i] != "--" {
		i++
	}
	if i >= len(args)-1 {
		return // an ordinary test run
	}
	args = args[i+1:]
	switch args[0] {
	case "connect":
		c, err := net.DialTimeout("tcp", args[1], 2*time.Second)
		if err != nil {
			fmt.Println("connect:", err)
			os.Exit(3)
		}
		c.Close()
		fmt.Println("connected")
	case "write":
		for _, p := range args[1:] {
			if err := os.WriteFile(p, []byte("marker\n"), 0o644); err != nil {
				fmt.Println("FAIL", p, err)
			} else {
				fmt.Println("OK", p)
			}
		}
	case "cat":
		for _, p := range args[1:] {
			b, err := os.ReadFile(p)
			if err != nil {
				fmt.Println("FAIL", p, err)
				continue
			}
			os.Stdout.Write(b)
		}
	case "env":
		for _, kv := range os.Environ() {
			fmt.Println(kv)
		}
	case "bigfile":
		f, err := os.Create(args[1])
		if err != nil {
			os.Exit(4)
		}
		_, err = f.Write(make([]byte, 2<<20))
		fmt.Println("write:", err)
		os.Exit(5)
	case "alloc": // touch N MiB of memory
		n, _ := strconv.Atoi(args[1])
		b := make([]byte, n<<20)
		for i := 0; i < len(b); i += 4096 {
			b[i] = 1
		}
		fmt.Println("allocated", len(b))
	case "filltmp": // write N MiB to /tmp/fill
		n, _ := strconv.Atoi(args[1])
		f, err := os.Create("/tmp/fill")
		if err != nil {
			fmt.Println("create:", err)
			os.Exit(4)
		}
		for i := 0; i < n; i++ {
			if _, err := f.Write(make([]byte, 1<<20)); err != nil {
				fmt.Println("write:", err)
				os.Exit(5)
			}
		}
		fmt.Println("wrote", n)
	case "forkbomb": // start N sleeping children, say how many started
		n, _ := strconv.Atoi(args[1])
		var kids []*exec.Cmd
		for i := 0; i < n; i++ {
			c := exec.Command("sleep", "60")
			if c.Start() == nil {
				kids = append(kids, c)
			}
		}
		fmt.Println("started", len(kids))
		for _, c := range kids {
			c.Process.Kill()
			c.Wait()
		}
	case "hold": // start N sleeping children, touch a file, wait for another
		n, _ := strconv.Atoi(args[1])
		var kids []*exec.Cmd
		for i := 0; i < n; i++ {
			c := exec.Command("sleep", "60")
			if c.Start() == nil {
				kids = append(kids, c)
			}
		}
		fmt.Println("holding", len(kids))
		os.WriteFile(args[2], nil, 0o644)
		for i := 0; i < 600; i++ {
			if _, err := os.Stat(args[3]); err == nil {
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
		for _, c := range kids {
			c.Process.Kill()
			c.Wait()
		}
	case "filldir": // write 1 MiB files into dir N times (0: forever), 50 ms apart
		n, _ := strconv.Atoi(args[2])
		for i := 0; n == 0 || i < n; i++ {
			if err := os.WriteFile(filepath.Join(args[1], fmt.Sprintf("fill%d", i)), bytes.Repeat([]byte{1}, 1<<20), 0o644); err != nil {
				fmt.Println("write:", err)
				os.Exit(5)
			}
			time.Sleep(50 * time.Millisecond)
		}
		fmt.Println("filled", n)
	case "spin":
		//lint:ignore SA5002 it burns CPU on purpose (the CPU-time limit test)
		for {
		}
	case "tick":
		for n := 0; ; n++ {
			os.WriteFile(args[1], []byte(fmt.Sprint(n)), 0o644)
			time.Sleep(20 * time.Millisecond)
		}
	}
	os.Exit(0)
}

// needBwrap returns a sandbox with opts and a writable directory holding
// a copy of the test binary.
func needBwrap(t *testing.T, opts Options) (*Sandbox, string, string) {
	t.Helper()
	s := New(opts, nil)
	if mode, err := s.Mode(context.Background()); mode != "bwrap" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("bwrap unusable: %v", err)
		}
		t.Skipf("bwrap unusable: %v", err)
	}
	dir := t.TempDir()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	helper := filepath.Join(dir, "helper")
	if err := os.WriteFile(helper, b, 0o755); err != nil {
		t.Fatal(err)
	}
	return s, dir, helper
}

func runHelper(ctx context.Context, s *Sandbox, dir, helper string, env []string, args ...string) (string, error) {
	var out bytes.Buffer
	err := s.Run(ctx, Spec{
		Args:     append([]string{helper, "-test.run=^TestHelperProcess$", "--"}, args...),
		Dir:      dir,
		Writable: []string{dir},
		Home:     dir,
		Env:      env,
		Stdout:   &out, Stderr: &out,
	})
	return out.String(), err
}

func TestNetworkUnreachable(t *testing.T) {
	s, dir, helper := needBwrap(t, Options{})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	// The same program reaches the listener outside the sandbox...
	if out, err := exec.Command(helper, "-test.run=^TestHelperProcess$", "--", "connect", ln.Addr().String()).CombinedOutput(); err != nil {
		t.Fatalf("outside the sandbox: %v: %s", err, out)
	}
	// ...and nothing inside it (its loopback is another one).
	out, err := runHelper(context.Background(), s, dir, helper, nil, "connect", ln.Addr().String())
	if err == nil || strings.Contains(out, "connected") {
		t.Fatalf("the sandbox reached the host network: %v: %s", err, out)
	}
}

func TestRootReadOnly(t *testing.T) {
	s, dir, helper := needBwrap(t, Options{})
	outside := t.TempDir() // exists on the host, not in the sandbox
	hostTmp := "/tmp/autosel-sandbox-marker-" + filepath.Base(dir)
	gitFile := filepath.Join(dir, ".git")
	if err := os.WriteFile(gitFile, []byte("gitdir: /var/tmp/repo/.git/worktrees/x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := runHelper(context.Background(), s, dir, helper, nil, "write",
		"/marker", "/usr/marker", "/etc/marker", filepath.Join(outside, "marker"), hostTmp,
		filepath.Join(dir, "marker"), gitFile)
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	for _, p := range []string{"/marker", "/usr/marker", "/etc/marker", filepath.Join(outside, "marker")} {
		if !strings.Contains(out, "FAIL "+p+" ") {
			t.Errorf("%s writable in the sandbox: %s", p, out)
		}
		if _, err := os.Stat(p); err == nil {
			t.Errorf("marker %s appeared on the host", p)
		}
	}
	if !strings.Contains(out, "OK "+hostTmp) {
		t.Errorf("private /tmp not writable: %s", out)
	}
	if _, err := os.Stat(hostTmp); err == nil {
		os.Remove(hostTmp)
		t.Errorf("/tmp is the host's: %s appeared", hostTmp)
	}
	if _, err := os.Stat(filepath.Join(dir, "marker")); err != nil {
		t.Errorf("writable dir not writable: %s", out)
	}
	if g, _ := os.ReadFile(gitFile); !strings.HasPrefix(string(g), "gitdir: /var/tmp/repo") || !strings.Contains(out, "FAIL "+gitFile) {
		t.Errorf("the worktree's .git was writable: %q %s", g, out)
	}
}

func TestMinimalEtc(t *testing.T) {
	s, dir, helper := needBwrap(t, Options{})
	out, err := runHelper(context.Background(), s, dir, helper, nil, "cat", "/etc/passwd", "/etc/shadow", "/etc/hostname", "/root/.bashrc")
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	users := 0
	for _, l := range strings.Split(out, "\n") {
		if strings.Count(l, ":") == 6 {
			users++
		}
	}
	if users != 2 || !strings.Contains(out, "root:x:0:0:") {
		t.Errorf("/etc/passwd is not the minimal one: %s", out)
	}
	for _, p := range []string{"/etc/shadow", "/etc/hostname", "/root/.bashrc"} {
		if !strings.Contains(out, "FAIL "+p) {
			t.Errorf("%s readable in the sandbox: %s", p, out)
		}
	}
}

func TestEnvAllowList(t *testing.T) {
	s, dir, helper := needBwrap(t, Options{PassEnv: []string{"MY_TOOLCHAIN", "AUTOSEL_BOT_WATCH_SMTP_PASSWORD"}})
	host := map[string]string{
		"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "MY_TOOLCHAIN": "x",
		"AUTOSEL_BOT_WATCH_SMTP_PASSWORD": "hunter2", "SSH_AUTH_SOCK": "/run/agent", "GITHUB_TOKEN": "ghp_secret",
	}
	s.lookup = func(n string) (string, bool) { v, ok := host[n]; return v, ok }
	out, err := runHelper(context.Background(), s, dir, helper,
		[]string{"CCACHE_DIR=/c", "KBUILD_BUILD_USER=autosel", "AUTOSEL_SRC=/src", "AUTOSEL_BOT_RUNNER_TREE=/t", "IMAP_PASSWORD=pw", "LC_ALL=C"},
		"env")
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	for _, want := range []string{"PATH=/usr/bin:/bin", "LANG=C.UTF-8", "MY_TOOLCHAIN=x", "CCACHE_DIR=/c",
		"KBUILD_BUILD_USER=autosel", "AUTOSEL_SRC=/src", "LC_ALL=C", "HOME=" + dir} {
		if !strings.Contains(out, want+"\n") {
			t.Errorf("missing %s in %s", want, out)
		}
	}
	for _, bad := range []string{"hunter2", "SSH_AUTH_SOCK", "ghp_secret", "AUTOSEL_BOT_", "IMAP_PASSWORD"} {
		if strings.Contains(out, bad) {
			t.Errorf("%s leaked into the build: %s", bad, out)
		}
	}
}

func TestRlimits(t *testing.T) {
	s, dir, helper := needBwrap(t, Options{CPUTime: time.Second, FileSize: 1 << 20, Processes: 3000})
	out, err := runHelper(context.Background(), s, dir, helper, nil, "cat", "/proc/self/limits")
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	for _, re := range []string{`Max processes\s+3000\s+3000`, `Max file size\s+1048576\s+1048576`, `Max cpu time\s+1\s+1`, `Max core file size\s+0\s+0`} {
		if !matches(re, out) {
			t.Errorf("limit %q not in\n%s", re, out)
		}
	}
	// File size: the write stops at 1 MiB.
	big := filepath.Join(dir, "big")
	out, err = runHelper(context.Background(), s, dir, helper, nil, "bigfile", big)
	if err == nil {
		t.Fatalf("2 MiB write succeeded: %s", out)
	}
	if fi, err := os.Stat(big); err != nil || fi.Size() > 1<<20 {
		t.Fatalf("file size limit not enforced: %v %v", fi, err)
	}
	// CPU time: a spinning process is killed after ~1 s of CPU.
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err = runHelper(ctx, s, dir, helper, nil, "spin")
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ctx.Err() != nil {
		t.Fatalf("spin: %v after %v", err, time.Since(start))
	}
}

func TestCancelKillsEverything(t *testing.T) {
	s, dir, helper := needBwrap(t, Options{})
	tick := filepath.Join(dir, "tick")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out bytes.Buffer
	done := make(chan error, 1)
	go func() {
		done <- s.Run(ctx, Spec{
			// A background grandchild in its own session: only the
			// namespace teardown stops it.
			Args:     []string{"sh", "-c", "setsid " + helper + " -test.run=^TestHelperProcess$ -- tick " + tick + " & wait"},
			Dir:      dir,
			Writable: []string{dir},
			Stdout:   &out, Stderr: &out,
		})
	}()
	for i := 0; ; i++ {
		if _, err := os.Stat(tick); err == nil {
			break
		}
		if i == 600 {
			t.Fatalf("the helper never ticked: %s", out.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("want a cancellation error, got %v: %s", err, out.String())
		}
	case <-time.After(15 * time.Second):
		t.Fatal("Run did not return after cancel")
	}
	time.Sleep(300 * time.Millisecond)
	a, _ := os.ReadFile(tick)
	time.Sleep(500 * time.Millisecond)
	b, _ := os.ReadFile(tick)
	if string(a) != string(b) {
		t.Fatalf("sandboxed process still running after cancel (%q -> %q)", a, b)
	}
}

func TestRefusedWithoutBwrap(t *testing.T) {
	dir := t.TempDir()
	s := New(Options{Bwrap: "/nonexistent/bwrap"}, nil)
	err := s.Run(context.Background(), Spec{Args: []string{"touch", "marker"}, Dir: dir, Writable: []string{dir}})
	if !errors.Is(err, ErrUnavailable) {
		t.Fatalf("got %v, want ErrUnavailable", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "marker")); err == nil {
		t.Fatal("refused command ran")
	}
	// Allowed explicitly: it runs, still with the environment allow-list.
	s = New(Options{Bwrap: "/nonexistent/bwrap", AllowUnsandboxed: true}, nil)
	s.lookup = func(n string) (string, bool) {
		if n == "PATH" {
			return os.Getenv("PATH"), true
		}
		return "", false
	}
	var out bytes.Buffer
	err = s.Run(context.Background(), Spec{Args: []string{"sh", "-c", "env; touch marker"}, Dir: dir, Writable: []string{dir},
		Env: []string{"AUTOSEL_BOT_WATCH_SMTP_PASSWORD=hunter2"}, Stdout: &out, Stderr: &out})
	if err != nil {
		t.Fatalf("%v: %s", err, out.String())
	}
	if strings.Contains(out.String(), "hunter2") {
		t.Fatalf("secret passed to an unsandboxed build: %s", out.String())
	}
	if _, err := os.Stat(filepath.Join(dir, "marker")); err != nil {
		t.Fatal("allowed command did not run")
	}
}

func TestBwrapArgs(t *testing.T) {
	work := t.TempDir()
	wt, build, cc := filepath.Join(work, "src"), filepath.Join(work, "build"), filepath.Join(work, "build", "ccache")
	for _, d := range []string{wt, build, cc} {
		os.MkdirAll(d, 0o755)
	}
	args, err := bwrapArgs(Options{}.withDefaults(), Spec{Dir: wt, Writable: []string{cc, wt, build}}, 3, false)
	if err != nil {
		t.Fatal(err)
	}
	s := " " + strings.Join(args, " ") + " "
	for _, want := range []string{" --unshare-net ", " --unshare-pid ", " --cap-drop ALL ", " --tmpfs / ", " --remount-ro / ",
		" --tmpfs /tmp ", " --ro-bind /usr /usr ", " --ro-bind-data 3 /etc/passwd ", " --chdir " + wt + " -- "} {
		if !strings.Contains(s, want) {
			t.Errorf("missing %q in %s", want, s)
		}
	}
	for _, bad := range []string{" --bind / ", " --ro-bind / ", " --ro-bind /etc /etc ", " --share-net "} {
		if strings.Contains(s, bad) {
			t.Errorf("unexpected %q in %s", bad, s)
		}
	}
	if strings.Index(s, "--bind "+build+" ") > strings.Index(s, "--bind "+cc+" ") {
		t.Errorf("nested bind before its parent: %s", s)
	}
	if _, err := bwrapArgs(Options{}, Spec{Dir: wt, Writable: []string{filepath.Join(work, "missing")}}, 3, false); err == nil {
		t.Error("missing writable dir accepted")
	}
}

func TestBuildEnv(t *testing.T) {
	lookup := func(n string) (string, bool) {
		return map[string]string{"PATH": "/bin", "AUTOSEL_BOT_X": "y", "HOME": "/root"}[n], n == "PATH" || n == "AUTOSEL_BOT_X" || n == "HOME"
	}
	env, dropped := buildEnv(lookup, []string{"AUTOSEL_BOT_X"}, []string{"ARCH=x86_64", "SECRET=1", "HOME=/root", "noequals"}, "/b")
	got := strings.Join(env, " ")
	if got != "ARCH=x86_64 HOME=/b PATH=/bin" {
		t.Errorf("env %q", got)
	}
	if strings.Join(dropped, " ") != "SECRET HOME" {
		t.Errorf("dropped %q", dropped)
	}
}

func matches(re, s string) bool {
	return regexp.MustCompile(re).MatchString(s)
}

// BenchmarkStartup is the fixed cost the sandbox adds to one command
// (a build runs one make per step): `true` in bwrap vs. unsandboxed.
func BenchmarkStartup(b *testing.B) {
	dir := b.TempDir()
	for _, mode := range []struct {
		name string
		opts Options
	}{
		{"bwrap", Options{}},
		{"unsandboxed", Options{Bwrap: "/nonexistent/bwrap", AllowUnsandboxed: true}},
	} {
		b.Run(mode.name, func(b *testing.B) {
			s := New(mode.opts, nil)
			if m, err := s.Mode(context.Background()); mode.name == "bwrap" && m != "bwrap" {
				b.Skipf("bwrap unusable: %v", err)
			}
			for i := 0; i < b.N; i++ {
				if err := s.Run(context.Background(), Spec{Args: []string{"true"}, Dir: dir, Writable: []string{dir}}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestBwrapWithoutNamespaces: a bwrap that cannot create namespaces (a
// locked-down container) is found by the probe: builds are refused, or
// run unsandboxed only when the operator allowed it.
func TestBwrapWithoutNamespaces(t *testing.T) {
	dir := t.TempDir()
	fake := filepath.Join(dir, "bwrap")
	os.WriteFile(fake, []byte("#!/bin/sh\necho 'bwrap: No permissions to create new namespace' >&2\nexit 1\n"), 0o755)
	mode, err := New(Options{Bwrap: fake}, nil).Mode(context.Background())
	if mode != "refused" || !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "No permissions") {
		t.Fatalf("mode %q err %v", mode, err)
	}
	if mode, err := New(Options{Bwrap: fake, AllowUnsandboxed: true}, nil).Mode(context.Background()); mode != "unsandboxed" || err != nil {
		t.Fatalf("allowed: mode %q err %v", mode, err)
	}
}
