package index

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"
	"unsafe"

	"github.com/autosel-bot/autosel-bot/cscan"
)

// A store is built in two streaming passes, so that the scans of the whole
// tree are never in memory at once (they were 2-3 GB for Linux):
//
//  1. the files are scanned in parallel; each scan is encoded at once as a
//     blob (its own strings with their use counts, then its record with
//     ids into those) and spilled to a temporary file (spill.go), while the
//     string table's counts are summed in the order of the files;
//  2. with the popular strings chosen (encoder.reorder), each blob is read
//     back, decoded and encoded again against the store's string table, in
//     parallel; the records are spilled again, in order, and the
//     directories' keys are collected as ids.
//
// The result is byte for byte what encoding every scan twice in memory
// gave: the string table and every record are the same.

// scanSource returns the scan and the member assignments of entry i.
type scanSource func(i int) (*cscan.File, []Assign)

// streamBuild is one store being built.
type streamBuild struct {
	entries []fileEntry
	workers int
	src     scanSource
	// done is called when an entry is scanned, second when the second
	// pass begins, encoded when an entry's record is encoded in it (any
	// may be nil).
	done, second, encoded func()
	// tmpDir holds the spills ("": the system's).
	tmpDir string
	// log receives the passes' timings (may be nil).
	log *slog.Logger
	// first[i] is set for the first entry of each content key: only its
	// record is stored (the others share it).
	first []bool
	b     *storeBuilder
}

// buildWindow bounds the scans waiting to be used in order, per worker: a
// few MB on average, and wide enough that a run of huge files (the
// generated register headers of drivers/gpu) does not hold the other
// workers back (at 32, a cold Linux build used 0.9 of 2 cores).
const buildWindow = 1024

// run builds the store.
func (sb *streamBuild) run(ctx context.Context) (*builtStore, error) {
	start := time.Now()
	sb.first = make([]bool, len(sb.entries))
	seen := make(map[string]bool, len(sb.entries))
	for i, e := range sb.entries {
		sb.first[i] = !seen[e.key]
		seen[e.key] = true
	}
	sb.b = &storeBuilder{enc: &encoder{strs: make(map[string]uint64, 1<<16)}}
	e := sb.b.enc
	// Paths and keys first: the warm-open check reads them all, and they
	// are contiguous this way.
	for _, ent := range sb.entries {
		e.intern(ent.path)
		e.intern(ent.key)
	}
	pinned := len(e.list)
	blobs, err := newSpill(sb.tmpDir, len(sb.entries))
	if err != nil {
		return nil, err
	}
	defer blobs.close()
	window := buildWindow * max(sb.workers, 1)
	err = ordered(ctx, len(sb.entries), sb.workers, window, func(i int) ([]byte, error) {
		f, as := sb.src(i)
		if sb.done != nil {
			sb.done()
		}
		return spillBlob(f, as), nil
	}, func(i int, blob []byte) error {
		if sb.first[i] {
			if err := e.count(blob); err != nil {
				return err
			}
		}
		return blobs.add(i, blob)
	})
	if err == nil {
		err = blobs.flush()
	}
	if err != nil {
		return nil, err
	}
	distinct := len(e.list)
	e.reorder(pinned)
	if sb.log != nil {
		sb.log.Debug("index build: first pass done", "strings", distinct, "shared", len(e.list), "spilled", blobs.size, "took", time.Since(start))
	}
	if sb.second != nil {
		sb.second()
	}
	out, err := sb.secondPass(ctx, blobs)
	if err == nil && sb.log != nil {
		sb.log.Debug("index build: second pass done", "records", out.recsLen, "took", time.Since(start))
	}
	return out, err
}

// secondPass encodes the records against the store's string table, and
// makes the directories.
func (sb *streamBuild) secondPass(ctx context.Context, blobs *spill) (*builtStore, error) {
	recs, err := newSpill(sb.tmpDir, len(sb.entries))
	if err != nil {
		return nil, err
	}
	out := &builtStore{recs: recs}
	ok := false
	defer func() {
		if !ok {
			recs.close()
		}
	}()
	e := sb.b.enc
	type span struct{ off, n int }
	spans := make(map[string]span, len(sb.entries))
	files := make([]byte, 0, len(sb.entries)*fileSize)
	var funcs, calls []keyed
	late := lateStrings{enc: e, ids: map[string]uint64{}}
	var as []fileAssign
	keep := stringKeeper{}
	type second struct {
		f   *cscan.File
		as  []Assign
		rec []byte
	}
	err = ordered(ctx, len(sb.entries), sb.workers, buildWindow*max(sb.workers, 1), func(i int) (second, error) {
		blob, err := blobs.read(i)
		if err != nil {
			return second{}, err
		}
		f, fas, err := decodeBlob(blob, sb.entries[i].path)
		if err != nil {
			return second{}, fmt.Errorf("%s: %w", sb.entries[i].path, err)
		}
		var rec []byte
		if sb.first[i] {
			// e is only read here: late strings go to their own table.
			enc := &encoder{strs: e.strs, inline: true}
			enc.file(f)
			enc.assigns(fas)
			rec = enc.buf
		}
		return second{f, fas, rec}, nil
	}, func(i int, r second) error {
		if sb.encoded != nil {
			sb.encoded()
		}
		ent := sb.entries[i]
		if sb.first[i] {
			spans[ent.key] = span{int(recs.size), len(r.rec)}
			if err := recs.add(i, r.rec); err != nil {
				return err
			}
		}
		s := spans[ent.key]
		files = binary.LittleEndian.AppendUint32(files, uint32(e.strs[ent.path]))
		files = binary.LittleEndian.AppendUint32(files, uint32(e.strs[ent.key]))
		files = binary.LittleEndian.AppendUint64(files, uint64(s.off))
		files = binary.LittleEndian.AppendUint32(files, uint32(s.n))
		out.stats[0]++
		out.stats[3] += uint64(len(r.f.Skipped))
		for j, fn := range r.f.Funcs {
			out.stats[1]++
			out.stats[2] += uint64(len(fn.Calls))
			funcs = append(funcs, keyed{late.id(fn.Name), [3]uint32{uint32(i), uint32(j)}})
			for k := range fn.Calls {
				calls = append(calls, keyed{late.id(fn.Calls[k].Name), [3]uint32{uint32(i), uint32(j), uint32(k)}})
			}
		}
		for _, a := range r.as {
			as = append(as, fileAssign{uint32(i), keep.assign(a)})
		}
		return nil
	})
	if err == nil {
		err = recs.flush()
	}
	if err != nil {
		return nil, err
	}
	if recs.size > 1<<32-1 {
		return nil, errors.New("index too large")
	}
	for _, s := range late.list {
		e.intern(s)
	}
	sb.b.sec[secFiles] = files
	if err := sb.b.directories(funcs, calls, as); err != nil {
		return nil, err
	}
	out.sec = sb.b.sec
	out.recsLen = recs.size
	ok = true
	return out, nil
}

// fileAssign is a member assignment with the number of its file.
type fileAssign struct {
	file uint32
	a    Assign
}

// lateStrings numbers the strings of the directories that the string
// table lacks after the first pass, in the order they are met, after the
// table's own: as interning them into it would, without writing to the
// table while the records are encoded against it.
type lateStrings struct {
	enc  *encoder
	ids  map[string]uint64
	list []string
}

// id returns the id s has or will have in the string table.
func (l *lateStrings) id(s string) uint32 {
	if id, ok := l.enc.strs[s]; ok {
		return uint32(id)
	}
	if id, ok := l.ids[s]; ok {
		return uint32(id)
	}
	s = strings.Clone(s)
	id := uint64(len(l.enc.list) + len(l.list))
	l.ids[s] = id
	l.list = append(l.list, s)
	return uint32(id)
}

// stringKeeper copies the strings kept past a blob's life, once per
// distinct string.
type stringKeeper map[string]string

func (k stringKeeper) str(s string) string {
	if c, ok := k[s]; ok {
		return c
	}
	c := strings.Clone(s)
	k[c] = c
	return c
}

func (k stringKeeper) assign(a Assign) Assign {
	return Assign{Struct: k.str(a.Struct), Member: k.str(a.Member), Func: k.str(a.Func),
		Base: k.str(a.Base), Var: k.str(a.Var), Line: a.Line}
}

// spillBlob encodes a scan for the first pass: its distinct strings in the
// order of their first use, each with its use count, then its record
// (functions, skips, assignments) with every string an id into that list.
func spillBlob(f *cscan.File, as []Assign) []byte {
	e := &encoder{strs: make(map[string]uint64, 64)}
	e.file(f)
	e.assigns(as)
	n := len(e.buf) + 4
	for _, s := range e.list {
		n += len(s) + 8
	}
	out := make([]byte, 0, n)
	out = binary.AppendUvarint(out, uint64(len(e.list)))
	for id, s := range e.list {
		out = binary.AppendUvarint(out, uint64(len(s)))
		out = append(out, s...)
		out = binary.AppendUvarint(out, uint64(e.refs[id]))
	}
	return append(out, e.buf...)
}

// blobStrings walks the string list of a blob, calling use with each
// string's bytes and count, and returns the record that follows it.
func blobStrings(b []byte, use func(s []byte, count uint64)) ([]byte, error) {
	bad := errors.New("damaged build blob")
	n, k := binary.Uvarint(b)
	if k <= 0 {
		return nil, bad
	}
	b = b[k:]
	for ; n > 0; n-- {
		l, k := binary.Uvarint(b)
		if k <= 0 || l > uint64(len(b)-k) {
			return nil, bad
		}
		s := b[k : k+int(l)]
		b = b[k+int(l):]
		c, k := binary.Uvarint(b)
		if k <= 0 {
			return nil, bad
		}
		b = b[k:]
		use(s, c)
	}
	return b, nil
}

// count adds a blob's strings to the table, in order, with their counts:
// what encoding its scan would have counted.
func (e *encoder) count(blob []byte) error {
	_, err := blobStrings(blob, func(b []byte, c uint64) {
		var s string
		if len(b) > 0 {
			s = unsafe.String(&b[0], len(b))
		}
		id, ok := e.strs[s]
		if !ok {
			id = e.intern(strings.Clone(s))
		}
		e.refs[id] += uint32(c)
	})
	return err
}

// decodeBlob decodes a first-pass blob back into the scan of path and its
// assignments.
func decodeBlob(blob []byte, path string) (*cscan.File, []Assign, error) {
	var off, strs []byte
	rec, err := blobStrings(blob, func(s []byte, _ uint64) {
		strs = append(strs, s...)
		off = binary.LittleEndian.AppendUint32(off, uint32(len(strs)))
	})
	if err != nil {
		return nil, nil, err
	}
	t := strtab{off: section{memPager(off), 0, int64(len(off))}, blob: section{memPager(strs), 0, int64(len(strs))}}
	f, as := decodeRecord(section{memPager(rec), 0, int64(len(rec))}, &t, path, true)
	if f == nil {
		return nil, nil, errors.New("damaged build blob")
	}
	return f, as, nil
}
