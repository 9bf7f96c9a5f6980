package typing

import (
	"context"
	"fmt"
	"log/slog"
	"sort"
	"sync"
	"time"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/index"
	"github.com/autosel-bot/autosel-bot/internal/flock"
	"github.com/autosel-bot/autosel-bot/internal/par"
	"github.com/autosel-bot/autosel-bot/internal/stageprogress"
	"github.com/autosel-bot/autosel-bot/rules/lockctx/ctype"
	"github.com/autosel-bot/autosel-bot/rules/lockctx/wire"
)

// The typing store: what the struct typing (structs.go) reads of every
// header a caller's file includes, derived once per tree state by Prepare
// and stored beside the index, so that a patch's analysis reads the few
// hundred files it types through instead of reading and parsing them.
// One record per indexed file, in an index side file keyed by the file's
// number (index.MakeRef(file, 0)): the file's #include directives and its
// struct definitions (ctype.ParseStructs). Beside it, one record per function
// (keyed by its index.Ref): the struct tags of the names it declares,
// which BaseTag otherwise reads the caller's whole file for, for every
// call site through a member name tree-wide. Both belong to one index
// generation, like the summaries, and do not depend on the model. Files a
// patch overlays, files outside the index and trees without a store are
// read and parsed as before.

// typingVersion changes whenever what a typing or declarations record
// holds or how it is derived (ctype.ParseStructs, ctype.IncludeDirectives,
// declTagsIn) does: a store of another version is not read.
const typingVersion = 3

// typingKind is the side file kind of the typing store; declsKind that of
// the declarations store beside it: one record per function, the struct
// tags of the names it declares (declTagsIn), what BaseTag otherwise
// reads the caller's file for.
var (
	typingKind = fmt.Sprintf("typing-v%d", typingVersion)
	declsKind  = fmt.Sprintf("decls-v%d", typingVersion)
)

// typingFormat is a typing record's first byte: a record that does not
// start with it is not one (an empty side file record, or damage).
const typingFormat = 1

// fileTyping is what the struct typing needs of one file: its #include
// directives (delimiter '"' or '<', and the name between the delimiters,
// in file order) and its struct definitions.
type fileTyping struct {
	delims  []byte
	names   []string
	structs ctype.Structs
}

// deriveTyping computes the typing of a file's text.
func deriveTyping(src string) *fileTyping {
	delims, names := ctype.IncludeDirectives(src)
	return &fileTyping{delims: delims, names: names, structs: ctype.ParseStructs(src)}
}

// encodeTyping encodes t: the format byte, the directives, then the
// structs by tag and their members by name, both sorted so that equal
// typings encode to equal bytes.
func encodeTyping(t *fileTyping) []byte {
	e := &wire.Encoder{Buf: []byte{typingFormat}}
	e.U(uint64(len(t.names)))
	for i, n := range t.names {
		e.Buf = append(e.Buf, t.delims[i])
		e.S(n)
	}
	tags := make([]string, 0, len(t.structs))
	for tag := range t.structs {
		tags = append(tags, tag)
	}
	sort.Strings(tags)
	e.U(uint64(len(tags)))
	for _, tag := range tags {
		e.S(tag)
		e.StringMap(t.structs[tag])
	}
	return e.Buf
}

// decodeTyping decodes what encodeTyping wrote; ok is false for anything
// else (a wrong format byte, a bad delimiter, trailing or missing bytes).
func decodeTyping(b []byte) (t *fileTyping, ok bool) {
	if len(b) == 0 || b[0] != typingFormat {
		return nil, false
	}
	d := &wire.Decoder{B: b[1:]}
	t = &fileTyping{structs: ctype.Structs{}}
	n := d.Count()
	for i := 0; i < n && !d.Bad; i++ {
		if len(d.B) == 0 || (d.B[0] != '"' && d.B[0] != '<') {
			return nil, false
		}
		t.delims = append(t.delims, d.B[0])
		d.B = d.B[1:]
		t.names = append(t.names, d.S())
	}
	n = d.Count()
	for i := 0; i < n && !d.Bad; i++ {
		tag := d.S()
		t.structs[tag] = d.StringMap()
	}
	if d.Bad || len(d.B) != 0 {
		return nil, false
	}
	return t, true
}

// sideHolder is a tree index's side file of one kind, opened on first use
// (and again by Prepare once it wrote it).
type sideHolder struct {
	kind  string
	mu    sync.Mutex
	tried bool
	f     *index.SideFile
}

// sideHolderOf returns the holder of the side file kind of ix's
// underlying index.
func sideHolderOf(ix *index.Index, kind string) *sideHolder {
	return ix.Underlying().Memo("lockctx.side."+kind, func() any { return &sideHolder{kind: kind} }).(*sideHolder)
}

// side returns the side file of root, opening it on first use (nil when
// there is none of root's generation).
func (h *sideHolder) side(root *index.Index) *index.SideFile {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.tried {
		h.tried = true
		if path := root.SideName(h.kind); path != "" {
			if f, err := root.OpenSide(path); err == nil {
				h.f = f
			}
		}
	}
	return h.f
}

// reopen forgets a failed open.
func (h *sideHolder) reopen() {
	h.mu.Lock()
	h.tried = false
	h.mu.Unlock()
}

// storedTyping returns the stored typing of a tree file the view does not
// overlay, decoded once per underlying index; ok is false when it has
// none (no store, a file outside the index, an overlaid file).
func (ty *Typer) storedTyping(file string) (*fileTyping, bool) {
	if ty.ix == nil || ty.ix.Overlaid(file) {
		return nil, false
	}
	root := ty.ix.Underlying()
	t := root.Memo("lockctx.typing."+file, func() any {
		f := sideHolderOf(root, typingKind).side(root)
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

// storedDecls returns the stored declarations of fn, a function of the
// tree in a file the view does not overlay (empty for a function whose
// lines are out of its file's, as declTagsIn's nil); ok is false when
// there are none (no store, a function of the patch).
func (ty *Typer) storedDecls(fn *cscan.Func) (map[string]string, bool) {
	if ty.ix == nil || ty.ix.Overlaid(fn.File) {
		return nil, false
	}
	ref, ok := ty.ix.RefOf(fn)
	if !ok {
		return nil, false
	}
	root := ty.ix.Underlying()
	f := sideHolderOf(root, declsKind).side(root)
	if f == nil {
		return nil, false
	}
	return decodeDecls(f.Get(ref))
}

// encodeDecls encodes the declarations of a function: the format byte,
// then the names, sorted, each with its tag; nil is written as empty (both
// answer "" for every name).
func encodeDecls(tags map[string]string) []byte {
	e := &wire.Encoder{Buf: []byte{typingFormat}}
	e.StringMap(tags)
	return e.Buf
}

// decodeDecls decodes what encodeDecls wrote; ok is false for anything
// else.
func decodeDecls(b []byte) (tags map[string]string, ok bool) {
	if len(b) == 0 || b[0] != typingFormat {
		return nil, false
	}
	d := &wire.Decoder{B: b[1:]}
	tags = d.StringMap()
	if d.Bad || len(d.B) != 0 {
		return nil, false
	}
	return tags, true
}

// Prepare derives the typing of every file of root's tree and the
// declarations of every function, and stores them beside the index,
// unless they are there already for the tree's current generation;
// nothing for an index kept in memory only (both are then computed on
// use, as without a store). Processes preparing the same tree take turns.
func Prepare(ctx context.Context, root *index.Index, log *slog.Logger) error {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	typing, decls := sideHolderOf(root, typingKind), sideHolderOf(root, declsKind)
	if typing.side(root) != nil && decls.side(root) != nil {
		return nil
	}
	path, dpath := root.SideName(typingKind), root.SideName(declsKind)
	if path == "" || dpath == "" {
		return nil
	}
	unlock, err := flock.Lock(ctx, path+".lock")
	if err != nil {
		return fmt.Errorf("typing %s: %w", path, err)
	}
	defer unlock()
	_, terr := index.OpenSide(path, root.Generation())
	_, derr := index.OpenSide(dpath, root.Generation())
	if terr != nil || derr != nil {
		start := time.Now()
		// An Index of its own: the pages of every function read are
		// dropped with it.
		own, err := index.Open(ctx, root.Root, index.Options{CacheDir: root.CacheDir()})
		if err != nil {
			return fmt.Errorf("typing: %w", err)
		}
		if own.Generation() != root.Generation() {
			return fmt.Errorf("typing %s: the tree changed while preparing", path)
		}
		recs, drecs, err := deriveAllTyping(ctx, own)
		if err != nil {
			return err
		}
		var size, dsize int
		for i, r := range recs {
			size += len(r)
			for _, d := range drecs[i] {
				dsize += len(d)
			}
		}
		// Either file missing or stale rewrites both.
		if err := index.WriteSide(dpath, own.Generation(), own.NumFiles(), func(i int) [][]byte { return drecs[i] }); err != nil {
			return fmt.Errorf("typing %s: %w", dpath, err)
		}
		if err := index.WriteSide(path, own.Generation(), own.NumFiles(), func(i int) [][]byte {
			if recs[i] == nil {
				return nil
			}
			return [][]byte{recs[i]}
		}); err != nil {
			return fmt.Errorf("typing %s: %w", path, err)
		}
		log.Info("struct typing stored", "file", path, "files", len(recs), "bytes", size, "decls-bytes", dsize, "took", time.Since(start))
		for _, kind := range []string{typingKind, declsKind} {
			if left, err := root.PruneOlderSides(kind); err != nil {
				log.Warn("old typing not removed", "files", left, "err", err)
			}
		}
	}
	typing.reopen()
	decls.reopen()
	if typing.side(root) == nil || decls.side(root) == nil {
		return fmt.Errorf("typing %s: not readable after writing", path)
	}
	return nil
}

// deriveAllTyping reads every file of ix's store and derives its typing
// and its functions' declarations, in parallel: the encoded typing record
// by file number (nil for a file that could not be read) and the encoded
// declarations by file number and function position. It reads only the
// functions' lines from the store (FuncLines), so nothing is decoded and
// kept, but the pages read stay with ix: pass an Index of its own.
func deriveAllTyping(ctx context.Context, ix *index.Index) ([][]byte, [][][]byte, error) {
	paths := make([]string, ix.NumFiles())
	for _, p := range ix.Paths() {
		if i, ok := ix.FileNum(p); ok && i < len(paths) {
			paths[i] = p
		}
	}
	recs := make([][]byte, len(paths))
	decls := make([][][]byte, len(paths))
	derive := func(i int) {
		src, err := ix.ReadFile(paths[i])
		if err != nil {
			return
		}
		text := string(src)
		recs[i] = encodeTyping(deriveTyping(text))
		refs := ix.FileRefs(i)
		if len(refs) == 0 {
			return
		}
		lines := NewLines(text)
		decls[i] = make([][]byte, len(refs))
		for j, ref := range refs {
			if start, end, ok := ix.FuncLines(ref); ok {
				decls[i][j] = encodeDecls(declTagsIn(lines, start-1, end))
			}
		}
	}
	pr := stageprogress.Start(ctx, stageprogress.Typing, len(paths))
	par.Each(len(paths), func(i int) {
		if paths[i] != "" && ctx.Err() == nil {
			derive(i)
		}
		pr.Add(1)
	})
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	pr.Done()
	return recs, decls, nil
}
