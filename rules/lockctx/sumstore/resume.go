package sumstore

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/autosel-bot/autosel-bot/index"
	"github.com/autosel-bot/autosel-bot/rules/lockctx/wire"
)

// A Prepare of a persisted index keeps what it finished: after each
// window of files (prepareFiles) it appends the records put during the
// window to a partial file beside the store (partialPath), then a mark
// naming the next window. Between two windows nothing but the records is
// carried over (each window has an engine of its own, and the index
// drops what it decoded), so a Prepare that was stopped (a killed first
// `check --tree`) and starts again from the last mark writes the same
// store, byte for byte, as one that ran through (TestPrepareResumes).
// A partial file of another generation of the tree, window size or
// layout (its header differs) is started anew; a torn tail (a kill in
// the middle of a write) is cut at the last mark.

// partialMagic starts a partial file; its version changes with the layout.
const partialMagic = "autosel-bot summaries partial v2\n"

// Entry tags of a partial file (wire.Encoder.U).
const (
	partialRecord = 1 // ref, record bytes
	partialMark   = 2 // next window's first file, functions counted
)

// partialPath is the partial file of the store at path.
func partialPath(path string) string { return path + ".partial" }

// checkpoint appends b's records to a partial file; off is the offset
// the next write lands at.
type checkpoint struct {
	f   *os.File
	w   *bufio.Writer
	off int64
}

// partialHeader is what a partial file of b's tree, summarised window
// files at a time, starts with.
func (b *Builder) partialHeader(window int) []byte {
	e := wire.Encoder{Buf: []byte(partialMagic)}
	e.S(b.ix.Generation())
	e.U(uint64(b.ix.NumFiles()))
	e.U(uint64(window))
	return e.Buf
}

// resume reads the partial file of the store at path into b, when it is
// of b's tree generation and window size, and opens it for the next
// windows. It returns the first file left to summarise (0 when the file
// was missing, stale or held no complete window: it is then started
// anew).
func (b *Builder) resume(path string, window int) (*checkpoint, int, error) {
	pp := partialPath(path)
	header := b.partialHeader(window)
	next, end := 0, 0
	b.spill = &spillFile{path: pp, spans: make([][]recSpan, len(b.recs))}
	if data, err := os.ReadFile(pp); err == nil && bytes.HasPrefix(data, header) {
		next, end = b.replay(data, len(header))
	}
	if end == 0 {
		if err := os.WriteFile(pp, header, 0o600); err != nil {
			return nil, 0, fmt.Errorf("summaries checkpoint: %w", err)
		}
		end = len(header)
	}
	f, err := os.OpenFile(pp, os.O_WRONLY, 0)
	if err != nil {
		return nil, 0, fmt.Errorf("summaries checkpoint: %w", err)
	}
	// A torn tail goes: the next window is appended after the last mark.
	if err = f.Truncate(int64(end)); err == nil {
		_, err = f.Seek(int64(end), io.SeekStart)
	}
	if err != nil {
		f.Close()
		return nil, 0, fmt.Errorf("summaries checkpoint: %w", err)
	}
	b.logged = true
	return &checkpoint{f: f, w: bufio.NewWriterSize(f, 1<<20), off: int64(end)}, next, nil
}

// replay gives b the records of the complete windows of the partial file
// (data, its entries from offset from), where they stay (spill.go), and
// returns the next window's first file and the offset after the last
// mark (0, 0 for none). A torn or damaged entry ends it.
func (b *Builder) replay(data []byte, from int) (next, end int) {
	type put struct {
		ref index.Ref
		off int64
		n   int
	}
	var pending []put
	d := wire.Decoder{B: data[from:]}
	for len(d.B) > 0 {
		switch d.U() {
		case partialRecord:
			ref, n := index.Ref(d.U()), d.Count()
			pending = append(pending, put{ref, int64(len(data) - len(d.B)), n})
			d.B = d.B[n:]
		case partialMark:
			w, funcs := d.U(), d.U()
			if d.Bad || w > uint64(b.ix.NumFiles()) {
				return next, end
			}
			for _, p := range pending {
				if p.n > 0 {
					b.spillAt(p.ref, p.off, p.n)
				}
			}
			pending = pending[:0]
			next, b.funcs = int(w), int(funcs)
			end = len(data) - len(d.B)
		default:
			return next, end
		}
		if d.Bad {
			return next, end
		}
	}
	return next, end
}

// mark appends the records put since the last mark, and a mark naming
// next as the first file of the next window, and flushes them.
func (c *checkpoint) mark(b *Builder, next int) error {
	if c == nil {
		return nil
	}
	var e wire.Encoder
	offs := make([]int64, len(b.logRefs))
	lens := make([]int, len(b.logRefs))
	for k, ref := range b.logRefs {
		rec := b.get(ref)
		e.Buf = e.Buf[:0]
		e.U(partialRecord)
		e.U(uint64(ref))
		e.Bytes(rec)
		if _, err := c.w.Write(e.Buf); err != nil {
			return fmt.Errorf("summaries checkpoint: %w", err)
		}
		c.off += int64(len(e.Buf))
		offs[k], lens[k] = c.off-int64(len(rec)), len(rec)
	}
	e.Buf = e.Buf[:0]
	e.U(partialMark)
	e.U(uint64(next))
	e.U(uint64(b.funcs))
	if _, err := c.w.Write(e.Buf); err != nil {
		return fmt.Errorf("summaries checkpoint: %w", err)
	}
	c.off += int64(len(e.Buf))
	if err := c.w.Flush(); err != nil {
		return fmt.Errorf("summaries checkpoint: %w", err)
	}
	// Written: the records leave memory (a ref put twice in the window
	// is read back from its last copy).
	for k, ref := range b.logRefs {
		if lens[k] > 0 {
			b.spillAt(ref, offs[k], lens[k])
		}
	}
	b.logRefs = b.logRefs[:0]
	return nil
}

// close closes the partial file.
func (c *checkpoint) close() error {
	if c == nil {
		return nil
	}
	return c.f.Close()
}

// removePartial removes the partial file of the store at path, once the
// store is written.
func removePartial(path string) error {
	if err := os.Remove(partialPath(path)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}
