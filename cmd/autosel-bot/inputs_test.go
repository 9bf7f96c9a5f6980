package main

import (
	"bytes"
	"compress/gzip"
	"os"
	"strings"
	"testing"
)

// TestCheckMboxGz: a thread as lore and b4 give it (t.mbox.gz) reports
// the same as the plain mbox; a file with no patch is named.
func TestCheckMboxGz(t *testing.T) {
	data, err := os.ReadFile(seed000)
	if err != nil {
		t.Fatal(err)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(data)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	file := writeFile(t, "t.mbox.gz", gz.String())
	_, want, _ := runCLI(t, "", "check", "--format", "terse", seed000)
	code, got, stderr := runCLI(t, "", "check", "--format", "terse", file)
	if code == 2 || got != want || want == "" {
		t.Errorf("t.mbox.gz: exit %d, stderr %s\noutput:\n%s\nwant (plain mbox):\n%s", code, stderr, got, want)
	}
	text := writeFile(t, "notes.txt", "hello world\n")
	code, _, stderr = runCLI(t, "", "check", text)
	if code != 2 || !strings.Contains(stderr, "no patch found in "+text) {
		t.Errorf("text file: exit %d, stderr %q; want 2 and \"no patch found in %s\"", code, stderr, text)
	}
}
