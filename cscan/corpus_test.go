package cscan

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
	h := sha256.New()
	w := bufio.NewWriter(h)
	writeScan(w, path, src)
	w.Flush()
	return hex.EncodeToString(h.Sum(nil))
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

// kernelSources lists the *.c and *.h files under dir, relative and sorted.
func kernelSources(tb testing.TB, dir string) []string {
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

// TestKernelDigests checks the scanner's output on a sample of real
// kernel files against recorded digests.
func TestKernelDigests(t *testing.T) {
	dir := testkernel.Dir(t)
	if *update {
		var sb strings.Builder
		fmt.Fprintf(&sb, "# cscan.Version %d: path, sha256 of ScanFile+ParseFile+ParseBody output (corpus_test.go)\n", Version)
		for i, p := range kernelSources(t, dir) {
			if i%sampleEvery != 0 {
				continue
			}
			src, err := os.ReadFile(filepath.Join(dir, p))
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(&sb, "%s %s\n", p, digest(p, src))
		}
		if err := os.WriteFile(digestsFile, []byte(sb.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	b, err := os.ReadFile(digestsFile)
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
		if got := digest(p, src); got != want {
			t.Errorf("%s: scanner output changed (digest %s, want %s); if intended, bump Version and run with -update", p, got, want)
		}
	}
	if n < 300 {
		t.Errorf("only %d sample files", n)
	}
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
	f, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	for _, p := range kernelSources(t, dir) {
		src, err := os.ReadFile(filepath.Join(dir, p))
		if err != nil {
			t.Fatal(err)
		}
		if dumps != "" && match != "" && strings.Contains(p, match) {
			var sb strings.Builder
			writeScan(&sb, p, src)
			name := filepath.Join(dumps, strings.ReplaceAll(p, "/", "_")+".txt")
			if err := os.WriteFile(name, []byte(sb.String()), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		fmt.Fprintf(w, "%s %s\n", p, digest(p, src))
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}
