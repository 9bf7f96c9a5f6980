package stable

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"time"
)

// buildResult is the outcome of a tree's build command.
type buildResult struct {
	ok     bool
	errors []string // trimmed compiler error lines when !ok
}

// maxBuildOutput bounds the build output kept in memory (the tail).
const maxBuildOutput = 4 << 20

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	buf []byte
	max int
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.buf = append(t.buf, p...)
	if len(t.buf) > t.max {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-t.max:]...)
	}
	return len(p), nil
}

// runBuild runs the tree's build command with sh -c in dir, in its own
// process group so that a timeout or cancellation kills make and every
// compiler it started.
func runBuild(ctx context.Context, opts Options, tree TreeOptions, dir string) (buildResult, error) {
	ctx, cancel := context.WithTimeout(ctx, opts.BuildTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-c", tree.Build)
	cmd.Dir = dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 10 * time.Second
	env := append(os.Environ(), "AUTOSEL_TREE="+tree.Name, "AUTOSEL_SRC="+dir, "LC_ALL=C")
	if opts.CacheDir != "" {
		bd := filepath.Join(opts.CacheDir, "build", sanitize(tree.Name))
		if err := os.MkdirAll(bd, 0o755); err != nil {
			return buildResult{}, fmt.Errorf("build dir: %w", err)
		}
		unlock, err := lockBuildDir(ctx, bd)
		if err != nil {
			return buildResult{}, fmt.Errorf("build dir lock: %w", err)
		}
		defer unlock()
		env = append(env, "AUTOSEL_BUILD_DIR="+bd)
		if opts.CCache {
			// CCACHE_BASEDIR makes paths under the (random) worktree
			// relative, so objects cached from one worktree hit in the next.
			env = append(env, "CCACHE_DIR="+filepath.Join(opts.CacheDir, "ccache"), "CCACHE_BASEDIR="+dir)
		}
	} else {
		env = append(env, "AUTOSEL_BUILD_DIR="+dir)
		if opts.CCache {
			env = append(env, "CCACHE_BASEDIR="+dir)
		}
	}
	cmd.Env = env
	out := &tailBuffer{max: maxBuildOutput}
	cmd.Stdout, cmd.Stderr = out, out
	err := cmd.Run()
	if ctx.Err() != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return buildResult{errors: []string{fmt.Sprintf("build timed out after %v", opts.BuildTimeout)}}, nil
		}
		return buildResult{}, ctx.Err()
	}
	if err == nil {
		return buildResult{ok: true}, nil
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		return buildResult{}, fmt.Errorf("build %s: %w", tree.Name, err)
	}
	return buildResult{errors: buildErrors(out.buf, dir, opts.BuildErrorLines)}, nil
}

var (
	errorLineRE = regexp.MustCompile(`(?i)(\berror:|\bfatal error\b|^ERROR: |undefined reference to|\*\*\* \[.*\] Error|No rule to make target)`)
	makeErrRE   = regexp.MustCompile(`\*\*\* \[.*\] Error|^make(\[\d+\])?: \*\*\*`)
	ansiRE      = regexp.MustCompile("\x1b\\[[0-9;]*[a-zA-Z]")
)

// buildErrors picks the compiler error lines out of a build log: lines with
// "error:" (and linker/modpost errors), paths made relative to the
// worktree, duplicates dropped, at most max lines. make's own "*** Error"
// lines are used only when there is nothing better; with no error line at
// all, the last lines of the log are returned.
func buildErrors(log []byte, dir string, limit int) []string {
	var errs, makeErrs, all []string
	seen := map[string]bool{}
	for _, l := range strings.Split(string(bytes.ReplaceAll(log, []byte("\r"), nil)), "\n") {
		l = ansiRE.ReplaceAllString(l, "")
		l = strings.ReplaceAll(l, dir+"/", "")
		l = strings.TrimRight(l, " \t")
		if l == "" {
			continue
		}
		all = append(all, l)
		if !errorLineRE.MatchString(l) || seen[l] {
			continue
		}
		seen[l] = true
		if makeErrRE.MatchString(l) {
			makeErrs = append(makeErrs, l)
		} else {
			errs = append(errs, l)
		}
	}
	if len(errs) == 0 {
		errs = makeErrs
	}
	if len(errs) == 0 {
		errs = all[max(0, len(all)-10):]
	}
	if len(errs) > limit {
		errs = append(errs[:limit-1:limit-1], fmt.Sprintf("... (%d more error lines)", len(errs)-limit+1))
	}
	for i, e := range errs {
		if len(e) > 300 {
			errs[i] = e[:300] + "..."
		}
	}
	return errs
}

// lockBuildDir serialises builds sharing one per-tree build directory
// (concurrent series in the watch daemon): it returns an unlock function.
func lockBuildDir(ctx context.Context, dir string) (func(), error) {
	f, err := os.OpenFile(filepath.Join(dir, ".autosel-build.lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() { syscall.Flock(int(f.Fd()), syscall.LOCK_UN); f.Close() }, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			f.Close()
			return nil, err
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}
