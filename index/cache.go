package index

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/autosel-bot/autosel-bot/internal/flock"
)

// The cache directory holds, per tree, files named index-<key>.* where key
// is a digest of the tree's absolute path (cacheName): the store, the side
// files of the rules' summaries, a lock file and a ".root" file naming the
// tree, so that what is cached can be listed per tree (Cached) and removed
// (Prune).

// CacheDirFor returns the cache directory Options.CacheDir names: dir
// itself, or $XDG_CACHE_HOME/autosel-bot for "". It is "" for "-" (no
// cache).
func CacheDirFor(dir string) (string, error) {
	switch dir {
	case "-":
		return "", nil
	case "":
		ucd, err := os.UserCacheDir()
		if err != nil {
			return "", fmt.Errorf("index cache directory: %w", err)
		}
		return filepath.Join(ucd, "autosel-bot"), nil
	}
	return dir, nil
}

// treeKey is the part of the cache file names shared by every file of the
// tree at abs: "index-" and a digest of the path.
func treeKey(abs string) string {
	h := sha1.Sum([]byte(abs))
	return "index-" + hex.EncodeToString(h[:8])
}

// rootFile names the file beside cacheFile that records the tree's path.
func rootFile(cacheFile string) string {
	return strings.TrimSuffix(cacheFile, ".store") + ".root"
}

// writeRoot records the tree abs beside its store; a failure only costs
// the tree's name in Cached.
func writeRoot(cacheFile, abs string) error {
	f := rootFile(cacheFile)
	if b, err := os.ReadFile(f); err == nil && string(b) == abs+"\n" {
		return nil
	}
	return os.WriteFile(f, []byte(abs+"\n"), 0o644)
}

// CacheEntry is what the cache holds for one tree.
type CacheEntry struct {
	// Key is the tree's file name prefix (index-<digest>).
	Key string
	// Tree is the tree's directory, "" when not recorded (a cache written
	// by an older version).
	Tree string
	// Files are the paths of the entry's files, lock files excluded.
	Files []string
	// Size is the bytes of Files.
	Size int64
	// Modified is when the newest of Files was written.
	Modified time.Time
}

// Cached lists what dir holds per tree, by tree then key. A missing dir
// holds nothing.
func Cached(dir string) ([]CacheEntry, error) {
	ents, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("index cache %s: %w", dir, err)
	}
	byKey := map[string]*CacheEntry{}
	for _, de := range ents {
		name := de.Name()
		key, _, ok := strings.Cut(name, ".")
		if !ok || !strings.HasPrefix(key, "index-") || de.IsDir() || strings.HasSuffix(name, ".lock") {
			continue
		}
		info, err := de.Info()
		if err != nil {
			continue // removed meanwhile
		}
		e := byKey[key]
		if e == nil {
			e = &CacheEntry{Key: key}
			byKey[key] = e
		}
		path := filepath.Join(dir, name)
		e.Files = append(e.Files, path)
		e.Size += info.Size()
		if info.ModTime().After(e.Modified) {
			e.Modified = info.ModTime()
		}
		if strings.HasSuffix(name, ".root") && e.Tree == "" {
			if b, err := os.ReadFile(path); err == nil {
				e.Tree = strings.TrimSpace(string(b))
			}
		}
	}
	out := make([]CacheEntry, 0, len(byKey))
	for _, e := range byKey {
		out = append(out, *e)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Tree != out[j].Tree {
			return out[i].Tree < out[j].Tree
		}
		return out[i].Key < out[j].Key
	})
	return out, nil
}

// CachedTree returns the entry of the tree at root in dir; ok is false
// when nothing is cached for it.
func CachedTree(dir, root string) (e CacheEntry, ok bool, err error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return CacheEntry{}, false, fmt.Errorf("index %s: %w", root, err)
	}
	all, err := Cached(dir)
	if err != nil {
		return CacheEntry{}, false, err
	}
	key := treeKey(abs)
	for _, e := range all {
		if e.Key == key {
			return e, true, nil
		}
	}
	return CacheEntry{}, false, nil
}

// Prune removes the cached files of e (store, side files, root file and
// those of older versions), holding the tree's lock so that no Open of
// the same version is writing them meanwhile, then its lock files. It
// returns the bytes freed.
func Prune(ctx context.Context, dir string, e CacheEntry) (int64, error) {
	lock := filepath.Join(dir, fmt.Sprintf("%s.v%d.store.lock", e.Key, storeVersion))
	unlock, err := flock.Lock(ctx, lock)
	if err != nil {
		return 0, fmt.Errorf("index cache %s: %w", e.Key, err)
	}
	var freed int64
	var errs []error
	for _, f := range e.Files {
		info, err := os.Stat(f)
		if err == nil {
			err = os.Remove(f)
		}
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
			continue
		}
		if info != nil {
			freed += info.Size()
		}
	}
	unlock()
	locks, _ := filepath.Glob(filepath.Join(dir, e.Key+".*.lock"))
	for _, l := range locks {
		if err := os.Remove(l); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	return freed, errors.Join(errs...)
}
