package sumstore

import (
	"bufio"
	"context"
	"encoding/gob"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/autosel-bot/autosel-bot/index"
	"github.com/autosel-bot/autosel-bot/internal/flock"
	"github.com/autosel-bot/autosel-bot/internal/stageprogress"
	"github.com/autosel-bot/autosel-bot/rules/lockctx/registrations"
	"github.com/autosel-bot/autosel-bot/rules/lockctx/summary"
	"github.com/autosel-bot/autosel-bot/rules/lockctx/wire"
)

// prepareFiles is how many files Prepare summarises between two releases
// of what its index decoded, bounding its memory.
const prepareFiles = 6000

// Summariser is the engine as Prepare drives it.
type Summariser struct {
	// ID names the model (lockctx's tables and target, hashed): each has
	// a store of its own.
	ID string
	// Engine returns an engine over ix whose summaries record into b:
	// Prepare asks it for the summary of every function of the tree.
	Engine func(ix *index.Index, b *Builder) Engine
	// Window is how many files one engine summarises before the next
	// takes over (0: prepareFiles); a stopped Prepare resumes at a
	// window's start.
	Window int
	// Rows returns the callback rows with the registration wrappers
	// derived from ix's tree (registrations.DeriveRows), stored beside
	// the summaries.
	Rows func(ix *index.Index) []registrations.Callback
	// Regs, when not nil, returns the tree's registrations over ix for
	// the rows Rows gave (registrations.Table.StoreTree), stored beside
	// them; ok is false when there are none to store.
	Regs func(ix *index.Index, rows []registrations.Callback) (regs registrations.StoredRegs, ok bool)
}

// Prepare summarises every function of ix's tree with sm and stores the
// summaries (Open finds them), unless they are there already for the
// tree's current generation. For a persisted index they are written
// beside it, computed on an Index of their own (so the caller's is never
// released under its feet), and processes preparing the same tree take
// turns; otherwise they are kept in ix's memory.
func Prepare(ctx context.Context, ix *index.Index, sm Summariser, log *slog.Logger) error {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	root := ix.Underlying()
	path := root.SideName(summaryKind(sm.ID))
	if Open(root, sm.ID) != nil {
		if path != "" {
			// A Prepare killed between writing the store and removing
			// its partial file left that behind.
			_ = removePartial(path)
		}
		return nil
	}
	if path == "" {
		pr := stageprogress.Start(ctx, stageprogress.Summaries, root.NumFiles()+1)
		defer pr.Done()
		b, err := summarise(ctx, sm, root, false, "", pr)
		if err != nil {
			return err
		}
		b.rdeps = nil // in the records now; the index keeps b
		h := root.Memo(memoKey(sm.ID), func() any { return &storeHolder{} }).(*storeHolder)
		h.mu.Lock()
		h.src = b
		h.mu.Unlock()
		return nil
	}
	unlock, err := flock.Lock(ctx, path+".lock")
	if err != nil {
		return fmt.Errorf("summaries %s: %w", path, err)
	}
	defer unlock()
	if Open(root, sm.ID) != nil {
		return nil
	}
	start := time.Now()
	log.Info("summarising the tree once", "root", root.Root)
	own, err := index.Open(ctx, root.Root, index.Options{CacheDir: root.CacheDir()})
	if err != nil {
		return fmt.Errorf("summaries: %w", err)
	}
	// The stage counts the files, and the write after them.
	pr := stageprogress.Start(ctx, stageprogress.Summaries, own.NumFiles()+1)
	b, err := summarise(ctx, sm, own, true, path, pr)
	if err != nil {
		pr.Done()
		return err
	}
	err = b.write(root, path)
	b.spill.close()
	pr.Done()
	if err != nil {
		return fmt.Errorf("summaries %s: %w", path, err)
	}
	if err := removePartial(path); err != nil {
		log.Warn("summaries checkpoint not removed", "err", err)
	}
	log.Info("summaries stored", "file", path, "funcs", b.funcs, "stored", b.stored(), "took", time.Since(start))
	// What older versions left is never read again (several hundred MB
	// for Linux); a newer version's stays, so that an older binary
	// sharing the cache directory does not make the newer one prepare
	// again.
	if left, err := root.PruneOlderSides(summaryKind(sm.ID)); err != nil {
		log.Warn("old summaries not removed", "files", left, "err", err)
	}
	return nil
}

// write writes b's files beside root's index, path the summaries' side
// file: the member index and the rows first, the side file last (it says
// the store is complete).
func (b *Builder) write(root *index.Index, path string) error {
	gen := b.ix.Generation()
	if err := writeMembers(membersPath(path), gen, b.members); err != nil {
		return err
	}
	if err := index.WriteFile(rowsPath(membersPath(path)), func(w *bufio.Writer) error {
		return gob.NewEncoder(w).Encode(registrations.NewStoredRows(gen, b.rows))
	}); err != nil {
		return err
	}
	if b.regsOK {
		b.regs.Generation = gen
		if err := index.WriteFile(regsPath(membersPath(path)), func(w *bufio.Writer) error {
			return gob.NewEncoder(w).Encode(b.regs)
		}); err != nil {
			return err
		}
	}
	if err := index.WriteSide(root.SideName(rdepsKind(b.id)), gen, b.ix.NumFiles(), b.rdepRecords); err != nil {
		return err
	}
	// The records are all read back before the side file is written: one
	// that cannot be makes no store.
	all := make([][][]byte, b.ix.NumFiles())
	for i := range all {
		all[i] = b.final(i)
	}
	if err := b.spill.readErr(); err != nil {
		return err
	}
	return index.WriteSide(path, gen, len(all), func(i int) [][]byte { return all[i] })
}

// summarise computes the records of every function of ix's tree, a
// window of files at a time (an engine each), counting the files in pr;
// release drops what ix decoded between them. With path (the store's
// side file) set it keeps what each window finished in the store's
// partial file and starts after the last window a stopped Prepare
// finished (resume.go).
func summarise(ctx context.Context, sm Summariser, ix *index.Index, release bool, path string, pr *stageprogress.Counter) (_ *Builder, err error) {
	b := &Builder{ix: ix, id: sm.ID, recs: make([][][]byte, ix.NumFiles())}
	defer func() {
		if err != nil {
			b.spill.close()
		}
	}()
	n, window := ix.NumFiles(), sm.window()
	start := 0
	var cp *checkpoint
	if path != "" {
		var err error
		if cp, start, err = b.resume(path, window); err != nil {
			return nil, err
		}
		defer cp.close()
		pr.Add(start)
	}
	for lo := start; lo < n; lo += window {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		e := sm.Engine(ix, b)
		for i := lo; i < min(n, lo+window); i++ {
			if i%256 == 0 {
				if err := ctx.Err(); err != nil {
					return nil, err
				}
			}
			for _, ref := range ix.FileRefs(i) {
				if fn := ix.FuncOf(ref); fn != nil {
					e.SummaryOf(fn)
					b.funcs++
				}
			}
			pr.Add(1)
		}
		if release {
			ix.Release()
		}
		if err := cp.mark(b, min(n, lo+window)); err != nil {
			return nil, err
		}
		if err := b.spill.readErr(); err != nil {
			return nil, err // the window read back what it could not
		}
	}
	b.finish()
	if err := b.spill.readErr(); err != nil {
		return nil, err
	}
	b.rows, b.rowsOK = sm.Rows(ix), true
	if sm.Regs != nil {
		b.regs, b.regsOK = sm.Regs(ix, b.rows)
	}
	return b, nil
}

// window returns how many files an engine of sm summarises.
func (sm Summariser) window() int {
	if sm.Window > 0 {
		return sm.Window
	}
	return prepareFiles
}

// Builder collects the records of a Prepare; its engines read it back
// (through a View) for the functions of files summarised earlier.
type Builder struct {
	ix    *index.Index
	id    string
	funcs int
	recs  [][][]byte // by file number, then function position
	// logged is set when the records put are kept in a partial file:
	// logRefs are those put since its last mark (resume.go).
	logged  bool
	logRefs []index.Ref
	// spill holds the records put before the last mark in the partial
	// file (spill.go); nil without a partial file (all in memory).
	spill *spillFile
	// rdeps are the reverse deps by file number and position, members
	// the member index and nstored the records with a summary, found by
	// finish; rows the derived callback rows.
	rdeps   [][][]index.Ref
	nstored int
	members map[string][]index.Ref
	rows    []registrations.Callback
	rowsOK  bool
	// regs are the tree's registrations (Summariser.Regs).
	regs   registrations.StoredRegs
	regsOK bool
}

func (b *Builder) wrapperRows() ([]registrations.Callback, bool) { return b.rows, b.rowsOK }

// treeRegs gives none: while the store is built, a table finds the
// tree's registrations itself.
func (b *Builder) treeRegs() (*registrations.StoredRegs, bool) { return nil, false }

// finish finds the reverse deps of every record, builds the member
// index and counts the records with a summary. Records held in memory
// get their reverse deps added; spilled ones get them as they are
// written (final).
func (b *Builder) finish() {
	b.rdeps = make([][][]index.Ref, len(b.recs))
	b.members = map[string][]index.Ref{}
	b.nstored = 0
	valid := make([][]bool, len(b.recs))
	for i, rs := range b.recs {
		valid[i] = make([]bool, len(rs))
		for j := range rs {
			ref := index.MakeRef(i, j)
			enc := b.get(ref)
			rec, ok := decodeRecordFull(enc)
			if !ok {
				continue
			}
			valid[i][j] = true
			if enc[0]&recHasSummary != 0 {
				b.nstored++
			}
			for _, d := range rec.deps {
				di, dj := d.File(), d.Pos()
				if di >= len(b.recs) || dj >= len(b.recs[di]) {
					continue
				}
				if b.rdeps[di] == nil {
					b.rdeps[di] = make([][]index.Ref, len(b.recs[di]))
				}
				b.rdeps[di][dj] = append(b.rdeps[di][dj], ref)
			}
			for _, m := range rec.members {
				b.members[m] = append(b.members[m], ref)
			}
		}
	}
	// A function without a record has no reverse deps either; the others'
	// are sorted, each once.
	for i, rds := range b.rdeps {
		for j := range rds {
			if !valid[i][j] {
				rds[j] = nil
			} else {
				slices.Sort(rds[j])
				rds[j] = slices.Compact(rds[j])
			}
		}
	}
	if b.spill != nil {
		return
	}
	for i, rs := range b.recs {
		for j, enc := range rs {
			if out, ok := b.withRdeps(i, j, enc); ok {
				b.recs[i][j] = out
			}
		}
	}
}

// withRdeps returns record enc of file i's function j with its reverse
// deps (finish found them) in place of those it has.
func (b *Builder) withRdeps(i, j int, enc []byte) ([]byte, bool) {
	rec, ok := decodeRecordFull(enc)
	if !ok {
		return nil, false
	}
	e := &recEncoder{Encoder: wire.Encoder{Buf: []byte{enc[0]}}}
	e.refs(rec.deps)
	e.refs(b.rdepsOf(i, j))
	e.U(uint64(len(rec.members)))
	for _, m := range rec.members {
		e.S(m)
	}
	return append(e.Buf, rec.rest...), true
}

// rdepsOf returns the reverse deps finish found for file i's function j.
func (b *Builder) rdepsOf(i, j int) []index.Ref {
	if b.rdeps[i] == nil {
		return nil
	}
	return b.rdeps[i][j]
}

// final returns the records of file i as the store holds them (with
// their reverse deps).
func (b *Builder) final(i int) [][]byte {
	if b.spill == nil {
		return b.recs[i]
	}
	out := make([][]byte, len(b.recs[i]))
	for j := range out {
		out[j], _ = b.withRdeps(i, j, b.get(index.MakeRef(i, j)))
	}
	return out
}

// rdepRecords returns the reverse deps of file i's records, encoded alone
// (the rdeps side file).
func (b *Builder) rdepRecords(i int) [][]byte {
	out := make([][]byte, len(b.recs[i]))
	for j := range out {
		e := &recEncoder{}
		e.refs(b.rdepsOf(i, j))
		out[j] = e.Buf
	}
	return out
}

func (b *Builder) eachRdep(ref index.Ref, f func(index.Ref)) { eachRdep(b.get(ref), f) }

func (b *Builder) memberRefs(key string) ([]index.Ref, bool) {
	return lookupMember(b.members, key), true
}

// stored counts the records with a summary (finish counts them).
func (b *Builder) stored() int { return b.nstored }

func (b *Builder) get(ref index.Ref) []byte {
	i, j := ref.File(), ref.Pos()
	if i < 0 || i >= len(b.recs) || j >= len(b.recs[i]) {
		return nil
	}
	if rec := b.recs[i][j]; rec != nil || b.spill == nil {
		return rec
	}
	return b.spill.read(ref)
}

// Put stores the record of the function at ref: the functions (deps)
// and member keys its summary was computed from, and s unless nil (a
// summary that depends on where its recursive component was entered).
func (b *Builder) Put(ref index.Ref, deps []index.Ref, members []string, s *summary.Summary) {
	b.putRecord(ref, encodeRecord(deps, nil, members, s))
}

// putRecord stores the encoded record of the function at ref.
func (b *Builder) putRecord(ref index.Ref, rec []byte) {
	i, j := ref.File(), ref.Pos()
	if i < 0 || i >= len(b.recs) {
		return
	}
	if b.recs[i] == nil {
		b.recs[i] = make([][]byte, len(b.ix.FileRefs(i)))
	}
	if j < len(b.recs[i]) {
		b.recs[i][j] = rec
		if b.logged {
			b.logRefs = append(b.logRefs, ref)
		}
	}
}
