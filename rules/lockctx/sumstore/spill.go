package sumstore

import (
	"fmt"
	"os"

	"github.com/autosel-bot/autosel-bot/index"
)

// A Prepare of a persisted index holds only the current window's records
// in memory. At each mark the records just appended to the partial file
// (resume.go) leave memory; the views of later windows, finish and the
// store's write read them back from that file. The records of Linux 6.1
// are about 600 MB, which held in memory stayed live to the end of the
// stage.

// recSpan is where a record lies in the partial file.
type recSpan struct {
	off int64
	n   int32
}

// spillFile reads back the records of a partial file: spans holds each
// one's place by file number and position (n 0: not spilled). Only the
// Prepare that writes the file reads it, from one goroutine.
type spillFile struct {
	path  string
	f     *os.File
	spans [][]recSpan
	// err is the first read that failed (the store is then not written).
	err error
}

// spillAt notes that the record of ref lies at off (n bytes) in the
// partial file (resume set b.spill up), and drops it from memory.
func (b *Builder) spillAt(ref index.Ref, off int64, n int) {
	i, j := ref.File(), ref.Pos()
	if i < 0 || i >= len(b.recs) {
		return
	}
	if b.recs[i] == nil {
		b.recs[i] = make([][]byte, len(b.ix.FileRefs(i)))
	}
	if j >= len(b.recs[i]) {
		return
	}
	if b.spill.spans[i] == nil {
		b.spill.spans[i] = make([]recSpan, len(b.recs[i]))
	}
	b.spill.spans[i][j] = recSpan{off: off, n: int32(n)}
	b.recs[i][j] = nil
}

// read returns the spilled record of ref (nil when none, or when it
// cannot be read: the error is kept).
func (s *spillFile) read(ref index.Ref) []byte {
	i, j := ref.File(), ref.Pos()
	if i >= len(s.spans) || j >= len(s.spans[i]) || s.spans[i][j].n == 0 || s.err != nil {
		return nil
	}
	if s.f == nil {
		f, err := os.Open(s.path)
		if err != nil {
			s.err = fmt.Errorf("summaries checkpoint: %w", err)
			return nil
		}
		s.f = f
	}
	sp := s.spans[i][j]
	buf := make([]byte, sp.n)
	if _, err := s.f.ReadAt(buf, sp.off); err != nil {
		s.err = fmt.Errorf("summaries checkpoint %s: %w", s.path, err)
		return nil
	}
	return buf
}

// readErr returns the first failed read.
func (s *spillFile) readErr() error {
	if s == nil {
		return nil
	}
	return s.err
}

// close closes the partial file's read handle.
func (s *spillFile) close() {
	if s != nil && s.f != nil {
		s.f.Close()
		s.f = nil
	}
}
