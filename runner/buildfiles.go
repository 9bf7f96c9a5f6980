package runner

import (
	"fmt"
	"os"
)

// The build directory is written by sandboxed code: a symlink it left
// there must not make the bot (outside the sandbox) read or overwrite a
// host file. Every access of the bot to the build directory goes through
// os.Root, which refuses paths that leave it.

// readBuildFile reads rel inside the build directory.
func readBuildFile(build, rel string) ([]byte, error) {
	root, err := os.OpenRoot(build)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	return root.ReadFile(rel)
}

// writeBuildFile replaces rel inside the build directory.
func writeBuildFile(build, rel string, data []byte) error {
	root, err := os.OpenRoot(build)
	if err != nil {
		return err
	}
	defer root.Close()
	// Remove whatever is there first (a symlink is removed, not followed).
	if err := root.Remove(rel); err != nil && !os.IsNotExist(err) {
		return fmt.Errorf("runner: build dir: %w", err)
	}
	return root.WriteFile(rel, data, 0o644)
}
