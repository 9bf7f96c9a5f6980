// Package builddir makes the throwaway build directories untrusted
// (patched) builds run in (issue 37 point 2): a copy of the trusted
// baseline build directory, so that nothing a patch's build writes there
// (a replaced scripts/basic/fixdep, a file dated in the future) reaches
// another build. The copy uses cp --reflink=auto -a: a reflink where the
// file system has them (btrfs, xfs), a full copy elsewhere (ext4).
package builddir

import (
	"context"
	"fmt"
	"os"
	"os/exec"
)

// Throwaway copies the baseline build dir base to base.patched-<key> for
// one patched build and returns it with a function removing it. A copy
// left by a crashed run with the same key is replaced.
func Throwaway(ctx context.Context, base, key string) (string, func(), error) {
	dir := base + ".patched-" + key
	os.RemoveAll(dir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", nil, err
	}
	cleanup := func() { os.RemoveAll(dir) }
	if out, err := exec.CommandContext(ctx, "cp", "--reflink=auto", "-a", base+"/.", dir).CombinedOutput(); err != nil {
		cleanup()
		return "", nil, fmt.Errorf("copying the baseline build dir: %w: %s", err, out)
	}
	return dir, cleanup, nil
}
