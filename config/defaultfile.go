package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// SystemFile is the system-wide configuration file, read when neither
// --config nor a user file is there.
const SystemFile = "/etc/autosel-bot/config.yaml"

// DefaultPaths returns where the configuration file is looked for when
// --config is not given, in order: $XDG_CONFIG_HOME/autosel-bot/config.yaml
// (~/.config/autosel-bot/config.yaml when XDG_CONFIG_HOME is unset or not
// absolute), then SystemFile.
func DefaultPaths() []string {
	var paths []string
	dir := os.Getenv("XDG_CONFIG_HOME")
	if !filepath.IsAbs(dir) {
		dir = ""
		if home, err := os.UserHomeDir(); err == nil && home != "" {
			dir = filepath.Join(home, ".config")
		}
	}
	if dir != "" {
		paths = append(paths, filepath.Join(dir, "autosel-bot", "config.yaml"))
	}
	return append(paths, SystemFile)
}

// FindDefault returns the first of paths that exists ("" when none does).
// A path that exists but cannot be examined is an error naming it, so a
// configuration is never skipped silently.
func FindDefault(paths []string) (string, error) {
	for _, p := range paths {
		_, err := os.Stat(p)
		switch {
		case err == nil:
			return p, nil
		case errors.Is(err, fs.ErrNotExist):
			continue
		default:
			return "", fmt.Errorf("config: default file: %w", err)
		}
	}
	return "", nil
}
