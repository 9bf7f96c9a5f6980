package lockctx

import (
	"bufio"
	"context"
	"encoding/gob"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/index"
	"github.com/autosel-bot/autosel-bot/internal/flock"
	"github.com/autosel-bot/autosel-bot/internal/stageprogress"
	"github.com/autosel-bot/autosel-bot/rules/lockctx/registrations"
	"github.com/autosel-bot/autosel-bot/rules/lockctx/typing"
	"github.com/autosel-bot/autosel-bot/rules/lockctx/wire"
)

// The summary store: Prepare summarises every function of a tree once and
// writes the summaries beside the tree's index (an index side file, one
// per model, and its member index), so that a patch's analysis reads the
// summaries of the tree functions it reaches instead of recomputing the
// call graph below them. Each record also lists what its summary was
// computed from (the functions it looked up and summarised, its deps; the
// struct members it resolved calls through and the struct definitions
// it typed expressions with, structchanges.go) and the functions computed
// from it (reverse deps): storeinvalidation.go decides, per patch, which stored
// summaries still hold. The members of a recursive component keep the
// summaries of the component's final round, entered where Prepare's walk
// entered it.

// sumVersion changes whenever what a summary holds or how it is computed
// does: a store of another version is not read.
const sumVersion = 6

// summaryKind is the side file kind of model m's summaries.
func summaryKind(m *Model) string { return fmt.Sprintf("summaries-v%d-%s", sumVersion, m.id[:16]) }

// rdepsKind names the side file of the reverse deps alone.
func rdepsKind(m *Model) string { return summaryKind(m) + ".rdeps" }

// sumSource is where a resolver reads stored records: the side file, or
// the records of a Prepare in progress.
type sumSource interface {
	get(ref index.Ref) []byte
	// memberRefs returns the functions whose stored summaries resolved
	// a call through member key (see noteMember; "*.m" stands for m of
	// every struct); ok is false when the member index cannot be read.
	memberRefs(key string) (refs []index.Ref, ok bool)
	// wrapperRows returns the callback rows with the registration
	// wrappers derived from the tree (wrappers.go); ok is false when
	// they cannot be read.
	wrapperRows() (rows []Callback, ok bool)
	// eachRdep calls f with every function whose stored summary was
	// computed from ref's (its reverse deps).
	eachRdep(ref index.Ref, f func(index.Ref))
}

// sideSource reads a side file; recs caches the decoded records, shared
// by every resolver over the same index (they never change), within the
// index's page budget (index.Options.PageCache) by bytes. The member
// index is read from its own file on first use (membersPath).
type sideSource struct {
	f *index.SideFile
	// rd holds the reverse deps alone (rdepsKind), nil when missing: a
	// climb to the top of the tree reads a few MB there instead of most
	// of the side file.
	rd          *index.SideFile
	gen         string
	membersPath string
	mu          sync.Mutex
	recs        *recordCache
	members     map[string][]index.Ref
	rows        []Callback
	rowsRead    bool
	rowsOK      bool
}

func (s *sideSource) wrapperRows() ([]Callback, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.rowsRead {
		s.rowsRead = true
		var rs registrations.StoredRows
		if err := readGob(rowsPath(s.membersPath), &rs); err == nil && rs.Generation == s.gen && len(rs.Files) == len(rs.Rows) {
			s.rows, s.rowsOK = rs.Callbacks(), true
		}
	}
	return s.rows, s.rowsOK
}

func (s *sideSource) memberRefs(key string) ([]index.Ref, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.members == nil {
		m, err := readMembers(s.membersPath, s.gen)
		if err != nil {
			return nil, false
		}
		s.members = m
	}
	return lookupMember(s.members, key), true
}

// lookupMember answers memberRefs from a member index.
func lookupMember(m map[string][]index.Ref, key string) []index.Ref {
	suffix, wild := strings.CutPrefix(key, "*")
	if !wild {
		return m[key]
	}
	var out []index.Ref
	for k, refs := range m {
		if strings.HasSuffix(k, suffix) {
			out = append(out, refs...)
		}
	}
	return out
}

func (s *sideSource) get(ref index.Ref) []byte { return s.f.Get(ref) }

func (s *sideSource) eachRdep(ref index.Ref, f func(index.Ref)) {
	if s.rd != nil {
		if b := s.rd.Get(ref); len(b) > 0 {
			d := sumDecoder{wire.Decoder{B: b}}
			d.eachRef(f)
			return
		}
	}
	eachRdep(s.f.Get(ref), f)
}

// decoded returns the cached decoded record of ref.
func (s *sideSource) decoded(ref index.Ref) (*record, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.recs.get(ref)
}

func (s *sideSource) keep(ref index.Ref, rec *record) {
	s.mu.Lock()
	s.recs.put(ref, rec)
	s.mu.Unlock()
}

// storeHolder is a tree index's summary store of one model, opened on
// first use and looked for again while there is none (a Prepare in another
// process, or on another Index of the same tree, may write it).
type storeHolder struct {
	mu  sync.Mutex
	src sumSource
}

// storeFor returns model m's summary store of ix's tree (nil when there is
// none for the index's generation).
func storeFor(m *Model, ix *index.Index) sumSource {
	if ix == nil {
		return nil
	}
	root := ix.Underlying()
	h := root.Memo("lockctx.store."+m.id, func() any { return &storeHolder{} }).(*storeHolder)
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.src != nil {
		return h.src
	}
	path := root.SideName(summaryKind(m))
	if path == "" {
		return nil
	}
	if f, err := root.OpenSide(path); err == nil {
		rd, _ := root.OpenSide(root.SideName(rdepsKind(m)))
		h.src = &sideSource{f: f, rd: rd, gen: root.Generation(), membersPath: membersPath(path), recs: newRecordCache(root.PageCache())}
	}
	return h.src
}

// Stored reports whether model m has a summary store for ix's tree in its
// current generation.
func Stored(m *Model, ix *index.Index) bool { return storeFor(m, ix) != nil }

// prepareFiles is how many files Prepare summarises between two releases
// of what its index decoded, bounding its memory.
const prepareFiles = 6000

// Prepare summarises every function of ix's tree with model m and stores
// the summaries (Stored), unless they are there already for the tree's
// current generation; first it stores the tree's struct typing
// (prepareTyping), which the summarising then reads. For a persisted index they are written beside it,
// computed on an Index of their own (so the caller's is never released
// under its feet), and processes preparing the same tree take turns;
// otherwise they are kept in ix's memory.
func Prepare(ctx context.Context, m *Model, ix *index.Index, log *slog.Logger) error {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	root := ix.Underlying()
	if err := typing.Prepare(ctx, root, log); err != nil {
		return err
	}
	if Stored(m, root) {
		return nil
	}
	path := root.SideName(summaryKind(m))
	if path == "" {
		b, err := summarise(ctx, m, root, false)
		if err != nil {
			return err
		}
		h := root.Memo("lockctx.store."+m.id, func() any { return &storeHolder{} }).(*storeHolder)
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
	if Stored(m, root) {
		return nil
	}
	start := time.Now()
	log.Info("summarising the tree once", "root", root.Root)
	own, err := index.Open(ctx, root.Root, index.Options{CacheDir: root.CacheDir()})
	if err != nil {
		return fmt.Errorf("summaries: %w", err)
	}
	b, err := summarise(ctx, m, own, true)
	if err != nil {
		return err
	}
	// The member index and the rows first: the side file says the store
	// is complete.
	if err := writeMembers(membersPath(path), own.Generation(), b.members); err != nil {
		return fmt.Errorf("summaries %s: %w", path, err)
	}
	if err := index.WriteFile(rowsPath(membersPath(path)), func(w *bufio.Writer) error {
		return gob.NewEncoder(w).Encode(registrations.NewStoredRows(own.Generation(), b.rows))
	}); err != nil {
		return fmt.Errorf("summaries %s: %w", path, err)
	}
	if err := index.WriteSide(root.SideName(rdepsKind(m)), own.Generation(), own.NumFiles(), b.rdepRecords); err != nil {
		return fmt.Errorf("summaries %s: %w", path, err)
	}
	if err := index.WriteSide(path, own.Generation(), own.NumFiles(), func(i int) [][]byte { return b.recs[i] }); err != nil {
		return fmt.Errorf("summaries %s: %w", path, err)
	}
	log.Info("summaries stored", "file", path, "funcs", b.funcs, "stored", b.stored(), "took", time.Since(start))
	// What older versions left is never read again (several hundred MB
	// for Linux); a newer version's stays, so that an older binary
	// sharing the cache directory does not make the newer one prepare
	// again.
	if left, err := root.PruneOlderSides(summaryKind(m)); err != nil {
		log.Warn("old summaries not removed", "files", left, "err", err)
	}
	return nil
}

// summarise computes the records of every function of ix's tree, a few
// thousand files at a time; release drops what ix decoded between them.
func summarise(ctx context.Context, m *Model, ix *index.Index, release bool) (*builder, error) {
	b := &builder{ix: ix, recs: make([][][]byte, ix.NumFiles())}
	n := ix.NumFiles()
	pr := stageprogress.Start(ctx, stageprogress.Summaries, n)
	for lo := 0; lo < n; lo += prepareFiles {
		r := NewResolver(m, ix, nil)
		r.build, r.store = b, b
		for i := lo; i < min(n, lo+prepareFiles); i++ {
			if i%256 == 0 {
				if err := ctx.Err(); err != nil {
					return nil, err
				}
			}
			for _, ref := range ix.FileRefs(i) {
				if fn := ix.FuncOf(ref); fn != nil {
					r.SummaryOf(fn)
					b.funcs++
				}
			}
			pr.Add(1)
		}
		if release {
			ix.Release()
		}
	}
	pr.Done()
	b.finish()
	b.rows, b.rowsOK = registrations.DeriveRows(ix, m.id, m.callbacks), true
	return b, nil
}

// builder collects the records of a Prepare; resolvers read it back for
// the functions of files summarised earlier.
type builder struct {
	ix    *index.Index
	funcs int
	recs  [][][]byte // by file number, then function position
	// members is the member index, built by finish; rows the derived
	// callback rows.
	members map[string][]index.Ref
	rows    []Callback
	rowsOK  bool
}

func (b *builder) wrapperRows() ([]Callback, bool) { return b.rows, b.rowsOK }

// finish adds the reverse deps to every record and builds the member
// index.
func (b *builder) finish() {
	rdeps := make([][][]index.Ref, len(b.recs))
	b.members = map[string][]index.Ref{}
	for i, rs := range b.recs {
		for j, enc := range rs {
			rec, ok := decodeRecordFull(enc)
			if !ok {
				continue
			}
			ref := index.MakeRef(i, j)
			for _, d := range rec.deps {
				di, dj := d.File(), d.Pos()
				if di >= len(b.recs) || dj >= len(b.recs[di]) {
					continue
				}
				if rdeps[di] == nil {
					rdeps[di] = make([][]index.Ref, len(b.recs[di]))
				}
				rdeps[di][dj] = append(rdeps[di][dj], ref)
			}
			for _, m := range rec.members {
				b.members[m] = append(b.members[m], ref)
			}
		}
	}
	for i, rs := range b.recs {
		for j, enc := range rs {
			rec, ok := decodeRecordFull(enc)
			if !ok {
				continue
			}
			var rd []index.Ref
			if rdeps[i] != nil {
				rd = rdeps[i][j]
			}
			e := &sumEncoder{Encoder: wire.Encoder{Buf: []byte{enc[0]}}}
			e.refs(rec.deps)
			e.refs(rd)
			e.U(uint64(len(rec.members)))
			for _, m := range rec.members {
				e.S(m)
			}
			b.recs[i][j] = append(e.Buf, rec.rest...)
		}
	}
}

// rdepRecords returns the reverse deps of file i's records, encoded alone
// (the rdeps side file).
func (b *builder) rdepRecords(i int) [][]byte {
	out := make([][]byte, len(b.recs[i]))
	for j, enc := range b.recs[i] {
		var rd []index.Ref
		eachRdep(enc, func(p index.Ref) { rd = append(rd, p) })
		e := &sumEncoder{}
		e.refs(rd)
		out[j] = e.Buf
	}
	return out
}

func (b *builder) eachRdep(ref index.Ref, f func(index.Ref)) { eachRdep(b.get(ref), f) }

func (b *builder) memberRefs(key string) ([]index.Ref, bool) {
	return lookupMember(b.members, key), true
}

// stored counts the records with a summary.
func (b *builder) stored() int {
	n := 0
	for _, rs := range b.recs {
		for _, rec := range rs {
			if len(rec) > 0 && rec[0]&recHasSummary != 0 {
				n++
			}
		}
	}
	return n
}

func (b *builder) get(ref index.Ref) []byte {
	i, j := ref.File(), ref.Pos()
	if i < 0 || i >= len(b.recs) || j >= len(b.recs[i]) {
		return nil
	}
	return b.recs[i][j]
}

func (b *builder) put(ref index.Ref, rec []byte) {
	i, j := ref.File(), ref.Pos()
	if i < 0 || i >= len(b.recs) {
		return
	}
	if b.recs[i] == nil {
		b.recs[i] = make([][]byte, len(b.ix.FileRefs(i)))
	}
	if j < len(b.recs[i]) {
		b.recs[i][j] = rec
	}
}

// noteDep records that the summary being computed looked up or summarised
// fn (Prepare only).
func (r *Resolver) noteDep(fn *cscan.Func) {
	if r.build == nil || len(r.frameDeps) == 0 {
		return
	}
	if ref, ok := r.refOf(fn); ok {
		top := &r.frameDeps[len(r.frameDeps)-1]
		top.deps = append(top.deps, ref)
	}
}

// noteMember records that the summary being computed resolved a call
// through member, or read the definition of a struct (typing.StructKey)
// (Prepare only).
func (r *Resolver) noteMember(member string) {
	if r.build == nil || len(r.frameDeps) == 0 {
		return
	}
	top := &r.frameDeps[len(r.frameDeps)-1]
	top.members = append(top.members, member)
}

// keep stores fn's record in a Prepare: its deps and members from its
// last computation, and s unless nil.
func (r *Resolver) keep(fn *cscan.Func, s *Summary) {
	if r.build == nil {
		return
	}
	ref, ok := r.refOf(fn)
	if !ok {
		return
	}
	d := r.lastDeps[fn]
	delete(r.lastDeps, fn)
	r.build.put(ref, encodeRecord(d.deps, nil, d.members, s))
}

// depsOf are the deps and members of one computation.
type depsOf struct {
	deps    []index.Ref
	members []string
}

// membersPath is the member index file of the side file path.
func membersPath(side string) string { return strings.TrimSuffix(side, ".side") + ".members.gob" }

// memberIndex is the member index file's content.
type memberIndex struct {
	Generation string
	Members    map[string][]index.Ref
}

// writeMembers writes the member index of generation gen atomically.
func writeMembers(path, gen string, m map[string][]index.Ref) error {
	return index.WriteFile(path, func(w *bufio.Writer) error {
		return gob.NewEncoder(w).Encode(memberIndex{Generation: gen, Members: m})
	})
}

// readMembers reads the member index of generation gen.
func readMembers(path, gen string) (map[string][]index.Ref, error) {
	var mi memberIndex
	if err := readGob(path, &mi); err != nil {
		return nil, err
	}
	if mi.Generation != gen {
		return nil, fmt.Errorf("%s: %w", path, index.ErrStale)
	}
	if mi.Members == nil {
		mi.Members = map[string][]index.Ref{}
	}
	return mi.Members, nil
}

// rowsPath is the derived rows file beside the member index path.
func rowsPath(members string) string {
	return strings.TrimSuffix(members, ".members.gob") + ".rows.gob"
}

// readGob decodes the gob file path into v.
func readGob(path string, v any) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := gob.NewDecoder(bufio.NewReader(f)).Decode(v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}
