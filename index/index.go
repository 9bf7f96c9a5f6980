// Package index is the tree index: every function of a kernel tree scanned
// by cscan, persisted and keyed by git blob ids so unchanged files are never
// rescanned, with name and caller lookups (direct calls and calls through
// a struct member), the table of functions assigned to struct members
// (assign.go, assigns.go: ops tables and callbacks, cached beside the index)
// and a post-patch overlay view.
// Rules compute their own summaries (atomic-state effect, may-sleep with a
// proof chain) on top of it and may memoise them with Memo.
package index

import (
	"context"
	"errors"
	"fmt"
	"github.com/autosel-bot/autosel-bot/internal/flock"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/autosel-bot/autosel-bot/cscan"
)

// Options configure Open.
type Options struct {
	// CacheDir holds the persisted index; default
	// os.UserCacheDir()/autosel-bot. "-" disables the cache.
	CacheDir string
	// Workers is the number of parallel scanners (default runtime.NumCPU()).
	Workers int
	// Logger receives progress messages; nil discards them.
	Logger *slog.Logger
	// Progress, when set, is called as files are indexed (scanned, or
	// read from the cache) with the number done and the total, every few
	// hundred files and once at the end. It is called from several
	// goroutines at once.
	Progress func(done, total int)
}

// CallSite is one call in the tree: the calling function and the call.
type CallSite struct {
	Func *cscan.Func
	Call cscan.Call
}

// Stats describe how an Index was built.
type Stats struct {
	Files, Funcs, Calls int
	// Scanned files were parsed in this run; Cached came from the cache.
	Scanned, Cached int
	// Skipped counts functions or files the scanner skipped.
	Skipped  int
	Duration time.Duration
	// CacheFile is the persisted index file ("" when disabled).
	CacheFile string
}

// Index is a scanned tree, or an overlay of a few files over one.
type Index struct {
	// Root is the tree's directory.
	Root string
	// Stats describes the build of this index.
	Stats Stats

	files  map[string]*cscan.File // relative path -> scan (base only)
	byName map[string][]*cscan.Func

	// base and over are set for overlays: over holds the rescanned files
	// (nil value for a deleted file), and src their content.
	base *Index
	over map[string]*cscan.File
	src  map[string][]byte
	// parent is the view Overlay was called on (the pre-patch view).
	parent *Index

	callersOnce sync.Once
	callers     map[string][]siteRef
	// memberCallers maps a member name to the calls through it
	// ("ops->release" under "release"), built with callers.
	memberCallers map[string][]string

	// entries are the base index's files and content keys; log its
	// logger.
	entries []fileEntry
	log     *slog.Logger

	// assigns are the member assignments of a base index (assigns.go),
	// overAssigns those of an overlay's rescanned files.
	assignOnce, overAssignsOnce sync.Once
	assigns, overAssigns        *assignTable

	mu    sync.Mutex
	full  map[string]*cscan.File // lazily re-parsed files with bodies
	memo  map[string]any
	order []string // full cache eviction order
}

// siteRef is a compact call-site reference.
type siteRef struct {
	fn  *cscan.Func
	idx int32
}

// maxFullFiles bounds the re-parsed files kept in memory.
const maxFullFiles = 4096

// Open scans (or loads from the cache) every *.c and *.h file under root.
func Open(ctx context.Context, root string, opts Options) (*Index, error) {
	start := time.Now()
	// Loading builds a large, pointer-rich heap in one go: collecting at
	// every doubling of a growing heap costs more than the load itself
	// (measured 8.5 s -> 5.6 s warm). Collect less often while loading.
	defer debug.SetGCPercent(debug.SetGCPercent(400))
	if opts.Workers <= 0 {
		opts.Workers = runtime.NumCPU()
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("index %s: %w", root, err)
	}
	if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
		if err == nil {
			err = errors.New("not a directory")
		}
		return nil, fmt.Errorf("index %s: %w", root, err)
	}
	entries, err := listFiles(ctx, abs)
	if err != nil {
		return nil, fmt.Errorf("index %s: %w", root, err)
	}
	cacheFile := ""
	if opts.CacheDir != "-" {
		dir := opts.CacheDir
		if dir == "" {
			if ucd, err := os.UserCacheDir(); err == nil {
				dir = filepath.Join(ucd, "autosel-bot")
			}
		}
		if dir != "" {
			cacheFile = filepath.Join(dir, cacheName(abs))
		}
	}
	var cache *cacheData
	if cacheFile != "" {
		// Processes indexing the same tree at once (parallel test
		// packages, a daemon and a CLI) take turns: the second one finds
		// the cache the first one wrote.
		if unlock, err := flock.Lock(ctx, cacheFile+".lock"); err == nil {
			defer unlock()
		} else {
			log.Warn("index cache lock", "err", err)
		}
		cache, err = readCache(cacheFile)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			log.Warn("index cache unreadable, rescanning", "file", cacheFile, "err", err)
		}
	}
	ix := &Index{Root: abs, files: make(map[string]*cscan.File, len(entries)), entries: entries, log: log}
	ix.Stats.CacheFile = cacheFile
	results := make([]*cscan.File, len(entries))
	hit := make([]bool, len(entries))
	jobs := make(chan int)
	var done atomic.Int64
	progress := func() {
		if opts.Progress == nil {
			return
		}
		if n := done.Add(1); n%256 == 0 || int(n) == len(entries) {
			opts.Progress(int(n), len(entries))
		}
	}
	var wg sync.WaitGroup
	var firstErr error
	var errOnce sync.Once
	for w := 0; w < opts.Workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				e := entries[i]
				if cache != nil {
					if f := cache.decode(e.key, e.path); f != nil {
						results[i], hit[i] = f, true
						progress()
						continue
					}
				}
				src, err := os.ReadFile(filepath.Join(abs, e.path))
				if err != nil {
					// A file that vanished or is unreadable is skipped.
					results[i] = &cscan.File{Path: e.path, Skipped: []cscan.Skip{{Line: 1, Reason: fmt.Sprintf("unreadable: %v", err)}}}
					progress()
					continue
				}
				results[i] = cscan.ScanFile(e.path, src)
				progress()
			}
		}()
	}
	for i := range entries {
		if err := ctx.Err(); err != nil {
			errOnce.Do(func() { firstErr = err })
			break
		}
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	if firstErr != nil {
		return nil, fmt.Errorf("index %s: %w", root, firstErr)
	}
	for i, e := range entries {
		f := results[i]
		ix.files[e.path] = f
		if hit[i] {
			ix.Stats.Cached++
		} else {
			ix.Stats.Scanned++
		}
	}
	ix.buildNames()
	if cacheFile != "" && (ix.Stats.Scanned > 0 || cache == nil) {
		if err := writeCache(cacheFile, entries, results); err != nil {
			log.Warn("index cache not written", "file", cacheFile, "err", err)
		}
	}
	ix.Stats.Duration = time.Since(start)
	// The caller map is needed by the first reverse query; build it in the
	// background while the caller parses and applies its patches.
	go ix.buildCallers()
	log.Info("index ready", "root", abs, "files", ix.Stats.Files, "funcs", ix.Stats.Funcs,
		"scanned", ix.Stats.Scanned, "cached", ix.Stats.Cached, "took", ix.Stats.Duration)
	return ix, nil
}

func (ix *Index) buildNames() {
	ix.byName = make(map[string][]*cscan.Func)
	ix.Stats.Files = len(ix.files)
	for _, f := range ix.files {
		ix.Stats.Skipped += len(f.Skipped)
		for _, fn := range f.Funcs {
			ix.byName[fn.Name] = append(ix.byName[fn.Name], fn)
			ix.Stats.Funcs++
			ix.Stats.Calls += len(fn.Calls)
		}
	}
	for _, fns := range ix.byName {
		sortFuncs(fns)
	}
}

func sortFuncs(fns []*cscan.Func) {
	sort.Slice(fns, func(i, j int) bool {
		if fns[i].File != fns[j].File {
			return fns[i].File < fns[j].File
		}
		return fns[i].Start < fns[j].Start
	})
}

// Overlay returns the post-patch view: the given files (repository-relative
// paths; a nil value deletes the file) are rescanned, everything else is
// shared with ix. Non-C files are ignored.
func (ix *Index) Overlay(files map[string][]byte) *Index {
	base := ix
	if ix.base != nil {
		// Overlay of an overlay: fold the previous overlay in.
		merged := make(map[string][]byte, len(ix.src)+len(files))
		for p, b := range ix.src {
			merged[p] = b
		}
		for p, b := range files {
			merged[p] = b
		}
		base, files = ix.base, merged
	}
	o := &Index{Root: base.Root, base: base, parent: ix, over: map[string]*cscan.File{}, src: map[string][]byte{}}
	for p, b := range files {
		p = cleanRel(p)
		if p == "" || !isSource(p) {
			continue
		}
		o.src[p] = b
		if b == nil {
			o.over[p] = nil
			continue
		}
		f := cscan.ParseFile(p, b)
		o.over[p] = f
	}
	o.byName = make(map[string][]*cscan.Func)
	for _, f := range o.over {
		if f == nil {
			continue
		}
		for _, fn := range f.Funcs {
			o.byName[fn.Name] = append(o.byName[fn.Name], fn)
		}
	}
	o.Stats = base.Stats
	o.Stats.Scanned = len(o.over)
	return o
}

// Base returns the view an overlay was made from (ix itself for a base
// index): the pre-patch view.
func (ix *Index) Base() *Index {
	if ix.parent != nil {
		return ix.parent
	}
	return ix
}

// Underlying returns the full index a view is built on (ix itself for a base
// index): what is shared between the views of every patch.
func (ix *Index) Underlying() *Index { return ix.root() }

// root returns the underlying full index.
func (ix *Index) root() *Index {
	if ix.base != nil {
		return ix.base
	}
	return ix
}

// Overlaid reports whether path was rescanned by Overlay.
func (ix *Index) Overlaid(path string) bool {
	_, ok := ix.over[cleanRel(path)]
	return ok
}

func cleanRel(p string) string {
	p = filepath.ToSlash(filepath.Clean(p))
	if p == "." || strings.HasPrefix(p, "../") || p == ".." || filepath.IsAbs(p) {
		return ""
	}
	return p
}

func isSource(p string) bool {
	return strings.HasSuffix(p, ".c") || strings.HasSuffix(p, ".h")
}

// Funcs returns every definition of name (several for static functions of
// the same name in different files, or #if alternatives), ordered by file
// and line. The returned functions have no Body; see Full.
func (ix *Index) Funcs(name string) []*cscan.Func {
	if ix.base == nil {
		return ix.byName[name]
	}
	var out []*cscan.Func
	for _, fn := range ix.base.byName[name] {
		if _, ok := ix.over[fn.File]; !ok {
			out = append(out, fn)
		}
	}
	out = append(out, ix.byName[name]...)
	if len(out) > 1 {
		sortFuncs(out)
	}
	return out
}

// File returns the scan of one file (nil when not indexed).
func (ix *Index) File(path string) *cscan.File {
	path = cleanRel(path)
	if ix.base != nil {
		if f, ok := ix.over[path]; ok {
			return f
		}
		return ix.base.files[path]
	}
	return ix.files[path]
}

// Paths returns every indexed file path, sorted.
func (ix *Index) Paths() []string {
	b := ix.root()
	var out []string
	for p := range b.files {
		if _, ok := ix.over[p]; !ok {
			out = append(out, p)
		}
	}
	for p, f := range ix.over {
		if f != nil {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}

// ReadFile returns the current content of a file of the view.
func (ix *Index) ReadFile(path string) ([]byte, error) {
	path = cleanRel(path)
	if path == "" {
		return nil, fmt.Errorf("bad path")
	}
	if b, ok := ix.src[path]; ok {
		if b == nil {
			return nil, fmt.Errorf("%s: deleted by the patch: %w", path, os.ErrNotExist)
		}
		return b, nil
	}
	return os.ReadFile(filepath.Join(ix.root().Root, path))
}

func (b *Index) buildCallers() {
	b.callersOnce.Do(func() {
		m := make(map[string][]siteRef, len(b.byName)*2)
		for _, f := range b.files {
			for _, fn := range f.Funcs {
				for i := range fn.Calls {
					n := fn.Calls[i].Name
					m[n] = append(m[n], siteRef{fn, int32(i)})
				}
			}
		}
		b.callers = m
		mc := map[string][]string{}
		for name := range m {
			if i := strings.LastIndexAny(name, ">."); i >= 0 && i+1 < len(name) {
				mc[name[i+1:]] = append(mc[name[i+1:]], name)
			}
		}
		b.memberCallers = mc
	})
}

// MemberCallers returns every call site through a struct member named
// member ("dev->netdev_ops->ndo_get_stats64(...)" for "ndo_get_stats64"),
// ordered by file and line.
func (ix *Index) MemberCallers(member string) []CallSite {
	b := ix.root()
	b.buildCallers()
	names := map[string]bool{}
	for _, n := range b.memberCallers[member] {
		names[n] = true
	}
	for _, f := range ix.over {
		if f == nil {
			continue
		}
		for _, fn := range f.Funcs {
			for _, c := range fn.Calls {
				if i := strings.LastIndexAny(c.Name, ">."); i >= 0 && c.Name[i+1:] == member {
					names[c.Name] = true
				}
			}
		}
	}
	if len(names) == 0 {
		return nil
	}
	return ix.callsToNames(names)
}

// callsToNames is CallsTo for a set of names.
func (ix *Index) callsToNames(names map[string]bool) []CallSite {
	b := ix.root()
	b.buildCallers()
	var out []CallSite
	for name := range names {
		for _, r := range b.callers[name] {
			if _, ok := ix.over[r.fn.File]; ok {
				continue
			}
			out = append(out, CallSite{Func: r.fn, Call: r.fn.Calls[r.idx]})
		}
	}
	for _, f := range ix.over {
		if f == nil {
			continue
		}
		for _, fn := range f.Funcs {
			for _, c := range fn.Calls {
				if names[c.Name] {
					out = append(out, CallSite{Func: fn, Call: c})
				}
			}
		}
	}
	sort.Slice(out, func(i, j int) bool {
		a, c := out[i], out[j]
		if a.Func.File != c.Func.File {
			return a.Func.File < c.Func.File
		}
		return a.Call.Line < c.Call.Line
	})
	return out
}

// Callers returns every call site of name in the view (direct calls by
// name; calls through pointers are named by their expression).
func (ix *Index) Callers(name string) []CallSite {
	return ix.callsToNames(map[string]bool{name: true})
}

// CallsTo returns every call site whose callee name matches, ordered by
// file and line.
func (ix *Index) CallsTo(match func(callee string) bool) []CallSite {
	b := ix.root()
	b.buildCallers()
	var out []CallSite
	for name, refs := range b.callers {
		if !match(name) {
			continue
		}
		for _, r := range refs {
			if _, ok := ix.over[r.fn.File]; ok {
				continue
			}
			out = append(out, CallSite{Func: r.fn, Call: r.fn.Calls[r.idx]})
		}
	}
	for _, f := range ix.over {
		if f == nil {
			continue
		}
		for _, fn := range f.Funcs {
			for _, c := range fn.Calls {
				if match(c.Name) {
					out = append(out, CallSite{Func: fn, Call: c})
				}
			}
		}
	}
	sort.Slice(out, func(i, j int) bool {
		a, c := out[i], out[j]
		if a.Func.File != c.Func.File {
			return a.Func.File < c.Func.File
		}
		return a.Call.Line < c.Call.Line
	})
	return out
}

// Full returns fn with its statement tree (Body), re-parsing its file when
// the index holds it without bodies. It returns fn itself when it already
// has a body, and nil when the file cannot be read or no longer holds fn.
func (ix *Index) Full(fn *cscan.Func) *cscan.Func {
	if fn == nil {
		return nil
	}
	if fn.Body != nil {
		return fn
	}
	f := ix.fullFile(fn.File)
	if f == nil {
		return nil
	}
	for _, g := range f.Funcs {
		if g.Name == fn.Name && g.Start == fn.Start {
			return g
		}
	}
	return nil
}

func (ix *Index) fullFile(path string) *cscan.File {
	if f, ok := ix.over[path]; ok {
		return f // overlay scans keep bodies
	}
	b := ix.root()
	b.mu.Lock()
	if f, ok := b.full[path]; ok {
		b.mu.Unlock()
		return f
	}
	b.mu.Unlock()
	src, err := os.ReadFile(filepath.Join(b.Root, path))
	if err != nil {
		return nil
	}
	f := cscan.ParseFile(path, src)
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.full == nil {
		b.full = make(map[string]*cscan.File)
	}
	if _, ok := b.full[path]; !ok {
		b.order = append(b.order, path)
		if len(b.order) > maxFullFiles {
			delete(b.full, b.order[0])
			b.order = b.order[1:]
		}
	}
	b.full[path] = f
	return f
}

// Memo returns the value memoised under key in this view, computing it
// once. Rules use it for per-function summaries; overlays have their own
// memo table (a summary may change with the patch).
func (ix *Index) Memo(key string, compute func() any) any {
	ix.mu.Lock()
	if v, ok := ix.memo[key]; ok {
		ix.mu.Unlock()
		return v
	}
	ix.mu.Unlock()
	v := compute()
	ix.mu.Lock()
	if ix.memo == nil {
		ix.memo = make(map[string]any)
	}
	ix.memo[key] = v
	ix.mu.Unlock()
	return v
}
