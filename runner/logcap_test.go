package runner

import (
	"bytes"
	"strings"
	"testing"
)

// TestCappedLog (issue 37 point 7): a build printing far more than the
// cap leaves a bounded log whose head and tail (make's errors) are the
// build's own, with the dropped amount said in between.
func TestCappedLog(t *testing.T) {
	tests := []struct {
		name       string
		lines      int
		head, tail int
		dropped    bool
	}{
		{"small log untouched", 10, 1 << 10, 1 << 10, false},
		{"warning flood", 200000, 4 << 10, 4 << 10, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var disk bytes.Buffer
			c := newCappedLog(&disk, tt.head, tt.tail)
			var all strings.Builder
			for i := 0; i < tt.lines; i++ {
				l := "fs/pipe.c:1:1: warning: flood\n"
				all.WriteString(l)
				c.Write([]byte(l))
			}
			last := "make[1]: *** [fs/pipe.o] Error 1\n"
			all.WriteString(last)
			c.Write([]byte(last))
			if err := c.Flush(); err != nil {
				t.Fatal(err)
			}
			got := disk.String()
			if !tt.dropped {
				if got != all.String() {
					t.Fatalf("log changed: %q", got)
				}
				return
			}
			if len(got) > tt.head+tt.tail+200 {
				t.Fatalf("log of %d bytes, cap %d", len(got), tt.head+tt.tail)
			}
			if !strings.HasPrefix(all.String(), got[:tt.head]) || !strings.HasSuffix(got, last) || !strings.Contains(got, "bytes of output dropped") {
				t.Fatalf("log lacks its head, its last line or the dropped count:\n%s...%s", got[:100], got[len(got)-200:])
			}
		})
	}
}
