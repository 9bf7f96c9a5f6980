package main

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

func TestWantProgress(t *testing.T) {
	var buf bytes.Buffer
	tests := []struct {
		setting, format string
		w               any
		want            bool
	}{
		{"auto", "text", &buf, false}, // not a terminal
		{"auto", "text", os.Stderr, isTerminal(os.Stderr)},
		{"auto", "json", os.Stderr, false},
		{"always", "json", &buf, true},
		{"never", "text", os.Stderr, false},
	}
	for _, tc := range tests {
		w := tc.w.(interface{ Write([]byte) (int, error) })
		if got := wantProgress(tc.setting, tc.format, w); got != tc.want {
			t.Errorf("wantProgress(%q, %q, %T) = %v", tc.setting, tc.format, tc.w, got)
		}
	}
}

// TestIndexingBar: the bar counts files and ends when indexing is done.
func TestIndexingBar(t *testing.T) {
	var buf bytes.Buffer
	pb := newProgressBars(&buf)
	for done := 0; done <= 1000; done += 250 {
		pb.indexing(done, 1000)
	}
	pb.wait()
	out := buf.String()
	if !strings.Contains(out, "indexing") || !strings.Contains(out, "/1000 files") {
		t.Errorf("bar output %q", out)
	}
}
