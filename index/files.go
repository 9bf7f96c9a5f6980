package index

import (
	"bytes"
	"context"
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	gitcmd "github.com/autosel-bot/autosel-bot/internal/git" // index_test.go has a git helper
)

// fileEntry is one source file of the tree and its content key.
type fileEntry struct {
	path string
	// key identifies the content: "g" + git blob id, or "s" + a hash of
	// path, size and mtime for trees outside git.
	key string
}

// listFiles lists the tree's *.c and *.h files with content keys: from
// `git ls-files -s` in a git work tree (blob ids of the index, re-hashed for
// files modified in the work tree), else by walking the directory.
func listFiles(ctx context.Context, root string) ([]fileEntry, error) {
	if _, err := os.Stat(filepath.Join(root, ".git")); err == nil {
		if entries, err := gitFiles(ctx, root); err == nil {
			return entries, nil
		}
	}
	return walkFiles(ctx, root)
}

func gitFiles(ctx context.Context, root string) ([]fileEntry, error) {
	g := gitcmd.New(root)
	// The work tree's changes are listed while the index is read.
	diff := make(chan []byte, 1)
	go func() {
		d, err := g.Output(ctx, nil, "diff-files", "--name-only", "-z", "--", "*.c", "*.h")
		if err != nil {
			d = nil
		}
		diff <- d
	}()
	out, err := g.Output(ctx, nil, "ls-files", "-s", "-z", "--", "*.c", "*.h")
	d := <-diff
	if err != nil {
		return nil, err
	}
	dirty := map[string]bool{}
	for _, p := range strings.Split(string(d), "\x00") {
		if p != "" {
			dirty[p] = true
		}
	}
	var entries []fileEntry
	for _, rec := range bytes.Split(out, []byte{0}) {
		// "<mode> <sha> <stage>\t<path>"
		tab := bytes.IndexByte(rec, '\t')
		if tab < 0 {
			continue
		}
		meta := strings.Fields(string(rec[:tab]))
		path := string(rec[tab+1:])
		if len(meta) != 3 || !strings.HasPrefix(meta[0], "100") || !isSource(path) {
			continue // symlinks, submodules
		}
		key := "g" + meta[1]
		if dirty[path] {
			b, err := os.ReadFile(filepath.Join(root, path))
			if err != nil {
				continue // deleted in the work tree
			}
			key = "g" + blobID(b)
		}
		entries = append(entries, fileEntry{path: path, key: key})
	}
	return entries, nil
}

// blobID is git's object id of a blob with content b.
func blobID(b []byte) string {
	h := sha1.New()
	h.Write([]byte("blob " + strconv.Itoa(len(b)) + "\x00"))
	h.Write(b)
	return hex.EncodeToString(h.Sum(nil))
}

func walkFiles(ctx context.Context, root string) ([]fileEntry, error) {
	var entries []fileEntry
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // unreadable directories are skipped
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); p != root && (strings.HasPrefix(n, ".") || n == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() || !isSource(p) {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return nil
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return nil
		}
		rel = filepath.ToSlash(rel)
		h := sha1.Sum([]byte(fmt.Sprintf("%s\x00%d\x00%d", rel, info.Size(), info.ModTime().UnixNano())))
		entries = append(entries, fileEntry{path: rel, key: "s" + hex.EncodeToString(h[:])})
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].path < entries[j].path })
	return entries, nil
}

// cacheName is the store file of one tree root. The store version is part
// of the name: a process of another version neither misreads nor replaces
// it.
func cacheName(root string) string {
	return fmt.Sprintf("%s.v%d.store", treeKey(root), storeVersion)
}

// pruneOld removes what older versions of the store left beside
// cacheFile for the same tree (their stores, side files and caches of
// earlier formats): they are never read again, and are hundreds of MB
// for Linux. Lock files stay.
func pruneOld(cacheFile string, log *slog.Logger) {
	base := filepath.Base(cacheFile)
	tree, _, ok := strings.Cut(base, ".")
	if !ok {
		return
	}
	keep := strings.TrimSuffix(base, ".store") + "."
	olds, _ := filepath.Glob(filepath.Join(filepath.Dir(cacheFile), tree+".*"))
	for _, f := range olds {
		name := filepath.Base(f)
		if name == base || strings.HasPrefix(name, keep) || strings.HasSuffix(name, ".lock") {
			continue
		}
		if err := os.Remove(f); err != nil {
			log.Warn("old index cache not removed", "file", f, "err", err)
		}
	}
}

// removeStaleTemps removes the temporary files a process killed while
// writing cacheFile left beside it (WriteFile's): the caller holds the
// store's lock, so no live process is writing them.
func removeStaleTemps(cacheFile string, log *slog.Logger) {
	olds, _ := filepath.Glob(filepath.Join(filepath.Dir(cacheFile), "."+filepath.Base(cacheFile)+"-*"))
	for _, f := range olds {
		if err := os.Remove(f); err != nil {
			log.Warn("stale temporary index file not removed", "file", f, "err", err)
		}
	}
}
