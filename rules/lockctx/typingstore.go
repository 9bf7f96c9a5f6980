package lockctx

import (
	"context"
	"fmt"
	"log/slog"
	"runtime"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/autosel-bot/autosel-bot/index"
	"github.com/autosel-bot/autosel-bot/internal/flock"
)

// The typing store: what the struct typing (structs.go) reads of every
// header a caller's file includes, derived once per tree state by Prepare
// and stored beside the index, so that a patch's analysis reads the few
// hundred files it types through instead of reading and parsing them.
// One record per indexed file, in an index side file keyed by the file's
// number (index.MakeRef(file, 0)): the file's #include directives and its
// struct definitions (parseStructs). It belongs to one index generation,
// like the summaries, and does not depend on the model. Files a patch
// overlays, files outside the index and trees without a store are read
// and parsed as before.

// typingVersion changes whenever what a typing record holds or how it is
// derived (parseStructs, includeDirectives) does: a store of another
// version is not read.
const typingVersion = 1

// typingKind is the side file kind of the typing store.
var typingKind = fmt.Sprintf("typing-v%d", typingVersion)

// typingFormat is a typing record's first byte: a record that does not
// start with it is not one (an empty side file record, or damage).
const typingFormat = 1

// fileTyping is what the struct typing needs of one file: its #include
// directives (delimiter '"' or '<', and the name between the delimiters,
// in file order) and its struct definitions.
type fileTyping struct {
	delims  []byte
	names   []string
	structs structMembers
}

// deriveTyping computes the typing of a file's text.
func deriveTyping(src string) *fileTyping {
	delims, names := includeDirectives(src)
	return &fileTyping{delims: delims, names: names, structs: parseStructs(src)}
}

// encodeTyping encodes t: the format byte, the directives, then the
// structs by tag and their members by name, both sorted so that equal
// typings encode to equal bytes.
func encodeTyping(t *fileTyping) []byte {
	e := &sumEncoder{buf: []byte{typingFormat}}
	e.u(uint64(len(t.names)))
	for i, n := range t.names {
		e.buf = append(e.buf, t.delims[i])
		e.s(n)
	}
	tags := make([]string, 0, len(t.structs))
	for tag := range t.structs {
		tags = append(tags, tag)
	}
	sort.Strings(tags)
	e.u(uint64(len(tags)))
	var names []string
	for _, tag := range tags {
		ms := t.structs[tag]
		e.s(tag)
		names = names[:0]
		for m := range ms {
			names = append(names, m)
		}
		sort.Strings(names)
		e.u(uint64(len(names)))
		for _, m := range names {
			e.s(m)
			e.s(ms[m])
		}
	}
	return e.buf
}

// decodeTyping decodes what encodeTyping wrote; ok is false for anything
// else (a wrong format byte, a bad delimiter, trailing or missing bytes).
func decodeTyping(b []byte) (t *fileTyping, ok bool) {
	if len(b) == 0 || b[0] != typingFormat {
		return nil, false
	}
	d := &sumDecoder{b: b[1:]}
	t = &fileTyping{structs: structMembers{}}
	n := d.count()
	for i := 0; i < n && !d.bad; i++ {
		if len(d.b) == 0 || (d.b[0] != '"' && d.b[0] != '<') {
			return nil, false
		}
		t.delims = append(t.delims, d.b[0])
		d.b = d.b[1:]
		t.names = append(t.names, d.s())
	}
	n = d.count()
	for i := 0; i < n && !d.bad; i++ {
		tag := d.s()
		k := d.count()
		ms := make(map[string]string, k)
		for j := 0; j < k && !d.bad; j++ {
			m := d.s()
			ms[m] = d.s()
		}
		t.structs[tag] = ms
	}
	if d.bad || len(d.b) != 0 {
		return nil, false
	}
	return t, true
}

// typingHolder is a tree index's typing store, opened on first use (and
// again by prepareTyping once it wrote it).
type typingHolder struct {
	mu    sync.Mutex
	tried bool
	f     *index.SideFile
}

// typingHolderOf returns the typing holder of ix's underlying index.
func typingHolderOf(ix *index.Index) *typingHolder {
	return ix.Underlying().Memo("lockctx.typing", func() any { return &typingHolder{} }).(*typingHolder)
}

// side returns the typing side file of root, opening it on first use (nil
// when there is none of root's generation).
func (h *typingHolder) side(root *index.Index) *index.SideFile {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.tried {
		h.tried = true
		if path := root.SideName(typingKind); path != "" {
			if f, err := index.OpenSide(path, root.Generation()); err == nil {
				h.f = f
			}
		}
	}
	return h.f
}

// storedTyping returns the stored typing of a tree file the view does not
// overlay, decoded once per underlying index; ok is false when it has
// none (no store, a file outside the index, an overlaid file).
func (r *Resolver) storedTyping(file string) (*fileTyping, bool) {
	if r.ix == nil || r.ix.Overlaid(file) {
		return nil, false
	}
	root := r.ix.Underlying()
	t := root.Memo("lockctx.typing."+file, func() any {
		f := typingHolderOf(root).side(root)
		if f == nil {
			return (*fileTyping)(nil)
		}
		i, ok := root.FileNum(file)
		if !ok {
			return (*fileTyping)(nil)
		}
		t, ok := decodeTyping(f.Get(index.MakeRef(i, 0)))
		if !ok {
			return (*fileTyping)(nil)
		}
		return t
	}).(*fileTyping)
	return t, t != nil
}

// prepareTyping derives the typing of every file of root's tree and
// stores it beside the index, unless it is there already for the tree's
// current generation; nothing for an index kept in memory only (the
// typing is then computed per file on use, as without a store).
// Processes preparing the same tree take turns.
func prepareTyping(ctx context.Context, root *index.Index, log *slog.Logger) error {
	h := typingHolderOf(root)
	if h.side(root) != nil {
		return nil
	}
	path := root.SideName(typingKind)
	if path == "" {
		return nil
	}
	unlock, err := flock.Lock(ctx, path+".lock")
	if err != nil {
		return fmt.Errorf("typing %s: %w", path, err)
	}
	defer unlock()
	if _, err := index.OpenSide(path, root.Generation()); err != nil {
		start := time.Now()
		recs, err := deriveAllTyping(ctx, root)
		if err != nil {
			return err
		}
		var size int
		for _, r := range recs {
			size += len(r)
		}
		if err := index.WriteSide(path, root.Generation(), root.NumFiles(), func(i int) [][]byte {
			if recs[i] == nil {
				return nil
			}
			return [][]byte{recs[i]}
		}); err != nil {
			return fmt.Errorf("typing %s: %w", path, err)
		}
		log.Info("struct typing stored", "file", path, "files", len(recs), "bytes", size, "took", time.Since(start))
	}
	h.mu.Lock()
	h.tried = false
	h.mu.Unlock()
	if h.side(root) == nil {
		return fmt.Errorf("typing %s: not readable after writing", path)
	}
	return nil
}

// deriveAllTyping reads and derives the typing of every file of root's
// store in parallel: the encoded record by file number, nil for a file
// that could not be read.
func deriveAllTyping(ctx context.Context, root *index.Index) ([][]byte, error) {
	paths := make([]string, root.NumFiles())
	for _, p := range root.Paths() {
		if i, ok := root.FileNum(p); ok && i < len(paths) {
			paths[i] = p
		}
	}
	recs := make([][]byte, len(paths))
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= len(paths) || ctx.Err() != nil {
					return
				}
				if paths[i] == "" {
					continue
				}
				src, err := root.ReadFile(paths[i])
				if err != nil {
					continue
				}
				recs[i] = encodeTyping(deriveTyping(string(src)))
			}
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return recs, nil
}
