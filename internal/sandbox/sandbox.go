// Package sandbox runs every command that compiles or runs patched
// sources (the runner's kernel builds, the stable stage's build commands)
// inside bubblewrap (bwrap): no network and private pid/ipc/uts
// namespaces, no capabilities, a read-only root made of /usr (and the
// merged-/usr links), a minimal /etc, a private size-bounded /tmp, and only
// the directories the caller names (a build dir, ccache dirs) writable. The
// environment is built from an allow-list, and CPU time, address space,
// file size and process count are bounded with rlimits (prlimit). When the
// bot runs as root, the build itself runs as an unprivileged build user
// (user.go), which owns the writable directories. Timeouts and
// cancellation come from the caller's context and kill the whole sandbox.
//
// Without a working bwrap, builds are refused unless the operator set
// sandbox.allow_unsandboxed (unsafe: the environment allow-list and the
// rlimits then are all that is left).
package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"
)

// ErrUnavailable is returned (wrapped) when the sandbox cannot run and
// unsandboxed builds are not allowed.
var ErrUnavailable = errors.New("build sandbox unavailable")

// Spec is one command to run in the sandbox.
type Spec struct {
	// Args is the command and its arguments (Args[0] is looked up in the
	// sandbox's PATH).
	Args []string
	// Dir is the working directory; it must be inside Writable or
	// ReadOnly.
	Dir string
	// Writable are the only host directories the command may change: the
	// worktree, its build directory, the ccache directory. They must exist.
	Writable []string
	// ReadOnly are extra host paths the command may read.
	ReadOnly []string
	// Mounts are writable host directories the command sees at another
	// path: a throwaway copy of a build dir at the original's path, so
	// that the absolute paths kbuild and tools/ recorded there hold. Only
	// in the sandbox: an unsandboxed Run with Mounts is refused.
	Mounts []Mount
	// Home is HOME (the build directory).
	Home string
	// Env are variables to set (KEY=VALUE); names outside the allow-list
	// are dropped (and logged).
	Env []string
	// Stdout and Stderr receive the command's output.
	Stdout, Stderr io.Writer
}

// Mount is a writable host directory (Host) seen at At in the sandbox.
type Mount struct {
	Host, At string
}

// Sandbox runs Specs. It is safe for concurrent use.
type Sandbox struct {
	opts   Options
	log    *slog.Logger
	lookup func(string) (string, bool)

	euid int // the bot's effective uid (0: builds run as the build user)
	// diskInterval is the shortest pause between two checks of a
	// build's disk use (diskWatch).
	diskInterval time.Duration
	// userns: the build user's processes get a user namespace of their
	// own, so RLIMIT_NPROC counts only the build's (set by the probe).
	userns bool

	mu       sync.Mutex
	probed   bool
	probeErr error // nil: bwrap works
	warned   bool

	userOnce sync.Once
	user     *identity // the build user; nil: the bot's own
	userErr  error
}

// New returns a sandbox for opts; log (may be nil) receives warnings.
func New(opts Options, log *slog.Logger) *Sandbox {
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return &Sandbox{opts: opts.withDefaults(), log: log, lookup: os.LookupEnv, euid: os.Geteuid(),
		diskInterval: 2 * time.Second}
}

// Mode says how builds run: "bwrap", "unsandboxed" (allowed by config) or
// "refused" (with the reason, wrapping ErrUnavailable). The first call
// probes bwrap; the verdict is kept.
func (s *Sandbox) Mode(ctx context.Context) (string, error) {
	if err := s.probe(ctx); err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err() // no verdict on bwrap
		}
		if s.opts.AllowUnsandboxed {
			return "unsandboxed", nil
		}
		return "refused", fmt.Errorf("%w: %v (install bubblewrap, or set sandbox.allow_unsandboxed: true, which is unsafe)", ErrUnavailable, err)
	}
	return "bwrap", nil
}

// probe checks once that bwrap can create the namespaces and mounts a
// build needs, by running `true` in exactly the sandbox builds get.
func (s *Sandbox) probe(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.probed {
		return s.probeErr
	}
	bwrap, err := exec.LookPath(s.opts.Bwrap)
	if err != nil {
		s.probed, s.probeErr = true, fmt.Errorf("bwrap: %w", err)
		return s.probeErr
	}
	dir, err := os.MkdirTemp("", "autosel-sandbox-probe-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	pctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	var out strings.Builder
	spec := Spec{Args: []string{"true"}, Dir: dir, Writable: []string{dir}, Stdout: &out, Stderr: &out}
	s.userns = true
	err = s.run(pctx, bwrap, spec)
	if id, _ := s.buildUser(); err != nil && id != nil && ctx.Err() == nil {
		// No unprivileged user namespaces here: builds still run as the
		// build user, sharing its process budget.
		userErr := strings.TrimSpace(out.String())
		s.userns = false
		out.Reset()
		if err = s.run(pctx, bwrap, spec); err == nil {
			s.log.Warn("sandbox: no user namespace for builds; concurrent builds share sandbox.processes", "err", userErr)
		}
	}
	if ctx.Err() != nil {
		return ctx.Err() // not a verdict on bwrap
	}
	s.probed = true
	if err != nil {
		s.probeErr = fmt.Errorf("bwrap cannot create the sandbox: %w: %s", err, strings.TrimSpace(out.String()))
	}
	return s.probeErr
}

// Run runs spec in the sandbox and waits for it. Cancelling ctx (a
// timeout) kills every process of the sandbox. The error is an
// *exec.ExitError when the command failed, ErrUnavailable (wrapped) when
// it was refused.
func (s *Sandbox) Run(ctx context.Context, spec Spec) error {
	mode, err := s.Mode(ctx)
	if err != nil {
		return err
	}
	if mode == "unsandboxed" {
		s.mu.Lock()
		if !s.warned {
			s.warned = true
			s.log.Warn("building WITHOUT a sandbox (sandbox.allow_unsandboxed): patched Makefiles and host tools run with the bot's privileges", "reason", s.probeErr)
		}
		s.mu.Unlock()
		if len(spec.Mounts) > 0 {
			return fmt.Errorf("%w: mounts need the sandbox", ErrUnavailable)
		}
		return s.run(ctx, "", spec)
	}
	bwrap, err := exec.LookPath(s.opts.Bwrap)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrUnavailable, err)
	}
	return s.run(ctx, bwrap, spec)
}

// run starts spec under bwrap (or directly when bwrap is "").
func (s *Sandbox) run(ctx context.Context, bwrap string, spec Spec) error {
	if len(spec.Args) == 0 {
		return errors.New("sandbox: empty command")
	}
	env, dropped := buildEnv(s.lookup, s.opts.PassEnv, spec.Env, spec.Home)
	if len(dropped) > 0 {
		s.log.Warn("sandbox: environment variables not passed to the build", "names", dropped)
	}
	limited := append(s.limits(), spec.Args...)
	var (
		argv  []string
		extra []*os.File
	)
	if bwrap == "" {
		argv = limited
	} else {
		id, err := s.buildUser()
		if err != nil {
			return err
		}
		if id != nil {
			dirs := append([]string{}, spec.Writable...)
			for _, m := range spec.Mounts {
				dirs = append(dirs, m.Host)
			}
			if err := own(id, dirs); err != nil {
				return err
			}
			limited = append(dropPrefix(id, s.userns), limited...)
		}
		files, err := identityFiles(id)
		if err != nil {
			return err
		}
		defer closeAll(files)
		args, err := bwrapArgs(s.opts, spec, 3, id != nil)
		if err != nil {
			return err
		}
		argv = append(append([]string{bwrap}, args...), limited...)
		extra = files
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = spec.Dir
	cmd.Env = env
	cmd.Stdout, cmd.Stderr = spec.Stdout, spec.Stderr
	cmd.ExtraFiles = extra
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 10 * time.Second
	dirs := append([]string{}, spec.Writable...)
	for _, m := range spec.Mounts {
		dirs = append(dirs, m.Host)
	}
	watch := newDiskWatch(dirs, s.opts.DiskBudget, s.opts.DiskReserve, s.diskInterval)
	if err := cmd.Start(); err != nil {
		watch.finish()
		return err
	}
	watch.run(func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) })
	err := cmd.Wait()
	if derr := watch.finish(); derr != nil {
		return derr
	}
	if err != nil && ctx.Err() != nil {
		return fmt.Errorf("%w (%v)", ctx.Err(), err)
	}
	return err
}

// limits is the prlimit prefix every command runs under.
func (s *Sandbox) limits() []string {
	cpu := int64(s.opts.CPUTime / time.Second)
	if cpu < 1 {
		cpu = 1
	}
	return []string{"prlimit",
		fmt.Sprintf("--cpu=%d", cpu),
		fmt.Sprintf("--fsize=%d", s.opts.FileSize),
		fmt.Sprintf("--nproc=%d", s.opts.Processes),
		fmt.Sprintf("--as=%d", s.opts.Memory),
		"--core=0", "--"}
}

// rootTmpSize bounds the sandbox's tmpfs root, which holds only mount
// points (and is remounted read-only).
const rootTmpSize = 16 << 20

// systemDirs make up the read-only root: /usr and the merged-/usr links
// (or directories, on older layouts).
var systemDirs = []string{"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"}

// etcFiles are the only host files of /etc a toolchain needs: the
// dynamic loader's cache and the alternatives links (awk, cc, yacc).
var etcFiles = []string{"/etc/alternatives", "/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d"}

// bwrapArgs are bwrap's options for spec; fd is the first of the two
// descriptors holding /etc/passwd and /etc/group. With drop, bwrap keeps
// the capabilities setpriv needs to switch to the build user (dropPrefix),
// which then drops them all.
func bwrapArgs(opts Options, spec Spec, fd int, drop bool) ([]string, error) {
	a := []string{
		"--die-with-parent", "--new-session",
		"--unshare-net", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
		"--hostname", "autosel-build",
		"--cap-drop", "ALL",
	}
	if drop {
		a = append(a, "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID", "--cap-add", "CAP_SETPCAP", "--cap-add", "CAP_DAC_OVERRIDE")
	}
	a = append(a, "--size", fmt.Sprint(rootTmpSize), "--tmpfs", "/")
	for _, d := range systemDirs {
		fi, err := os.Lstat(d)
		switch {
		case err != nil:
			continue
		case fi.Mode()&os.ModeSymlink != 0:
			target, err := os.Readlink(d)
			if err != nil {
				return nil, err
			}
			a = append(a, "--symlink", target, d)
		case fi.IsDir():
			a = append(a, "--ro-bind", d, d)
		}
	}
	a = append(a, "--dir", "/etc")
	for _, f := range etcFiles {
		a = append(a, "--ro-bind-try", f, f)
	}
	a = append(a,
		"--perms", "0644", "--ro-bind-data", fmt.Sprint(fd), "/etc/passwd",
		"--perms", "0644", "--ro-bind-data", fmt.Sprint(fd+1), "/etc/group",
		"--dev", "/dev", "--proc", "/proc", "--perms", "01777", "--size", fmt.Sprint(opts.TmpSize), "--tmpfs", "/tmp",
	)
	type bind struct {
		path string // in the sandbox
		src  string // on the host
		rw   bool
	}
	var binds []bind
	for _, p := range append(append([]string{}, opts.ReadOnly...), spec.ReadOnly...) {
		abs, err := filepath.Abs(p)
		if err != nil {
			return nil, err
		}
		binds = append(binds, bind{abs, abs, false})
	}
	for _, p := range spec.Writable {
		abs, err := filepath.Abs(p)
		if err != nil {
			return nil, err
		}
		if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
			return nil, fmt.Errorf("sandbox: writable directory %s: not a directory (%v)", p, err)
		}
		if abs == "/" {
			return nil, errors.New("sandbox: / cannot be writable")
		}
		binds = append(binds, bind{abs, abs, true})
	}
	for _, m := range spec.Mounts {
		src, err1 := filepath.Abs(m.Host)
		at, err2 := filepath.Abs(m.At)
		if err := errors.Join(err1, err2); err != nil {
			return nil, err
		}
		if fi, err := os.Stat(src); err != nil || !fi.IsDir() || at == "/" {
			return nil, fmt.Errorf("sandbox: mount %s at %s: not a directory (%v)", m.Host, m.At, err)
		}
		binds = append(binds, bind{at, src, true})
	}
	// Parents before children, so a nested bind is not hidden.
	sort.SliceStable(binds, func(i, j int) bool {
		return strings.Count(binds[i].path, "/") < strings.Count(binds[j].path, "/")
	})
	var paths []string
	for _, b := range binds {
		paths = append(paths, b.path)
	}
	made := map[string]bool{}
	for _, b := range binds {
		if drop {
			// bwrap copies the modes of the host's parent directories
			// (a 0700 temp dir) onto the ones it makes: the build user
			// could not reach the bind.
			for _, d := range mountParents(b.path, paths) {
				if !made[d] {
					made[d] = true
					a = append(a, "--perms", "0755", "--dir", d)
				}
			}
		}
		if b.rw {
			a = append(a, "--bind", b.src, b.path)
		} else {
			a = append(a, "--ro-bind", b.src, b.path)
		}
	}
	// A git worktree's .git stays read-only: git runs in the worktree
	// outside the sandbox later, and a .git pointing at a gitdir the build
	// made (core.fsmonitor, hooks) would run its commands on the host.
	for _, b := range binds {
		if g := filepath.Join(b.src, ".git"); b.rw {
			if _, err := os.Lstat(g); err == nil {
				a = append(a, "--ro-bind", g, filepath.Join(b.path, ".git"))
			}
		}
	}
	dir, err := filepath.Abs(spec.Dir)
	if err != nil {
		return nil, err
	}
	a = append(a, "--remount-ro", "/", "--chdir", dir, "--")
	return a, nil
}

// fixedMounts are the sandbox's own mount points (bwrapArgs).
var fixedMounts = []string{"/etc", "/dev", "/proc", "/tmp"}

// mountParents are the directories bwrap makes for a bind at p: its
// ancestors, except / and those that are (or are inside) the sandbox's
// fixed mounts, system dirs or other binds.
func mountParents(p string, binds []string) []string {
	var out []string
	for d := filepath.Dir(p); d != "/" && d != "."; d = filepath.Dir(d) {
		if !madeByBind(d, binds) {
			out = append([]string{d}, out...)
		}
	}
	return out
}

func madeByBind(d string, binds []string) bool {
	for _, m := range fixedMounts {
		if d == m {
			return true
		}
	}
	for _, m := range append(append([]string{}, systemDirs...), binds...) {
		if d == m || strings.HasPrefix(d, m+"/") {
			return true
		}
	}
	return false
}

// identityFiles returns pipes holding the sandbox's /etc/passwd and
// /etc/group: root, nobody and the build user id (when it is another),
// nothing of the host's accounts.
func identityFiles(id *identity) ([]*os.File, error) {
	passwd := "root:x:0:0:root:/nonexistent:/usr/sbin/nologin\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n"
	group := "root:x:0:\nnogroup:x:65534:\n"
	if id != nil && id.uid != 65534 {
		passwd += fmt.Sprintf("build:x:%d:%d:build:/nonexistent:/usr/sbin/nologin\n", id.uid, id.gid)
	}
	if id != nil && id.gid != 65534 {
		group += fmt.Sprintf("build:x:%d:\n", id.gid)
	}
	var files []*os.File
	for _, data := range []string{passwd, group} {
		r, w, err := os.Pipe()
		if err != nil {
			closeAll(files)
			return nil, err
		}
		_, err = w.WriteString(data)
		w.Close()
		if err != nil {
			r.Close()
			closeAll(files)
			return nil, err
		}
		files = append(files, r)
	}
	return files, nil
}

func closeAll(files []*os.File) {
	for _, f := range files {
		f.Close()
	}
}
