package index

import (
	"io"
	"os"
	"sync"
)

// maxScratch is the largest read buffer kept for reuse.
const maxScratch = 4 << 20

// readBufs holds read buffers for WithSource: reading a file the caller
// only scans (its words, one function's lines) allocates nothing.
var readBufs = sync.Pool{New: func() any { return new([]byte) }}

// WithSource calls use with the current content of a file of the view
// (as ReadFile returns it). The bytes of a file on disk are read into a
// buffer that is reused once use returns: use must keep neither src nor a
// string or slice sharing its memory.
func (ix *Index) WithSource(path string, use func(src []byte)) error {
	b, disk, err := ix.source(path)
	if err != nil {
		return err
	}
	if disk == "" {
		use(b)
		return nil
	}
	return readScratch(disk, use)
}

// readScratch reads file name into a reused buffer and calls use with it.
func readScratch(name string, use func(src []byte)) error {
	f, err := os.Open(name)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	bp := readBufs.Get().(*[]byte)
	buf := *bp
	// One byte more than the size, to see the end of a file that grew.
	if n := int(fi.Size()) + 1; cap(buf) < n {
		buf = make([]byte, 0, n)
	}
	buf = buf[:cap(buf)]
	n := 0
	for {
		if n == len(buf) {
			grown := make([]byte, 2*len(buf)+512)
			copy(grown, buf)
			buf = grown
		}
		m, err := f.Read(buf[n:])
		n += m
		if err == io.EOF {
			break
		}
		if err != nil {
			putScratch(bp, buf)
			return err
		}
	}
	use(buf[:n])
	putScratch(bp, buf)
	return nil
}

// putScratch returns buf to the pool through bp, unless it is too large
// to keep.
func putScratch(bp *[]byte, buf []byte) {
	if cap(buf) > maxScratch {
		buf = nil
	}
	*bp = buf[:0]
	readBufs.Put(bp)
}

// readScratchAt reads n bytes at off of file name into a reused buffer
// and calls use with them; a file shorter than that is an error.
func readScratchAt(name string, off int64, n int, use func(src []byte)) error {
	f, err := os.Open(name)
	if err != nil {
		return err
	}
	defer f.Close()
	bp := readBufs.Get().(*[]byte)
	buf := *bp
	if cap(buf) < n {
		buf = make([]byte, n)
	}
	buf = buf[:n]
	if _, err := f.ReadAt(buf, off); err != nil {
		putScratch(bp, buf)
		return err
	}
	use(buf)
	putScratch(bp, buf)
	return nil
}
