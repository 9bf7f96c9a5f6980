package stable

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/autosel-bot/autosel-bot/internal/builddir"
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

// runBuild runs the tree's build command on the patched worktree dir.
// With a cache directory it builds in a throwaway copy of the tree's
// baseline build dir (baselineBuild), removed afterwards: nothing one
// patch's build writes there reaches another's. In the sandbox the copy
// is mounted at the baseline's path, so that absolute paths recorded in
// it (a kernel's tools/objtool) hold and the build stays incremental.
func runBuild(ctx context.Context, opts Options, sb *sandbox.Sandbox, tree TreeOptions, dir string) (buildResult, error) {
	bd, at := "", ""
	if opts.CacheDir != "" {
		base := baselineDir(opts, tree)
		if err := os.MkdirAll(base, 0o755); err != nil {
			return buildResult{}, fmt.Errorf("build dir: %w", err)
		}
		unlock, err := flock.Lock(ctx, base+".lock")
		if err != nil {
			return buildResult{}, fmt.Errorf("build dir lock: %w", err)
		}
		copied, cleanup, err := builddir.Throwaway(ctx, base, filepath.Base(dir))
		unlock()
		if err != nil {
			return buildResult{}, fmt.Errorf("build dir: %w", err)
		}
		defer cleanup()
		bd = copied
		if mode, _ := sb.Mode(ctx); mode == "bwrap" {
			at = base
		}
	}
	return sandboxBuild(ctx, opts, sb, tree, dir, bd, at, true)
}

// baselineDir is the tree's trusted build dir: only baselineBuild writes
// it.
func baselineDir(opts Options, tree TreeOptions) string {
	return filepath.Join(opts.CacheDir, "build", sanitize(tree.Name))
}

// baselineBuild builds the unpatched tree at head (the worktree dir holds
// it, before the patches are written out) into the tree's baseline build
// dir, unless the last baseline build was of head with the same command.
// A failing baseline is logged, not an error: the patched build still
// runs, incrementally from whatever the baseline dir holds.
func baselineBuild(ctx context.Context, opts Options, sb *sandbox.Sandbox, tree TreeOptions, dir, head string, log *slog.Logger) error {
	base := baselineDir(opts, tree)
	if err := os.MkdirAll(base, 0o755); err != nil {
		return fmt.Errorf("build dir: %w", err)
	}
	unlock, err := flock.Lock(ctx, base+".lock")
	if err != nil {
		return fmt.Errorf("build dir lock: %w", err)
	}
	defer unlock()
	stampFile := base + ".baseline"
	stamp := head + "\n" + tree.Build + "\n"
	if b, err := os.ReadFile(stampFile); err == nil && string(b) == stamp {
		return nil
	}
	os.Remove(stampFile)
	res, err := sandboxBuild(ctx, opts, sb, tree, dir, base, "", false)
	if err != nil {
		return err
	}
	if !res.ok {
		log.Warn("stable: the unpatched tree does not build", "tree", tree.Name, "commit", head, "errors", res.errors)
		return nil
	}
	return os.WriteFile(stampFile, []byte(stamp), 0o644)
}

// sandboxBuild runs the tree's build command with sh -c in dir, inside the
// build sandbox, and the environment holds only the AUTOSEL_* build
// variables, CCACHE_* and the sandbox's allow-list (never the bot's
// configuration or secrets). Writable are the build directory bd and the
// build's ccache directories; the worktree dir is read-only (the build
// writes to $AUTOSEL_BUILD_DIR, make O=...), so that its files keep their
// owner and stat data and git rewrites only what the next series
// changes. With at, the build sees bd at that path. Without bd (a
// throwaway worktree) dir is the build directory,
// writable, and the bot's again afterwards (sandbox.Reclaim). A patched
// build gets a private ccache over the shared one, read-only
// (internal/ccachecfg); a baseline build writes the shared one. A timeout
// or cancellation kills every process of the build.
func sandboxBuild(ctx context.Context, opts Options, sb *sandbox.Sandbox, tree TreeOptions, dir, bd, at string, patched bool) (res buildResult, err error) {
	ctx, cancel := context.WithTimeout(ctx, opts.BuildTimeout)
	defer cancel()
	env := []string{"AUTOSEL_TREE=" + tree.Name, "AUTOSEL_SRC=" + dir, "LC_ALL=C"}
	var writable, readOnly, buildDirs []string
	var mounts []sandbox.Mount
	home := dir
	switch {
	case at != "":
		env = append(env, "AUTOSEL_BUILD_DIR="+at)
		mounts = append(mounts, sandbox.Mount{Host: bd, At: at})
		readOnly = append(readOnly, dir)
		buildDirs = append(buildDirs, at)
		home = at
	case bd != "":
		env = append(env, "AUTOSEL_BUILD_DIR="+bd)
		writable = append(writable, bd)
		readOnly = append(readOnly, dir)
		buildDirs = append(buildDirs, bd)
		home = bd
	default:
		env = append(env, "AUTOSEL_BUILD_DIR="+dir)
		writable = append(writable, dir)
		// git removes the worktree; the build user must not keep it.
		defer func() {
			if rerr := sb.Reclaim(dir); rerr != nil && err == nil {
				err = rerr
			}
		}()
	}
	if opts.CCache {
		// CCACHE_BASEDIR makes paths under the worktree relative, so
		// objects cached from one worktree hit in the next.
		env = append(env, "CCACHE_BASEDIR="+dir)
		cd := opts.CCacheDir
		if cd == "" && opts.CacheDir != "" {
			cd = filepath.Join(opts.CacheDir, "ccache")
		}
		if cd != "" {
			cs, err := ccachecfg.For(cd, "", patched)
			if err != nil {
				return buildResult{}, fmt.Errorf("ccache dir: %w", err)
			}
			defer cs.Cleanup()
			env = append(env, cs.Env...)
			writable = append(writable, cs.Writable...)
			readOnly = append(readOnly, cs.ReadOnly...)
		}
	}
	out := &tailBuffer{max: maxBuildOutput}
	err = sb.Run(ctx, sandbox.Spec{
		Args: []string{"sh", "-c", tree.Build}, Dir: dir, Writable: writable, Mounts: mounts, ReadOnly: readOnly, Home: home,
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
	if errors.Is(err, sandbox.ErrDiskBudget) {
		return buildResult{errors: append([]string{err.Error()},
			buildlog.ErrorLines(out.buf, opts.BuildErrorLines, append([]string{dir}, buildDirs...)...)...)}, nil
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		return buildResult{}, fmt.Errorf("build %s: %w", tree.Name, err)
	}
	return buildResult{errors: buildlog.ErrorLines(out.buf, opts.BuildErrorLines, append([]string{dir}, buildDirs...)...)}, nil
}
