package runner

import (
	"fmt"
	"sync"
)

// Guest output bounds: a hostile guest can print as fast as the emulated
// UART goes (11 MB a minute under TCG); the runner keeps the first and the
// last bytes of each port, in memory and on disk, and says how much it
// dropped in between.
const (
	consoleHead = 1 << 20
	consoleTail = 3 << 20
)

// capture is an io.Writer keeping the first head and the last tail bytes
// written to it. It is safe for concurrent use.
type capture struct {
	head, tail int

	mu    sync.Mutex
	first []byte
	last  []byte // holds up to 2*tail bytes; the last tail of them count
	total int64
}

func newCapture(head, tail int) *capture {
	return &capture{head: head, tail: tail}
}

// Write keeps p's bytes that fall in the head or the tail window.
func (c *capture) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := len(p)
	c.total += int64(n)
	if room := c.head - len(c.first); room > 0 {
		k := min(room, len(p))
		c.first = append(c.first, p[:k]...)
		p = p[k:]
	}
	if c.tail <= 0 || len(p) == 0 {
		return n, nil
	}
	if len(p) >= c.tail {
		c.last = append(c.last[:0], p[len(p)-c.tail:]...)
		return n, nil
	}
	if len(c.last)+len(p) > 2*c.tail {
		keep := c.tail - len(p)
		c.last = append(c.last[:0], c.last[len(c.last)-keep:]...)
	}
	c.last = append(c.last, p...)
	return n, nil
}

// Total is the number of bytes written so far.
func (c *capture) Total() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.total
}

// Bytes returns what was kept: the head, a line saying how many bytes were
// dropped (when any were), and the tail. It never exceeds head + tail +
// the length of that line.
func (c *capture) Bytes() []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	last := c.last
	if len(last) > c.tail {
		last = last[len(last)-c.tail:]
	}
	out := append([]byte(nil), c.first...)
	if dropped := c.total - int64(len(c.first)) - int64(len(last)); dropped > 0 {
		if len(out) > 0 && out[len(out)-1] != '\n' {
			out = append(out, '\n')
		}
		out = fmt.Appendf(out, "[autosel: %d bytes of output dropped; kept the first %d and the last %d]\n",
			dropped, len(c.first), len(last))
	}
	return append(out, last...)
}
