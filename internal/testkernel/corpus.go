package testkernel

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
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
)

// Sources lists the *.c and *.h files under dir (its .git left out),
// relative to dir with forward slashes, sorted.
func Sources(tb testing.TB, dir string) []string {
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

// SourceFile is one source file read into memory.
type SourceFile struct {
	Path string
	Src  []byte
}

// ReadSources reads the sources under each of dirs (relative to the tree
// dir) into memory, for benchmarks that time only the scan, and returns
// them with their total size.
func ReadSources(tb testing.TB, dir string, dirs ...string) ([]SourceFile, int64) {
	tb.Helper()
	var files []SourceFile
	var size int64
	for _, d := range dirs {
		for _, p := range Sources(tb, filepath.Join(dir, d)) {
			src, err := os.ReadFile(filepath.Join(dir, d, p))
			if err != nil {
				tb.Fatal(err)
			}
			files = append(files, SourceFile{Path: d + "/" + p, Src: src})
			size += int64(len(src))
		}
	}
	return files, size
}

// Digest returns the hex sha256 of what write writes.
func Digest(write func(w io.Writer)) string {
	h := sha256.New()
	w := bufio.NewWriter(h)
	write(w)
	w.Flush()
	return hex.EncodeToString(h.Sum(nil))
}

// Digests is a recorded sample of a scanner's output on real kernel
// files: one "path digest" line per sampled file, under a header line.
// A speed-up must leave the digests unchanged; a deliberate change of
// output bumps the scanner's version and rewrites the file.
type Digests struct {
	// File is the digests file (testdata/...).
	File string
	// Header is the "# ..." first line written with the digests (the
	// scanner's version, what is hashed).
	Header string
	// Every picks one file in this many (sorted by path).
	Every int
	// Min is the fewest sampled files a check accepts.
	Min int
	// Of is the digest of the output for one file.
	Of func(path string, src []byte) string
	// Hint says how to rewrite the file after a deliberate change.
	Hint string
}

// Check compares the digests of the sampled files of the tree at dir with
// the recorded ones, or rewrites the record when update is set.
func (d Digests) Check(t *testing.T, dir string, update bool) {
	t.Helper()
	if update {
		var sb strings.Builder
		sb.WriteString(d.Header + "\n")
		for i, p := range Sources(t, dir) {
			if i%d.Every != 0 {
				continue
			}
			src, err := os.ReadFile(filepath.Join(dir, p))
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(&sb, "%s %s\n", p, d.Of(p, src))
		}
		if err := os.WriteFile(d.File, []byte(sb.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	b, err := os.ReadFile(d.File)
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
			t.Fatalf("%s: bad line %q", d.File, ln)
		}
		src, err := os.ReadFile(filepath.Join(dir, p))
		if err != nil {
			t.Fatal(err)
		}
		n++
		if got := d.Of(p, src); got != want {
			t.Errorf("%s: output changed (digest %s, want %s); %s", p, got, want, d.Hint)
		}
	}
	if n < d.Min {
		t.Errorf("%s: only %d sample files", d.File, n)
	}
}

// WriteTree writes the digest of every source file of the tree at dir to
// out ("path digest" lines): run at two commits and diff the outputs to
// prove a change leaves the output alone on the whole tree. each, when
// set, is called with every file too (to dump some in full).
func (d Digests) WriteTree(t *testing.T, dir, out string, each func(path string, src []byte)) {
	t.Helper()
	f, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	for _, p := range Sources(t, dir) {
		src, err := os.ReadFile(filepath.Join(dir, p))
		if err != nil {
			t.Fatal(err)
		}
		if each != nil {
			each(p, src)
		}
		fmt.Fprintf(w, "%s %s\n", p, d.Of(p, src))
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// CPUTime returns the CPU time (user and system, all threads, the garbage
// collector's included) the process has used: on a machine shared with
// other jobs it varies much less than the elapsed time.
func CPUTime(tb testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// ReportCPU reports the CPU time per operation since start as cpu-ms/op.
func ReportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64(CPUTime(b)-start)/float64(b.N)/1e6, "cpu-ms/op")
}
