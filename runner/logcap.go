package runner

import (
	"io"
	"sync"
)

// Build log bounds: a warning flood writes ~0.7 MB/s; the log on disk
// keeps its first buildLogHead bytes as they come and its last
// buildLogTail bytes (where make's errors are) when flushed.
const (
	buildLogHead = 8 << 20
	buildLogTail = 8 << 20
)

// cappedLog writes the first head bytes to w as they come and keeps the
// rest's last tail bytes in memory; Flush appends them to w after a line
// saying how much was dropped. It is safe for concurrent use.
type cappedLog struct {
	w    io.Writer
	head int64

	mu   sync.Mutex
	n    int64
	rest *capture
}

func newCappedLog(w io.Writer, head, tail int) *cappedLog {
	return &cappedLog{w: w, head: int64(head), rest: newCapture(0, tail)}
}

// Write passes p through while within the head, then keeps its tail.
func (c *cappedLog) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := len(p)
	if room := c.head - c.n; room > 0 {
		k := int(min(room, int64(len(p))))
		if _, err := c.w.Write(p[:k]); err != nil {
			return 0, err
		}
		c.n += int64(k)
		p = p[k:]
	}
	if len(p) > 0 {
		c.rest.Write(p)
	}
	return n, nil
}

// Flush writes what was kept past the head (and the dropped count) to w.
func (c *cappedLog) Flush() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.rest.Total() == 0 {
		return nil
	}
	_, err := c.w.Write(c.rest.Bytes())
	c.rest = newCapture(0, c.rest.tail)
	return err
}
