// Package indextest opens indexes of small trees for tests: the files
// given by path, written to a directory of the test's own.
package indextest

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/autosel-bot/autosel-bot/index"
	"github.com/autosel-bot/autosel-bot/internal/testtree"
)

// Open indexes a tree of files (path -> content) without a cache
// directory: nothing is persisted.
func Open(t testing.TB, files map[string]string) *index.Index {
	t.Helper()
	return open(t, files, "-")
}

// OpenCached indexes a tree of files with a cache directory of the test's
// own, so the index persists and side files (stores) can live beside it.
func OpenCached(t testing.TB, files map[string]string) *index.Index {
	t.Helper()
	return open(t, files, filepath.Join(t.TempDir(), "cache"))
}

func open(t testing.TB, files map[string]string, cache string) *index.Index {
	t.Helper()
	ix, err := index.Open(context.Background(), testtree.Dir(t, files), index.Options{CacheDir: cache})
	if err != nil {
		t.Fatal(err)
	}
	return ix
}
