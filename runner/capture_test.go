package runner

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// TestCapture: whatever the chunking, capture keeps exactly the stream's
// first head and last tail bytes, and says how many it dropped.
func TestCapture(t *testing.T) {
	stream := []byte(strings.Repeat("0123456789abcdefghij\n", 50)) // 1050 bytes
	tests := []struct {
		name       string
		head, tail int
		chunk      int
		n          int // bytes of stream written
	}{
		{"fits", 100, 100, 7, 150},
		{"exact", 100, 100, 1, 200},
		{"drop middle small chunks", 100, 100, 3, 1050},
		{"drop middle one write", 100, 100, 1050, 1050},
		{"chunk bigger than tail", 10, 50, 333, 1050},
		{"no head", 0, 64, 5, 1050},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newCapture(tt.head, tt.tail)
			for i := 0; i < tt.n; i += tt.chunk {
				end := min(i+tt.chunk, tt.n)
				if n, err := c.Write(stream[i:end]); n != end-i || err != nil {
					t.Fatalf("Write = %d, %v", n, err)
				}
			}
			if c.Total() != int64(tt.n) {
				t.Fatalf("total %d, want %d", c.Total(), tt.n)
			}
			got := c.Bytes()
			in := stream[:tt.n]
			if tt.n <= tt.head+tt.tail {
				if !bytes.Equal(got, in) {
					t.Fatalf("got %q, want the whole stream", got)
				}
				return
			}
			head, tail := in[:tt.head], in[tt.n-tt.tail:]
			if !bytes.HasPrefix(got, head) || !bytes.HasSuffix(got, tail) {
				t.Fatalf("got %q, want head %q and tail %q", got, head, tail)
			}
			marker := fmt.Sprintf("%d bytes of output dropped", tt.n-tt.head-tt.tail)
			if !bytes.Contains(got, []byte(marker)) {
				t.Fatalf("no %q in %q", marker, got)
			}
			if len(got) > tt.head+tt.tail+200 {
				t.Fatalf("kept %d bytes", len(got))
			}
		})
	}
}
