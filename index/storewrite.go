package index

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
)

// storeInput is what a store is built from: the tree's files sorted by path
// (one entry per path), their scans and their member assignments.
type storeInput struct {
	entries []fileEntry
	files   []*cscan.File
	assigns [][]Assign
}

// storeBuilder accumulates the sections of a store.
type storeBuilder struct {
	enc *encoder
	sec [numSections][]byte
	// rank orders string ids by their bytes (filled per directory).
	rank []int32
}

// buildStore encodes in as a store (layout in store.go), in memory.
func buildStore(in storeInput) ([]byte, error) {
	sb := &streamBuild{entries: in.entries, workers: 1, src: func(i int) (*cscan.File, []Assign) {
		f := in.files[i]
		if f == nil {
			f = &cscan.File{Path: in.entries[i].path}
		}
		var as []Assign
		if in.assigns != nil {
			as = in.assigns[i]
		}
		return f, as
	}}
	st, err := sb.run(context.Background())
	if err != nil {
		return nil, err
	}
	defer st.close()
	var buf bytes.Buffer
	if err := st.writeTo(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// builtStore is a store built but not written: its sections, the records
// in a spill.
type builtStore struct {
	stats   [4]uint64
	sec     [numSections][]byte
	recs    *spill
	recsLen int64
}

// close releases the spill of the records.
func (s *builtStore) close() { s.recs.close() }

// writeTo writes the store: the header, then the sections, each at an
// offset that is a multiple of 8.
func (s *builtStore) writeTo(w io.Writer) error {
	hdr := make([]byte, storeHeaderSize)
	copy(hdr, storeMagic)
	p := len(storeMagic)
	put := func(v uint64) {
		binary.LittleEndian.PutUint64(hdr[p:], v)
		p += 8
	}
	put(storeVersion)
	for _, v := range s.stats {
		put(v)
	}
	size := func(i int) int64 {
		if i == secRecords {
			return s.recsLen
		}
		return int64(len(s.sec[i]))
	}
	off := int64(storeHeaderSize)
	for i := range s.sec {
		off = (off + 7) &^ 7
		put(uint64(off))
		put(uint64(size(i)))
		off += size(i)
	}
	if _, err := w.Write(hdr); err != nil {
		return err
	}
	at := int64(storeHeaderSize)
	var zeros [8]byte
	for i := range s.sec {
		if pad := (8 - at%8) % 8; pad > 0 {
			if _, err := w.Write(zeros[:pad]); err != nil {
				return err
			}
			at += pad
		}
		var err error
		if i == secRecords {
			_, err = io.Copy(w, io.NewSectionReader(s.recs.f, 0, s.recsLen))
		} else {
			_, err = w.Write(s.sec[i])
		}
		if err != nil {
			return err
		}
		at += size(i)
	}
	return nil
}

// directories fills the sections after the records: the directories of
// functions, callees, members called through and member assignments, then
// the string table (every string is interned by now).
func (b *storeBuilder) directories(funcs, calls []keyed, fas []fileAssign) error {
	e := b.enc
	id := func(s string) uint32 { return uint32(e.intern(s)) }
	// Functions and call sites by name, in file order within a name.
	b.sec[secFuncDir], b.sec[secFuncNames], b.sec[secFuncRefs] = b.directory(funcs, 2)
	callNames := b.distinct(calls)
	b.sec[secCallDir], b.sec[secCallNames], b.sec[secCallRefs] = b.directory(calls, 3)

	// Members called through: "ops->release" under "release".
	var membs []keyed
	for _, c := range callNames {
		name := e.list[c]
		if m, ok := cscan.CalleeMember(name); ok {
			membs = append(membs, keyed{id(m), [3]uint32{c}})
		}
	}
	b.sec[secMembDir], b.sec[secMembNames], b.sec[secMembRefs] = b.directory(membs, 1)

	// Member assignments, by member and by function.
	var asgn []keyed
	asgnRows := make([][7]uint32, 0, len(fas))
	for _, fa := range fas {
		a := fa.a
		row := [7]uint32{fa.file, id(a.Struct), id(a.Member), id(a.Func), id(a.Base), id(a.Var), uint32(max(a.Line, 0))}
		asgn = append(asgn, keyed{row[2], [3]uint32{uint32(len(asgnRows))}})
		asgnRows = append(asgnRows, row)
	}
	var byMember []byte
	b.sec[secAsgnMDir], b.sec[secAsgnMNames], byMember = b.directory(asgn, 1)
	// pos[r] is the position of row r in the member-ordered table.
	pos := make([]uint32, len(asgnRows))
	table := make([]byte, 0, len(asgnRows)*asgnSize)
	for p := 0; p < len(byMember)/4; p++ {
		r := binary.LittleEndian.Uint32(byMember[p*4:])
		pos[r] = uint32(p)
		for _, v := range asgnRows[r] {
			table = binary.LittleEndian.AppendUint32(table, v)
		}
	}
	b.sec[secAsgn] = table
	byFunc := make([]keyed, len(asgnRows))
	for r, row := range asgnRows {
		byFunc[r] = keyed{row[3], [3]uint32{pos[r]}}
	}
	b.sec[secAsgnFDir], b.sec[secAsgnFNames], b.sec[secAsgnF] = b.directory(byFunc, 1)

	// The string table, last: every string is interned by now.
	var off, blob []byte
	for _, s := range e.list {
		blob = append(blob, s...)
		if len(blob) > 1<<32-1 {
			return errors.New("index string table too large")
		}
		off = binary.LittleEndian.AppendUint32(off, uint32(len(blob)))
	}
	b.sec[secStrOff], b.sec[secStrBlob] = off, blob
	return nil
}

// keyed is one entry of a directory: a name id and the entry's values.
type keyed struct {
	name uint32
	v    [3]uint32
}

// distinct returns the distinct names of ks, ordered by their bytes.
func (b *storeBuilder) distinct(ks []keyed) []uint32 {
	seen := make(map[uint32]bool)
	var names []uint32
	for _, k := range ks {
		if !seen[k.name] {
			seen[k.name] = true
			names = append(names, k.name)
		}
	}
	list := b.enc.list
	slices.SortFunc(names, func(x, y uint32) int { return strings.Compare(list[x], list[y]) })
	return names
}

// directory sorts ks by name bytes (stably: entries of one name keep their
// order) and returns the directory's entries and names sections and the
// rows section (the first width values of each entry).
func (b *storeBuilder) directory(ks []keyed, width int) (dirSec, namesSec, refs []byte) {
	names := b.distinct(ks)
	if cap(b.rank) < len(b.enc.list) {
		b.rank = make([]int32, len(b.enc.list))
	}
	rank := b.rank[:len(b.enc.list)]
	for i, n := range names {
		rank[n] = int32(i)
	}
	// Counting sort by rank.
	start := make([]uint32, len(names)+1)
	for _, k := range ks {
		start[rank[k.name]+1]++
	}
	for i := 1; i < len(start); i++ {
		start[i] += start[i-1]
	}
	for i, n := range names {
		dirSec = binary.LittleEndian.AppendUint32(dirSec, uint32(len(namesSec)))
		dirSec = binary.LittleEndian.AppendUint32(dirSec, start[i])
		namesSec = append(namesSec, b.enc.list[n]...)
	}
	dirSec = binary.LittleEndian.AppendUint32(dirSec, uint32(len(namesSec)))
	dirSec = binary.LittleEndian.AppendUint32(dirSec, uint32(len(ks)))
	refs = make([]byte, len(ks)*width*4)
	next := start[:len(names)]
	for _, k := range ks {
		r := rank[k.name]
		at := int(next[r]) * width * 4
		next[r]++
		for w := 0; w < width; w++ {
			binary.LittleEndian.PutUint32(refs[at+w*4:], k.v[w])
		}
	}
	return dirSec, namesSec, refs
}

// WriteFile writes the file path atomically: write fills a temporary file
// beside it, which then replaces path (a reader sees the old file or the
// new one, never a part). The directory is created when missing.
func WriteFile(path string, write func(w *bufio.Writer) error) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+"-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	w := bufio.NewWriterSize(tmp, 1<<20)
	if err := write(w); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", tmp.Name(), err)
	}
	if err := w.Flush(); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", tmp.Name(), err)
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
