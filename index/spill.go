package index

import (
	"bufio"
	"fmt"
	"os"
)

// spill is a temporary file a store build writes blobs to, in order, and
// reads back by number: what a build made of the tree's files lives on
// disk (in the page cache), not in the heap. The file is unlinked as soon
// as it is made, so a build killed at any point leaves nothing behind.
type spill struct {
	f    *os.File
	w    *bufio.Writer
	off  []int64
	n    []uint32
	size int64
}

// newSpill makes an empty spill in dir (the system's temporary directory
// when dir is "" or not writable) for blobs numbered 0 to n-1.
func newSpill(dir string, n int) (*spill, error) {
	f, err := os.CreateTemp(dir, ".index-build-*")
	if err != nil && dir != "" {
		f, err = os.CreateTemp("", ".index-build-*")
	}
	if err != nil {
		return nil, fmt.Errorf("index build spill: %w", err)
	}
	// Unlinked: the open file is all there is of it.
	os.Remove(f.Name())
	return &spill{f: f, w: bufio.NewWriterSize(f, 1<<20), off: make([]int64, n), n: make([]uint32, n)}, nil
}

// add appends blob number i.
func (s *spill) add(i int, b []byte) error {
	if len(b) > 1<<32-1 {
		return fmt.Errorf("index build spill: blob %d too large", i)
	}
	if _, err := s.w.Write(b); err != nil {
		return fmt.Errorf("index build spill: %w", err)
	}
	s.off[i], s.n[i] = s.size, uint32(len(b))
	s.size += int64(len(b))
	return nil
}

// flush makes everything added readable.
func (s *spill) flush() error {
	if err := s.w.Flush(); err != nil {
		return fmt.Errorf("index build spill: %w", err)
	}
	return nil
}

// read returns blob i (empty when it was never added). Safe for
// concurrent use after flush.
func (s *spill) read(i int) ([]byte, error) {
	buf := make([]byte, s.n[i])
	if _, err := s.f.ReadAt(buf, s.off[i]); err != nil {
		return nil, fmt.Errorf("index build spill: %w", err)
	}
	return buf, nil
}

// close releases the spill's file (and with it the disk space).
func (s *spill) close() {
	if s != nil {
		s.f.Close()
	}
}
