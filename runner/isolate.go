package runner

import (
	"context"
	"fmt"
	"os/exec"

	"github.com/autosel-bot/autosel-bot/internal/builddir"
)

// Per-build isolation (issue 37 points 1 and 2; the ccache layout is
// internal/ccachecfg's). Code a patch brings runs
// in its build; nothing it writes may reach a later build:
//
//   - A patched build compiles in a throwaway copy (cp --reflink=auto -a)
//     of the tree's baseline build dir, removed afterwards, which the
//     sandbox mounts at the baseline's path (absolute paths recorded by
//     tools/objtool hold: only what the patch changed is rebuilt); only
//     baseline builds (the unpatched commit in a worktree cleaned with git
//     clean -ffdx) write the persistent build dir. The worktree is
//     read-only to every build.
//   - ccache: baseline builds keep their cache in <ccache>/baseline and
//     share results through <ccache>/shared (a ccache "file:" remote
//     storage); a patched build gets a private, throwaway cache dir and
//     reads <ccache>/shared read-only (bound read-only in the sandbox, and
//     read-only=true in its configuration).
//   - CCACHE_CONFIGPATH names a configuration file the bot writes under
//     <ccache>/conf, which no build can write: a ccache.conf planted in a
//     cache dir (prefix_command) is never read.
//   - Images are keyed by commit, configuration and patches (imageKey):
//     what a patched build produces is never the image a baseline reuses.

// throwawayBuildDir returns a copy of the baseline build dir base for one
// patched build, and a function removing it (internal/builddir).
func throwawayBuildDir(ctx context.Context, base, key string) (string, func(), error) {
	dir, cleanup, err := builddir.Throwaway(ctx, base, key)
	if err != nil {
		return "", nil, fmt.Errorf("runner: %w", err)
	}
	return dir, cleanup, nil
}

// cleanWorktree removes every untracked and ignored file of a worktree a
// build wrote (git clean -ffdx): kbuild finds sources through VPATH, so
// a file a patched build planted in the source tree must not survive.
func cleanWorktree(ctx context.Context, wt string) error {
	if out, err := exec.CommandContext(ctx, "git", "-C", wt, "clean", "-q", "-ffdx").CombinedOutput(); err != nil {
		return fmt.Errorf("runner: cleaning the worktree: %w: %s", err, out)
	}
	return nil
}
