// Package index is the tree index: every function of a kernel tree scanned
// by cscan, with name and caller lookups (direct calls and calls through a
// struct member), the table of functions assigned to struct members
// (assign.go, assigns.go: ops tables and callbacks) and a post-patch
// overlay view.
//
// The index of a tree is a store file (store.go: layout; record.go: one
// file's scan; pager.go: reading), keyed by git blob ids so unchanged files
// are never rescanned, and queried in place: Open reads the header, and a
// query binary searches a sorted directory and decodes only the functions
// it returns (a one-patch check of Linux 6.1 decodes about 4% of them).
// This was chosen by measurement over loading the whole index (6.9 s and
// 1.3 GB per run for Linux 6.1), a memory-mapped file (the kernel's 64 KB
// fault-around made a query's scattered reads resident: 250 MB) and SQLite
// (modernc.org/sqlite: the call-site table alone took 54 s and 194 MB to
// build, and 1612 callee lookups 1.38 s against 25 ms for the store's
// directory). A function is decoded once per Index, so the same
// *cscan.Func comes back from every query until Release.
//
// Rules compute their own summaries (atomic-state effect, may-sleep with a
// proof chain) on top of it and may memoise them with Memo. What a rule
// derives from the whole tree once can be kept beside the store in a side
// file (side.go), one record per function addressed by Ref (refs.go) and
// valid for one Generation of the index.
package index

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"weak"

	"github.com/autosel-bot/autosel-bot/internal/flock"
	"github.com/autosel-bot/autosel-bot/internal/stageprogress"

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
	// PageCache bounds the bytes of pages kept of each file the index
	// reads (its store, and each side file opened with Index.OpenSide):
	// past it, pages are evicted and read again when needed. 0 means
	// DefaultPageCache; negative keeps every page read.
	PageCache int64
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

	// st is the store of a base index (store.go); decoded holds what was
	// decoded from it so far, by file number: a function is decoded once,
	// so it is the same *cscan.Func in every answer until Release.
	st      *store
	decoded []atomic.Pointer[fileCache]
	warm    atomic.Int64
	// refs maps the functions decoded to their Ref (refs.go); gen is the
	// store's generation.
	refs sync.Map // *cscan.Func -> Ref
	gen  string
	// funcs caches Funcs answers of the view, assignCache its AssignsTo
	// ("m:" + member) and AssignsOf ("f:" + function) answers; sites
	// caches a base index's call sites of a callee ("c:" + name) or of a
	// member ("m:" + member) (callers.go).
	funcs, assignCache, sites sync.Map // string -> []*cscan.Func, []Assign, []CallSite

	// byName are the functions of an overlay's rescanned files.
	byName map[string][]*cscan.Func

	// base and over are set for overlays: over holds the rescanned files
	// (nil value for a deleted file), and src their content.
	base *Index
	over map[string]*cscan.File
	src  map[string][]byte
	// parent is the view Overlay was called on (the pre-patch view).
	parent *Index

	log *slog.Logger

	// overAssigns are the member assignments of an overlay's rescanned
	// files.
	overAssignsOnce sync.Once
	overAssigns     *assignTable

	// pageCache is the page budget of each file (Options.PageCache,
	// resolved); sides are the side files opened, whose pages Release
	// drops too.
	pageCache int64
	sides     []weak.Pointer[pager]

	mu sync.Mutex
	// full holds the files and functions re-parsed with bodies (Full),
	// lines the line indexes of the files read for it.
	full  fullCache
	lines lineCache
	// text holds the files Text read from disk (text.go).
	text textCache
	memo map[string]any
}

// Open indexes every *.c and *.h file under root. With a cache directory
// the index is a store file there (store.go), opened in place when it
// matches the tree; files whose content changed are rescanned and the
// store is rewritten.
func Open(ctx context.Context, root string, opts Options) (*Index, error) {
	start := time.Now()
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
	entries = sortEntries(entries)
	cacheFile := ""
	if dir, err := CacheDirFor(opts.CacheDir); err == nil && dir != "" {
		cacheFile = filepath.Join(dir, cacheName(abs))
	}
	ix := &Index{Root: abs, log: log, gen: entriesDigest(entries), pageCache: opts.PageCache}
	if ix.pageCache == 0 {
		ix.pageCache = DefaultPageCache
	}
	ix.Stats.CacheFile = cacheFile
	var old *store
	locked := false
	if cacheFile != "" {
		// Processes indexing the same tree at once (parallel test
		// packages, a daemon and a CLI) take turns: the second one finds
		// the store the first one wrote.
		if unlock, err := flock.Lock(ctx, cacheFile+".lock"); err == nil {
			defer unlock()
			locked = true
		} else {
			log.Warn("index cache lock", "err", err)
		}
		old, err = openStore(cacheFile, ix.pageCache)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			log.Warn("index cache unreadable, rescanning", "file", cacheFile, "err", err)
		}
	}
	if old != nil && old.matches(entries) {
		ix.setStore(old)
		ix.Stats.Cached = len(entries)
		if opts.Progress != nil {
			opts.Progress(len(entries), len(entries))
		}
	} else {
		if locked {
			removeStaleTemps(cacheFile, log)
		}
		if old != nil {
			// Rebuilding reads every record: read the old store at once.
			old = nil
			if b, err := os.ReadFile(cacheFile); err == nil {
				old, _ = openStoreBytes(b)
			}
		}
		st, err := build(ctx, abs, entries, old, cacheFile, ix.pageCache, opts, log, &ix.Stats)
		if err != nil {
			return nil, fmt.Errorf("index %s: %w", root, err)
		}
		ix.setStore(st)
	}
	if cacheFile != "" {
		if _, err := os.Stat(cacheFile); err == nil {
			if err := writeRoot(cacheFile, abs); err != nil {
				log.Warn("index cache: tree name not written", "err", err)
			}
		}
	}
	ix.Stats.Duration = time.Since(start)
	log.Info("index ready", "root", abs, "files", ix.Stats.Files, "funcs", ix.Stats.Funcs,
		"scanned", ix.Stats.Scanned, "cached", ix.Stats.Cached, "took", ix.Stats.Duration)
	return ix, nil
}

// setStore makes st the store of base index ix.
func (ix *Index) setStore(st *store) {
	ix.st = st
	ix.decoded = make([]atomic.Pointer[fileCache], st.nFiles)
	ix.Stats.Files, ix.Stats.Funcs, ix.Stats.Calls, ix.Stats.Skipped = st.nFiles, st.nFuncs, st.nCalls, st.nSkipped
}

// build scans the files of entries that old (may be nil) lacks, in
// parallel, takes the others from old, and writes the store to cacheFile
// (kept in memory when "" or unwritable). The scans are streamed through
// temporary files (storebuild.go), never all held at once; the store
// replaces cacheFile whole or not at all.
func build(ctx context.Context, abs string, entries []fileEntry, old *store, cacheFile string, pageCache int64, opts Options, log *slog.Logger, stats *Stats) (*store, error) {
	oldKeys := map[string]int{}
	if old != nil {
		for i := 0; i < old.nFiles; i++ {
			oldKeys[old.strs.str(old.file(i).key)] = i
		}
	}
	var done, hits atomic.Int64
	sb := &streamBuild{entries: entries, workers: opts.Workers, log: log}
	if opts.Progress != nil {
		sb.done = func() {
			if n := done.Add(1); n%256 == 0 || int(n) == len(entries) {
				opts.Progress(int(n), len(entries))
			}
		}
	}
	sb.src = func(i int) (*cscan.File, []Assign) {
		e := entries[i]
		if k, ok := oldKeys[e.key]; ok {
			if f, as := decodeRecord(old.record(k), &old.strs, e.path, true); f != nil {
				hits.Add(1)
				return f, as
			}
		}
		src, err := os.ReadFile(filepath.Join(abs, e.path))
		if err != nil {
			// A file that vanished or is unreadable is skipped.
			return &cscan.File{Path: e.path, Skipped: []cscan.Skip{{Line: 1, Reason: fmt.Sprintf("unreadable: %v", err)}}}, nil
		}
		return cscan.ScanFile(e.path, src), ScanAssigns("", src)
	}
	// The second pass and the write are a stage of their own (one unit
	// per file, and one for the write), after the scans' Progress.
	var pr *stageprogress.Counter
	defer func() { pr.Done() }()
	sb.second = func() { pr = stageprogress.Start(ctx, stageprogress.IndexWrite, len(entries)+1) }
	sb.encoded = func() { pr.Add(1) }
	if cacheFile != "" {
		sb.tmpDir = filepath.Dir(cacheFile)
		if err := os.MkdirAll(sb.tmpDir, 0o755); err != nil {
			sb.tmpDir = ""
		}
	}
	built, err := sb.run(ctx)
	if err != nil {
		return nil, err
	}
	defer built.close()
	stats.Cached = int(hits.Load())
	stats.Scanned = len(entries) - stats.Cached
	if cacheFile != "" {
		if err := WriteFile(cacheFile, func(w *bufio.Writer) error { return built.writeTo(w) }); err != nil {
			log.Warn("index cache not written", "file", cacheFile, "err", err)
		} else if st, err := openStore(cacheFile, pageCache); err == nil {
			pruneOld(cacheFile, log)
			return st, nil
		} else {
			log.Warn("index cache not readable after writing", "file", cacheFile, "err", err)
		}
	}
	var buf bytes.Buffer
	if err := built.writeTo(&buf); err != nil {
		return nil, err
	}
	return openStoreBytes(buf.Bytes())
}

// matches reports whether the store indexes exactly entries.
func (s *store) matches(entries []fileEntry) bool {
	if s.nFiles != len(entries) {
		return false
	}
	// The file table and its strings (the first of the string table) are
	// read whole: one read each.
	s.sec[secFiles].prefetch(0, s.sec[secFiles].len())
	var top uint32
	for i := range entries {
		r := s.file(i)
		top = max(top, r.path, r.key)
	}
	s.strs.off.prefetch(0, int64(top+1)*4)
	s.strs.blob.prefetch(0, int64(s.strs.off.u32(int64(top)*4)))
	for i, e := range entries {
		r := s.file(i)
		if s.strs.str(r.path) != e.path || s.strs.str(r.key) != e.key {
			return false
		}
	}
	return true
}

// sortEntries orders entries by path, one per path (the last listed wins).
func sortEntries(entries []fileEntry) []fileEntry {
	sort.SliceStable(entries, func(i, j int) bool { return entries[i].path < entries[j].path })
	out := entries[:0]
	for _, e := range entries {
		if n := len(out); n > 0 && out[n-1].path == e.path {
			out[n-1] = e
			continue
		}
		out = append(out, e)
	}
	return out
}

// fileCache is what was decoded of one file of the store.
type fileCache struct {
	funcs []atomic.Pointer[cscan.Func]
	file  atomic.Pointer[cscan.File]
}

// cacheOf returns the decode cache of file i, nil when i is out of range
// or its record is damaged.
func (ix *Index) cacheOf(i int) *fileCache {
	if i < 0 || i >= len(ix.decoded) {
		return nil
	}
	if c := ix.decoded[i].Load(); c != nil {
		return c
	}
	n, _, ok := recordFuncs(ix.st.record(i))
	if !ok {
		return nil
	}
	c := &fileCache{funcs: make([]atomic.Pointer[cscan.Func], n)}
	if !ix.decoded[i].CompareAndSwap(nil, c) {
		c = ix.decoded[i].Load()
	}
	return c
}

// funcAt returns function j of file i, decoding it once; nil when out of
// range or damaged.
func (ix *Index) funcAt(i, j int) *cscan.Func {
	c := ix.cacheOf(i)
	if c == nil || j < 0 || j >= len(c.funcs) {
		return nil
	}
	if fn := c.funcs[j].Load(); fn != nil {
		return fn
	}
	fn := decodeFunc(ix.st.record(i), &ix.st.strs, ix.st.path(i), j)
	if fn == nil {
		return nil
	}
	if c.funcs[j].CompareAndSwap(nil, fn) {
		ix.refs.Store(fn, MakeRef(i, j))
		ix.warm.Add(1)
		return fn
	}
	return c.funcs[j].Load()
}

// fileAt returns file i of the store with every function decoded (the
// same values funcAt returns); nil when out of range.
func (ix *Index) fileAt(i int) *cscan.File {
	if i < 0 || i >= len(ix.decoded) {
		return nil
	}
	path := ix.st.path(i)
	c := ix.cacheOf(i)
	if c == nil {
		return &cscan.File{Path: path, Skipped: []cscan.Skip{{Line: 1, Reason: "damaged index record"}}}
	}
	if f := c.file.Load(); f != nil {
		return f
	}
	f := &cscan.File{Path: path, Funcs: make([]*cscan.Func, 0, len(c.funcs))}
	for j := range c.funcs {
		if fn := ix.funcAt(i, j); fn != nil {
			f.Funcs = append(f.Funcs, fn)
		}
	}
	skips, _, ok := decodeTail(ix.st.record(i), &ix.st.strs, false)
	if !ok || len(f.Funcs) < len(c.funcs) {
		skips = append(skips, cscan.Skip{Line: 1, Reason: "damaged index record"})
	}
	f.Skipped = skips
	if !c.file.CompareAndSwap(nil, f) {
		f = c.file.Load()
	}
	return f
}

// Warm returns the number of functions of the tree decoded so far and the
// bytes of the store's pages cached now: what Release frees (the pages
// stay within Options.PageCache).
func (ix *Index) Warm() (funcs int, storeBytes int64) {
	b := ix.root()
	return int(b.warm.Load()), b.st.p.stats().Held
}

// PageCache returns the page budget of each file the underlying index
// reads, in bytes (Options.PageCache; negative: none).
func (ix *Index) PageCache() int64 { return ix.root().pageCache }

// Pages returns the page counts of the underlying index's store and of the
// side files opened on it (Index.OpenSide) that are still in use.
func (ix *Index) Pages() PageStats {
	b := ix.root()
	s := b.st.p.stats()
	for _, p := range b.sidePagers() {
		s = s.add(p.stats())
	}
	return s
}

// sidePagers returns the pagers of the side files opened on ix that are
// still reachable, forgetting the others.
func (ix *Index) sidePagers() []*pager {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	var out []*pager
	live := ix.sides[:0]
	for _, w := range ix.sides {
		if p := w.Value(); p != nil {
			out = append(out, p)
			live = append(live, w)
		}
	}
	clear(ix.sides[len(live):])
	ix.sides = live
	return out
}

// Release drops everything the underlying index decoded, memoised or
// cached (files, Funcs answers, re-parsed bodies, Memo values, the pages of
// its store and of its side files): memory stays bounded by what the work
// between two Release calls touches. Functions decoded later are new
// values, so call it only between units of work that share no *cscan.Func
// or memoised value (for example between two series of a daemon, when
// Warm is above its budget), never while a query runs.
func (ix *Index) Release() {
	b := ix.root()
	for i := range b.decoded {
		b.decoded[i].Store(nil)
	}
	b.warm.Store(0)
	b.refs.Clear()
	b.funcs.Clear()
	b.assignCache.Clear()
	b.sites.Clear()
	b.st.p.drop()
	for _, p := range b.sidePagers() {
		p.drop()
	}
	b.mu.Lock()
	b.full, b.lines, b.text, b.memo = fullCache{}, lineCache{}, textCache{}, nil
	b.mu.Unlock()
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
		return ix.baseFuncs(name)
	}
	// An overlay's answers are cached in the overlay.
	if v, ok := ix.funcs.Load(name); ok {
		return v.([]*cscan.Func)
	}
	var out []*cscan.Func
	for _, fn := range ix.base.baseFuncs(name) {
		if _, ok := ix.over[fn.File]; !ok {
			out = append(out, fn)
		}
	}
	out = append(out, ix.byName[name]...)
	if len(out) > 1 {
		sortFuncs(out)
	}
	// Cached answers are shared: an append by a caller must copy.
	v, _ := ix.funcs.LoadOrStore(name, out[:len(out):len(out)])
	return v.([]*cscan.Func)
}

// baseFuncs answers Funcs for a base index.
func (ix *Index) baseFuncs(name string) []*cscan.Func {
	if v, ok := ix.funcs.Load(name); ok {
		return v.([]*cscan.Func)
	}
	var out []*cscan.Func
	for _, r := range ix.st.funcRefs(name) {
		if fn := ix.funcAt(r.file, r.fn); fn != nil && fn.Name == name {
			out = append(out, fn)
		}
	}
	if len(out) > 1 {
		sortFuncs(out)
	}
	v, _ := ix.funcs.LoadOrStore(name, out[:len(out):len(out)])
	return v.([]*cscan.Func)
}

// File returns the scan of one file (nil when not indexed).
func (ix *Index) File(path string) *cscan.File {
	path = cleanRel(path)
	if ix.base != nil {
		if f, ok := ix.over[path]; ok {
			return f
		}
		ix = ix.base
	}
	return ix.fileAt(ix.st.findFile(path))
}

// Paths returns every indexed file path, sorted.
func (ix *Index) Paths() []string {
	b := ix.root()
	var out []string
	for i := 0; i < b.st.nFiles; i++ {
		p := b.st.path(i)
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
	b, disk, err := ix.source(path)
	if err != nil || disk == "" {
		return b, err
	}
	return os.ReadFile(disk)
}

// source finds path in the view: the patch's text of a file it rescans
// (an error for one it deletes), else the file on disk to read.
func (ix *Index) source(path string) (text []byte, disk string, err error) {
	path = cleanRel(path)
	if path == "" {
		return nil, "", fmt.Errorf("bad path")
	}
	if b, ok := ix.src[path]; ok {
		if b == nil {
			return nil, "", fmt.Errorf("%s: deleted by the patch: %w", path, os.ErrNotExist)
		}
		return b, "", nil
	}
	return nil, filepath.Join(ix.root().Root, path), nil
}

// Full returns fn with its statement tree (Body), re-parsing its file when
// the index holds it without bodies. It returns fn itself when it already
// has a body, and nil when the file cannot be read or no longer holds fn.
// A function of the store is re-parsed alone when it can be (fullfunc.go).
func (ix *Index) Full(fn *cscan.Func) *cscan.Func {
	if fn == nil {
		return nil
	}
	if fn.Body != nil {
		return fn
	}
	if _, ok := ix.over[fn.File]; !ok {
		if g := ix.root().fullFunc(fn); g != nil {
			return g
		}
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
	if f, ok := b.full.get(path); ok {
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
	return b.full.put(path, f, int64(len(src)))
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
