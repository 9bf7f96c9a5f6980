package cscan

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autosel-bot/autosel-bot/internal/testkernel"
)

// update rewrites testdata/kernel-digests.txt from the current scanner.
var update = flag.Bool("update", false, "rewrite testdata/kernel-digests.txt")

// digestsFile holds, for a sample of Linux 6.1 files, the digest of the
// scanner's full output (ScanFile, ParseFile and ParseBody of every
// function's text). A speed-up of the scanner must leave them unchanged; a
// deliberate change of output bumps Version and regenerates them with
// `go test ./cscan -run TestKernelDigests -update`.
const digestsFile = "testdata/kernel-digests.txt"

// sampleEvery picks one file in this many (sorted by path) for the sample.
const sampleEvery = 150

// digest returns the digest of everything the scanner produces for src.
func digest(path string, src []byte) string {
	return testkernel.Digest(func(w io.Writer) { writeScan(w, path, src) })
}

// kernelDigests is the recorded sample (digestsFile).
var kernelDigests = testkernel.Digests{
	File:   digestsFile,
	Header: fmt.Sprintf("# cscan.Version %d: path, sha256 of ScanFile+ParseFile+ParseBody output (corpus_test.go)", Version),
	Every:  sampleEvery,
	Min:    300,
	Of:     digest,
	Hint:   "if intended, bump Version and run with -update",
}

// writeScan writes the dumps of ScanFile, ParseFile and ParseBody (of each
// function's lines, numbered as in the file) of one file.
func writeScan(w io.Writer, path string, src []byte) {
	fmt.Fprintln(w, "== scan")
	dumpFile(w, ScanFile(path, src))
	fmt.Fprintln(w, "== parse")
	f := ParseFile(path, src)
	dumpFile(w, f)
	lines := strings.SplitAfter(string(src), "\n")
	for _, fn := range f.Funcs {
		if fn.Start < 1 || fn.End < fn.Start || fn.End > len(lines) {
			continue
		}
		nums := make([]int, 0, fn.End-fn.Start+1)
		for l := fn.Start; l <= fn.End; l++ {
			nums = append(nums, l)
		}
		fmt.Fprintf(w, "== body %s %d\n", fn.Name, fn.Start)
		dumpFunc(w, ParseBody(strings.Join(lines[fn.Start-1:fn.End], ""), nums))
	}
}

// TestKernelDigests checks the scanner's output on a sample of real
// kernel files against recorded digests.
func TestKernelDigests(t *testing.T) {
	kernelDigests.Check(t, testkernel.Dir(t), *update)
}

// TestWriteTreeDigests writes the digest of every file of a tree (env
// CSCAN_DIGEST_ROOT, default the shared kernel tree) to the file named by
// CSCAN_DIGESTS: run it at two commits and diff the outputs to prove a
// change of the scanner leaves its output alone on the whole tree. With
// CSCAN_DUMPS set to a directory, it writes full dumps instead of digests
// for the files whose path contains CSCAN_DUMP_MATCH (to see a difference).
func TestWriteTreeDigests(t *testing.T) {
	out := os.Getenv("CSCAN_DIGESTS")
	if out == "" {
		t.Skip("CSCAN_DIGESTS not set")
	}
	dir := os.Getenv("CSCAN_DIGEST_ROOT")
	if dir == "" {
		dir = testkernel.Dir(t)
	}
	dumps, match := os.Getenv("CSCAN_DUMPS"), os.Getenv("CSCAN_DUMP_MATCH")
	kernelDigests.WriteTree(t, dir, out, func(p string, src []byte) {
		if dumps == "" || match == "" || !strings.Contains(p, match) {
			return
		}
		var sb strings.Builder
		writeScan(&sb, p, src)
		name := filepath.Join(dumps, strings.ReplaceAll(p, "/", "_")+".txt")
		if err := os.WriteFile(name, []byte(sb.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	})
}
