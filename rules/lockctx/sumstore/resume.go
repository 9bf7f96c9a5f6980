package sumstore

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/autosel-bot/autosel-bot/index"
)

// A Prepare of a persisted index keeps what it finished: after each
// window of files (prepareFiles) it appends the records put during the
// window to a partial file beside the store (partialPath), then a mark
// naming the next window. Between two windows nothing but the records is
// carried over (each window has an engine of its own, and the index
// drops what it decoded), so a Prepare that was stopped (a killed first
// `check --tree`) and starts again from the last mark writes the same
// store, byte for byte, as one that ran through (TestPrepareResumes).
// A partial file of another generation of the tree, or of another
// layout, is started anew; a torn tail (a kill in the middle of a write)
// is cut at the last mark.

// partialMagic starts a partial file; its version changes with the layout.
const partialMagic = "autosel-bot summaries partial v1\n"

// Entry tags of a partial file.
const (
	partialRecord = 'r' // ref, length, record bytes
	partialMark   = 'w' // next window's first file, functions counted
)

// partialPath is the partial file of the store at path.
func partialPath(path string) string { return path + ".partial" }

// checkpoint appends b's records to a partial file.
type checkpoint struct {
	f *os.File
	w *bufio.Writer
}

// resume reads the partial file of the store at path into b, when it is
// of b's tree generation, and opens it for the next windows. It returns
// the first file left to summarise (0 when the file was missing, stale
// or unreadable: it is then started anew).
func (b *Builder) resume(path string, window int) (*checkpoint, int, error) {
	pp := partialPath(path)
	next, end := 0, int64(0)
	if data, err := os.ReadFile(pp); err == nil {
		next, end = b.replay(data, window)
	}
	if end == 0 {
		var h bytes.Buffer
		h.WriteString(partialMagic)
		writeString(&h, b.ix.Generation())
		h.Write(binary.AppendUvarint(nil, uint64(b.ix.NumFiles())))
		h.Write(binary.AppendUvarint(nil, uint64(window)))
		if err := os.WriteFile(pp, h.Bytes(), 0o600); err != nil {
			return nil, 0, fmt.Errorf("summaries checkpoint: %w", err)
		}
		end = int64(h.Len())
		b.resetRecords()
		next = 0
	}
	f, err := os.OpenFile(pp, os.O_WRONLY, 0)
	if err != nil {
		return nil, 0, fmt.Errorf("summaries checkpoint: %w", err)
	}
	// A torn tail goes: the next window is appended after the last mark.
	if err := f.Truncate(end); err != nil {
		f.Close()
		return nil, 0, fmt.Errorf("summaries checkpoint: %w", err)
	}
	if _, err := f.Seek(end, io.SeekStart); err != nil {
		f.Close()
		return nil, 0, fmt.Errorf("summaries checkpoint: %w", err)
	}
	b.logged = true
	return &checkpoint{f: f, w: bufio.NewWriterSize(f, 1<<20)}, next, nil
}

// replay puts the records of a partial file's complete windows into b and
// returns the next window's first file and the offset after the last
// mark (0, 0 when data is not a partial file of b's generation, layout
// and window size, or holds no complete window).
func (b *Builder) replay(data []byte, window int) (next int, end int64) {
	r := bytes.NewReader(data)
	magic := make([]byte, len(partialMagic))
	if _, err := io.ReadFull(r, magic); err != nil || string(magic) != partialMagic {
		return 0, 0
	}
	gen, err := readString(r)
	if err != nil || gen != b.ix.Generation() {
		return 0, 0
	}
	if n, err := binary.ReadUvarint(r); err != nil || n != uint64(b.ix.NumFiles()) {
		return 0, 0
	}
	if w, err := binary.ReadUvarint(r); err != nil || w != uint64(window) {
		return 0, 0
	}
	type put struct {
		ref index.Ref
		rec []byte
	}
	var pending []put
	for {
		tag, err := r.ReadByte()
		if err != nil {
			return next, end
		}
		switch tag {
		case partialRecord:
			ref, err1 := binary.ReadUvarint(r)
			n, err2 := binary.ReadUvarint(r)
			if err1 != nil || err2 != nil || n > uint64(r.Len()) {
				return next, end
			}
			rec := make([]byte, n)
			if _, err := io.ReadFull(r, rec); err != nil {
				return next, end
			}
			pending = append(pending, put{index.Ref(ref), rec})
		case partialMark:
			w, err1 := binary.ReadUvarint(r)
			funcs, err2 := binary.ReadUvarint(r)
			if err1 != nil || err2 != nil || w > uint64(b.ix.NumFiles()) {
				return next, end
			}
			for _, p := range pending {
				b.putRecord(p.ref, p.rec)
			}
			pending = pending[:0]
			next, b.funcs = int(w), int(funcs)
			end = int64(len(data) - r.Len())
		default:
			return next, end
		}
	}
}

// mark appends the records put since the last mark, and a mark naming
// next as the first file of the next window, and flushes them.
func (c *checkpoint) mark(b *Builder, next int) error {
	if c == nil {
		return nil
	}
	var buf []byte
	for _, ref := range b.logRefs {
		rec := b.get(ref)
		buf = append(buf[:0], partialRecord)
		buf = binary.AppendUvarint(buf, uint64(ref))
		buf = binary.AppendUvarint(buf, uint64(len(rec)))
		if _, err := c.w.Write(buf); err != nil {
			return fmt.Errorf("summaries checkpoint: %w", err)
		}
		if _, err := c.w.Write(rec); err != nil {
			return fmt.Errorf("summaries checkpoint: %w", err)
		}
	}
	b.logRefs = b.logRefs[:0]
	buf = append(buf[:0], partialMark)
	buf = binary.AppendUvarint(buf, uint64(next))
	buf = binary.AppendUvarint(buf, uint64(b.funcs))
	if _, err := c.w.Write(buf); err != nil {
		return fmt.Errorf("summaries checkpoint: %w", err)
	}
	if err := c.w.Flush(); err != nil {
		return fmt.Errorf("summaries checkpoint: %w", err)
	}
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

func writeString(w *bytes.Buffer, s string) {
	w.Write(binary.AppendUvarint(nil, uint64(len(s))))
	w.WriteString(s)
}

func readString(r *bytes.Reader) (string, error) {
	n, err := binary.ReadUvarint(r)
	if err != nil || n > uint64(r.Len()) {
		return "", errors.New("bad string")
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(r, b); err != nil {
		return "", err
	}
	return string(b), nil
}
