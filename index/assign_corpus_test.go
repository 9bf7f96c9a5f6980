package index

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

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
	h := sha256.New()
	w := bufio.NewWriter(h)
	writeAssigns(w, path, src)
	w.Flush()
	return hex.EncodeToString(h.Sum(nil))
}

// treeSources lists the *.c and *.h files under dir, relative and sorted.
func treeSources(tb testing.TB, dir string) []string {
	tb.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == ".git" {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(p, ".c") || strings.HasSuffix(p, ".h") {
			rel, err := filepath.Rel(dir, p)
			if err != nil {
				return err
			}
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	sort.Strings(out)
	return out
}

// TestAssignDigests checks ScanAssigns on a sample of real kernel files
// against recorded digests.
func TestAssignDigests(t *testing.T) {
	dir := testkernel.Dir(t)
	if *updateAssigns {
		var sb strings.Builder
		fmt.Fprintf(&sb, "# assignVersion %d: path, sha256 of ScanAssigns output (assign_corpus_test.go)\n", assignVersion)
		for i, p := range treeSources(t, dir) {
			if i%assignSampleEvery != 0 {
				continue
			}
			src, err := os.ReadFile(filepath.Join(dir, p))
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(&sb, "%s %s\n", p, assignDigest(p, src))
		}
		if err := os.WriteFile(assignDigestsFile, []byte(sb.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	b, err := os.ReadFile(assignDigestsFile)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, ln := range strings.Split(string(b), "\n") {
		if ln == "" || strings.HasPrefix(ln, "#") {
			continue
		}
		p, want, ok := strings.Cut(ln, " ")
		if !ok {
			t.Fatalf("bad line %q", ln)
		}
		src, err := os.ReadFile(filepath.Join(dir, p))
		if err != nil {
			t.Fatal(err)
		}
		n++
		if got := assignDigest(p, src); got != want {
			t.Errorf("%s: ScanAssigns output changed (digest %s, want %s); if intended, bump assignVersion and run with -update-assigns", p, got, want)
		}
	}
	if n < 500 {
		t.Errorf("only %d sample files", n)
	}
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
	f, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	for _, p := range treeSources(t, dir) {
		src, err := os.ReadFile(filepath.Join(dir, p))
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(w, "%s %s\n", p, assignDigest(p, src))
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// BenchmarkScanAssigns runs ScanAssigns over fs/ and kernel/ of Linux 6.1,
// read into memory first (about 2,400 files, 57 MB; one goroutine).
func BenchmarkScanAssigns(b *testing.B) {
	dir := testkernel.Dir(b)
	type file struct {
		path string
		src  []byte
	}
	var files []file
	var size int64
	for _, d := range []string{"fs", "kernel"} {
		for _, p := range treeSources(b, filepath.Join(dir, d)) {
			src, err := os.ReadFile(filepath.Join(dir, d, p))
			if err != nil {
				b.Fatal(err)
			}
			files = append(files, file{d + "/" + p, src})
			size += int64(len(src))
		}
	}
	b.SetBytes(size)
	b.ReportAllocs()
	b.ResetTimer()
	cpu := cpuTime(b)
	for i := 0; i < b.N; i++ {
		n := 0
		for _, f := range files {
			n += len(ScanAssigns(f.path, f.src))
		}
		if n < 1000 {
			b.Fatalf("only %d assignments", n)
		}
	}
	b.ReportMetric(float64(cpuTime(b)-cpu)/float64(b.N)/1e6, "cpu-ms/op")
}

// cpuTime returns the CPU time (user and system, all threads) the process
// has used: on a machine shared with other jobs it varies much less than
// the elapsed time.
func cpuTime(tb testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
