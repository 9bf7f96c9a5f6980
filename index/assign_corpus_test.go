package index

import (
	"flag"
	"fmt"
	"io"
	"os"
	"testing"

	"github.com/autosel-bot/autosel-bot/internal/testkernel"
)

// updateAssigns rewrites testdata/assign-digests.txt from the current
// ScanAssigns.
var updateAssigns = flag.Bool("update-assigns", false, "rewrite testdata/assign-digests.txt")

// assignDigestsFile holds, for a sample of Linux 6.1 files, the digest of
// ScanAssigns' output. A speed-up must leave them unchanged; a deliberate
// change bumps assignVersion and regenerates them with
// `go test ./index -run TestAssignDigests -update-assigns`.
const assignDigestsFile = "testdata/assign-digests.txt"

// assignSampleEvery picks one file in this many (sorted by path).
const assignSampleEvery = 100

func writeAssigns(w io.Writer, path string, src []byte) {
	for _, a := range ScanAssigns(path, src) {
		fmt.Fprintf(w, "%q %q %q %q %q %q %d\n", a.Struct, a.Member, a.Func, a.Base, a.Var, a.File, a.Line)
	}
}

func assignDigest(path string, src []byte) string {
	return testkernel.Digest(func(w io.Writer) { writeAssigns(w, path, src) })
}

// assignDigests is the recorded sample (assignDigestsFile).
var assignDigests = testkernel.Digests{
	File:   assignDigestsFile,
	Header: fmt.Sprintf("# assignVersion %d: path, sha256 of ScanAssigns output (assign_corpus_test.go)", assignVersion),
	Every:  assignSampleEvery,
	Min:    500,
	Of:     assignDigest,
	Hint:   "if intended, bump assignVersion and run with -update-assigns",
}

// TestAssignDigests checks ScanAssigns on a sample of real kernel files
// against recorded digests.
func TestAssignDigests(t *testing.T) {
	assignDigests.Check(t, testkernel.Dir(t), *updateAssigns)
}

// TestWriteAssignDigests writes the ScanAssigns digest of every file of a
// tree (env ASSIGN_DIGEST_ROOT, default the shared kernel tree) to the file
// named by ASSIGN_DIGESTS: run it at two commits and diff the outputs.
func TestWriteAssignDigests(t *testing.T) {
	out := os.Getenv("ASSIGN_DIGESTS")
	if out == "" {
		t.Skip("ASSIGN_DIGESTS not set")
	}
	dir := os.Getenv("ASSIGN_DIGEST_ROOT")
	if dir == "" {
		dir = testkernel.Dir(t)
	}
	assignDigests.WriteTree(t, dir, out, nil)
}

// BenchmarkScanAssigns runs ScanAssigns over fs/ and kernel/ of Linux 6.1,
// read into memory first (about 2,400 files, 57 MB; one goroutine).
func BenchmarkScanAssigns(b *testing.B) {
	files, size := testkernel.ReadSources(b, testkernel.Dir(b), "fs", "kernel")
	b.SetBytes(size)
	b.ReportAllocs()
	b.ResetTimer()
	cpu := testkernel.CPUTime(b)
	for i := 0; i < b.N; i++ {
		n := 0
		for _, f := range files {
			n += len(ScanAssigns(f.Path, f.Src))
		}
		if n < 1000 {
			b.Fatalf("only %d assignments", n)
		}
	}
	testkernel.ReportCPU(b, cpu)
}
