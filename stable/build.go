package stable

import (
	"context"
	"errors"
	"fmt"
	"github.com/autosel-bot/autosel-bot/internal/buildlog"
	"github.com/autosel-bot/autosel-bot/internal/flock"
	"os"
	"os/exec"
	"path/filepath"
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
		unlock, err := flock.Lock(ctx, filepath.Join(bd, ".autosel-build.lock"))
		if err != nil {
			return buildResult{}, fmt.Errorf("build dir lock: %w", err)
		}
		defer unlock()
		env = append(env, "AUTOSEL_BUILD_DIR="+bd)
		if opts.CCache {
			// CCACHE_BASEDIR makes paths under the (random) worktree
			// relative, so objects cached from one worktree hit in the next.
			cd := opts.CCacheDir
			if cd == "" {
				cd = filepath.Join(opts.CacheDir, "ccache")
			}
			env = append(env, "CCACHE_DIR="+cd, "CCACHE_BASEDIR="+dir)
		}
	} else {
		env = append(env, "AUTOSEL_BUILD_DIR="+dir)
		if opts.CCache {
			env = append(env, "CCACHE_BASEDIR="+dir)
			if opts.CCacheDir != "" {
				env = append(env, "CCACHE_DIR="+opts.CCacheDir)
			}
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
	return buildResult{errors: buildlog.ErrorLines(out.buf, opts.BuildErrorLines, dir)}, nil
}
