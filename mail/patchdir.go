package mail

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// errNotInputDir says what a directory must be to be read.
var errNotInputDir = errors.New("directory is neither a Maildir (no cur/ or new/) nor a git format-patch -o directory (no *.patch files)")

// readPatchDir reads the directory git format-patch -o writes: its *.patch
// files (cover letter first: 0000-cover-letter.patch) in name order, each
// a single message or an mbox, named by its own path.
func readPatchDir(ctx context.Context, dir string, fn func(*Raw) error) ([]*InputError, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return []*InputError{{Source: dir, Err: err}}, nil
	}
	var names []string
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".patch") && !e.IsDir() && e.Name()[0] != '.' {
			names = append(names, e.Name())
		}
	}
	if len(names) == 0 {
		return []*InputError{{Source: dir, Err: errNotInputDir}}, nil
	}
	sort.Strings(names)
	var errs []*InputError
	for _, n := range names {
		if err := ctx.Err(); err != nil {
			return errs, err
		}
		p := filepath.Join(dir, n)
		f, err := openRegular(p, false)
		if err != nil {
			errs = append(errs, &InputError{Source: p, Err: err})
			continue
		}
		e, err := readStream(ctx, p, p, f, fn)
		f.Close()
		errs = append(errs, e...)
		if err != nil {
			return errs, err
		}
	}
	return errs, nil
}
