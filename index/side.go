package index

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"weak"
)

// A side file holds one opaque record per function of a store, addressed
// by Ref and read on demand like the store itself (pager.go): what a rule
// derives from the whole tree once (lockctx's per-function summaries) and
// reads back for the few functions a patch reaches. It belongs to one
// generation of the index (Generation) and is stale for any other.
//
// Layout (integers little-endian):
//
//	header    sideMagic, u32 generation length, the generation,
//	          u32 number of files, u32 number of records
//	fileStart u32 per file and a sentinel: the first record of each file
//	          (function j of file i is record fileStart[i]+j)
//	recOff    u64 per record and a sentinel: the record's start in data
//	data      the records, concatenated (an empty record: none)
const sideMagic = "autosel-bot side\x01"

// ErrStale is returned by OpenSide for a side file of another generation.
var ErrStale = errors.New("side file of another index generation")

// SideFile is an open side file.
type SideFile struct {
	p         *pager
	nFiles    int
	fileStart section
	recOff    section
	data      section
}

// SideName returns the side file name of kind for the underlying index's
// tree in dir ("" when the index is not persisted): one file per tree and
// kind, rewritten when its generation is stale.
func (ix *Index) SideName(kind string) string {
	d := ix.CacheDir()
	if d == "" {
		return ""
	}
	base := filepath.Base(ix.root().Stats.CacheFile)
	return filepath.Join(d, fmt.Sprintf("%s.%s.side", base[:len(base)-len(filepath.Ext(base))], kind))
}

// WriteSide writes the side file path for generation gen atomically:
// recs(i) returns the records of file number i (one per function, nil for
// none), for i below nFiles.
func WriteSide(path, gen string, nFiles int, recs func(i int) [][]byte) error {
	starts := make([]uint32, 0, nFiles+1)
	var offs []uint64
	var size uint64
	all := make([][][]byte, nFiles)
	for i := 0; i < nFiles; i++ {
		starts = append(starts, uint32(len(offs)))
		all[i] = recs(i)
		for _, r := range all[i] {
			offs = append(offs, size)
			size += uint64(len(r))
		}
	}
	starts = append(starts, uint32(len(offs)))
	offs = append(offs, size)
	return WriteFile(path, func(w *bufio.Writer) error {
		w.WriteString(sideMagic)
		var b [8]byte
		u32 := func(v uint32) { binary.LittleEndian.PutUint32(b[:4], v); w.Write(b[:4]) }
		u32(uint32(len(gen)))
		w.WriteString(gen)
		u32(uint32(nFiles))
		u32(uint32(len(offs) - 1))
		for _, s := range starts {
			u32(s)
		}
		for _, o := range offs {
			binary.LittleEndian.PutUint64(b[:], o)
			w.Write(b[:])
		}
		for _, rs := range all {
			for _, r := range rs {
				if _, err := w.Write(r); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// OpenSide opens the side file path of generation gen, keeping at most
// DefaultPageCache bytes of its pages: ErrStale (wrapped) when it holds
// another generation, an error wrapping os.ErrNotExist when missing.
func OpenSide(path, gen string) (*SideFile, error) {
	p, err := filePager(path, DefaultPageCache)
	if err != nil {
		return nil, err
	}
	return newSide(p, gen, path)
}

// OpenSide opens the side file path of the underlying index's generation
// (errors as the function OpenSide): its pages are kept within the index's
// page budget (Options.PageCache), counted by Pages and dropped by
// Release.
func (ix *Index) OpenSide(path string) (*SideFile, error) {
	b := ix.root()
	p, err := filePager(path, b.pageCache)
	if err != nil {
		return nil, err
	}
	s, err := newSide(p, b.Generation(), path)
	if err != nil {
		return nil, err
	}
	b.mu.Lock()
	b.sides = append(b.sides, weak.Make(p))
	b.mu.Unlock()
	return s, nil
}

func newSide(p *pager, gen, path string) (*SideFile, error) {
	all := section{p: p, n: p.size}
	bad := fmt.Errorf("side file %s: damaged", path)
	if string(all.bytes(0, int64(len(sideMagic)))) != sideMagic {
		return nil, bad
	}
	off := int64(len(sideMagic))
	gl := int64(all.u32(off))
	if g := all.bytes(off+4, gl); g == nil || string(g) != gen {
		return nil, fmt.Errorf("side file %s: %w", path, ErrStale)
	}
	off += 4 + gl
	nFiles, nRecs := int64(all.u32(off)), int64(all.u32(off+4))
	off += 8
	s := &SideFile{p: p, nFiles: int(nFiles)}
	s.fileStart = all.sub(off, 4*(nFiles+1))
	off += 4 * (nFiles + 1)
	s.recOff = all.sub(off, 8*(nRecs+1))
	off += 8 * (nRecs + 1)
	s.data = all.sub(off, p.size-off)
	if s.fileStart.len() != 4*(nFiles+1) || s.recOff.len() != 8*(nRecs+1) || int64(s.recOff.u64(8*nRecs)) != s.data.len() {
		return nil, bad
	}
	return s, nil
}

// Get returns the record of the function r names (nil when there is none
// or the file is damaged). The bytes must not be modified.
func (s *SideFile) Get(r Ref) []byte {
	i := r.File()
	if i < 0 || i >= s.nFiles {
		return nil
	}
	first, end := int64(s.fileStart.u32(4*int64(i))), int64(s.fileStart.u32(4*int64(i+1)))
	k := first + int64(r.Pos())
	if k >= end {
		return nil
	}
	a, b := s.recOff.u64(8*k), s.recOff.u64(8*k+8)
	if b <= a {
		return nil
	}
	return s.data.bytes(int64(a), int64(b-a))
}

// ReadBytes returns the bytes read from the side file so far (pages read
// again after eviction count again).
func (s *SideFile) ReadBytes() int64 { return s.p.read.Load() * pageSize }

// Pages returns the side file's page counts.
func (s *SideFile) Pages() PageStats { return s.p.stats() }

// sideKindRe splits a versioned side file kind: NAME-vN, then an optional
// -REST (a digest of what it was computed with).
var sideKindRe = regexp.MustCompile(`^(.+)-v([0-9]+)(-[^.]*)?$`)

// PruneOlderSides removes what older versions of side file kind left in
// the cache directory: for kind NAME-vN-REST, the files of this store
// named NAME-vM-REST with M below N, whatever follows the kind (.side,
// and the companions a writer keeps beside it: .members.gob, ...). They
// are never read again, and some are hundreds of MB. Lock files, other
// stores' files, and kinds computed with another REST (other tables) are
// left alone. It returns the files it could not remove, with the first
// error.
func (ix *Index) PruneOlderSides(kind string) ([]string, error) {
	m := sideKindRe.FindStringSubmatch(kind)
	path := ix.SideName(kind)
	if m == nil || path == "" {
		return nil, nil
	}
	name, rest := m[1], m[3]
	cur, err := strconv.Atoi(m[2])
	if err != nil {
		return nil, nil
	}
	prefix := strings.TrimSuffix(path, kind+".side") + name + "-v"
	files, err := filepath.Glob(prefix + "*")
	if err != nil {
		return nil, err
	}
	var left []string
	var first error
	for _, f := range files {
		tail := strings.TrimPrefix(f, prefix)
		i := 0
		for i < len(tail) && tail[i] >= '0' && tail[i] <= '9' {
			i++
		}
		v, err := strconv.Atoi(tail[:i])
		if err != nil || v >= cur || !strings.HasPrefix(tail[i:], rest+".") || strings.HasSuffix(f, ".lock") {
			continue
		}
		if err := os.Remove(f); err != nil {
			left = append(left, f)
			if first == nil {
				first = err
			}
		}
	}
	return left, first
}
