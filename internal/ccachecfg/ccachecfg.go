// Package ccachecfg lays out a ccache shared by builds that must not
// change each other's results (issue 37 point 1). Under the cache dir:
// baseline/ is the primary cache of trusted (unpatched) builds, shared/ a
// ccache "file:" remote storage they fill, conf/ the configuration files
// the bot writes and builds only read (CCACHE_CONFIGPATH, so a
// ccache.conf planted in a cache dir is never read). A patched build gets
// a private, throwaway primary cache and reads shared/ read-only (bound
// read-only in the sandbox, read-only=true in its configuration).
package ccachecfg

import (
	"os"
	"path/filepath"
)

// Setup is one build's ccache: the environment and the directories
// the sandbox binds.
type Setup struct {
	// Env are CCACHE_DIR and CCACHE_CONFIGPATH.
	Env []string
	// Writable and ReadOnly are the directories and files to bind.
	Writable, ReadOnly []string
	// Cleanup removes a patched build's private cache.
	Cleanup func()
}

// For prepares the ccache of one build under the shared cache dir
// cd ("" = no ccache); patched builds get a private throwaway cache.
func For(cd, maxSize string, patched bool) (*Setup, error) {
	cs := &Setup{Cleanup: func() {}}
	if cd == "" {
		return cs, nil
	}
	shared, conf := filepath.Join(cd, "shared"), filepath.Join(cd, "conf")
	for _, d := range []string{shared, conf, filepath.Join(cd, "baseline")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
	}
	remote := "file:" + shared
	name, primary := "baseline.conf", filepath.Join(cd, "baseline")
	if patched {
		name, remote = "patched.conf", remote+"|read-only=true"
		dir, err := os.MkdirTemp(cd, "private-")
		if err != nil {
			return nil, err
		}
		primary = dir
		cs.Cleanup = func() { os.RemoveAll(dir) }
	}
	cfg := filepath.Join(conf, name)
	text := "# written by autosel-bot (CCACHE_CONFIGPATH); no build can change it\n"
	if maxSize != "" {
		text += "max_size = " + maxSize + "\n"
	}
	text += "secondary_storage = " + remote + "\n"
	if err := writeAtomic(cfg, []byte(text)); err != nil {
		cs.Cleanup()
		return nil, err
	}
	cs.Env = []string{"CCACHE_DIR=" + primary, "CCACHE_CONFIGPATH=" + cfg}
	cs.Writable = []string{primary}
	cs.ReadOnly = []string{cfg}
	if patched {
		cs.ReadOnly = append(cs.ReadOnly, shared)
	} else {
		cs.Writable = append(cs.Writable, shared)
	}
	return cs, nil
}

// writeAtomic writes data to path through a temporary file and a rename.
func writeAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), path)
}
