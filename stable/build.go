package stable

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/autosel-bot/autosel-bot/internal/buildlog"
	"github.com/autosel-bot/autosel-bot/internal/ccachecfg"
	"github.com/autosel-bot/autosel-bot/internal/flock"
	"github.com/autosel-bot/autosel-bot/internal/sandbox"
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

// runBuild runs the tree's build command with sh -c in dir, inside the
// build sandbox: only dir, the tree's build directory and the ccache
// directory are writable, and the environment holds only the AUTOSEL_*
// build variables, CCACHE_* and the sandbox's allow-list (never the bot's
// configuration or secrets). A timeout or cancellation kills every process
// of the build.
func runBuild(ctx context.Context, opts Options, sb *sandbox.Sandbox, tree TreeOptions, dir string) (buildResult, error) {
	ctx, cancel := context.WithTimeout(ctx, opts.BuildTimeout)
	defer cancel()
	env := []string{"AUTOSEL_TREE=" + tree.Name, "AUTOSEL_SRC=" + dir, "LC_ALL=C"}
	writable := []string{dir}
	var readOnly []string
	home := dir
	var buildDirs []string
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
		writable = append(writable, bd)
		buildDirs = append(buildDirs, bd)
		home = bd
		if opts.CCache {
			// CCACHE_BASEDIR makes paths under the worktree relative, so
			// objects cached from one worktree hit in the next.
			cd := opts.CCacheDir
			if cd == "" {
				cd = filepath.Join(opts.CacheDir, "ccache")
			}
			// A stable build builds a patch: a private cache over the
			// shared one, read-only (internal/ccachecfg).
			cs, err := ccachecfg.For(cd, "", true)
			if err != nil {
				return buildResult{}, fmt.Errorf("ccache dir: %w", err)
			}
			defer cs.Cleanup()
			env = append(append(env, cs.Env...), "CCACHE_BASEDIR="+dir)
			writable = append(writable, cs.Writable...)
			readOnly = append(readOnly, cs.ReadOnly...)
		}
	} else {
		env = append(env, "AUTOSEL_BUILD_DIR="+dir)
		if opts.CCache {
			env = append(env, "CCACHE_BASEDIR="+dir)
			if opts.CCacheDir != "" {
				cs, err := ccachecfg.For(opts.CCacheDir, "", true)
				if err != nil {
					return buildResult{}, fmt.Errorf("ccache dir: %w", err)
				}
				defer cs.Cleanup()
				env = append(env, cs.Env...)
				writable = append(writable, cs.Writable...)
				readOnly = append(readOnly, cs.ReadOnly...)
			}
		}
	}
	out := &tailBuffer{max: maxBuildOutput}
	err := sb.Run(ctx, sandbox.Spec{
		Args: []string{"sh", "-c", tree.Build}, Dir: dir, Writable: writable, ReadOnly: readOnly, Home: home,
		Env: env, Stdout: out, Stderr: out,
	})
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
	return buildResult{errors: buildlog.ErrorLines(out.buf, opts.BuildErrorLines, append([]string{dir}, buildDirs...)...)}, nil
}
