package cscan

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/autosel-bot/autosel-bot/internal/testkernel"
)

// benchDirs is the real subset of Linux 6.1 the scanner benchmarks read
// (about 2,400 files, 57 MB).
var benchDirs = []string{"fs", "kernel"}

type benchFile struct {
	path string
	src  []byte
}

// loadBenchFiles reads the benchmark subset into memory, so that only the
// scan is timed.
func loadBenchFiles(b *testing.B) ([]benchFile, int64) {
	b.Helper()
	dir := testkernel.Dir(b)
	var files []benchFile
	var size int64
	for _, d := range benchDirs {
		for _, p := range kernelSources(b, filepath.Join(dir, d)) {
			src, err := os.ReadFile(filepath.Join(dir, d, p))
			if err != nil {
				b.Fatal(err)
			}
			files = append(files, benchFile{path: d + "/" + p, src: src})
			size += int64(len(src))
		}
	}
	return files, size
}

// cpuTime returns the CPU time (user and system, all threads, the garbage
// collector's included) the process has used.
func cpuTime(tb testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU reports the CPU time per operation since start: on a machine
// shared with other jobs it varies much less than the elapsed time.
func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64(cpuTime(b)-start)/float64(b.N)/1e6, "cpu-ms/op")
}

// BenchmarkScanFile scans fs/ and kernel/ of Linux 6.1 as the index does
// (ScanFile, one goroutine).
func BenchmarkScanFile(b *testing.B) {
	files, size := loadBenchFiles(b)
	b.SetBytes(size)
	b.ReportAllocs()
	b.ResetTimer()
	cpu := cpuTime(b)
	for i := 0; i < b.N; i++ {
		funcs := 0
		for _, f := range files {
			funcs += len(ScanFile(f.path, f.src).Funcs)
		}
		if funcs < 10000 {
			b.Fatalf("only %d functions", funcs)
		}
	}
	reportCPU(b, cpu)
}

// BenchmarkParseFile is BenchmarkScanFile with statement trees, as
// overlays and rules re-parse files.
func BenchmarkParseFile(b *testing.B) {
	files, size := loadBenchFiles(b)
	b.SetBytes(size)
	b.ReportAllocs()
	b.ResetTimer()
	cpu := cpuTime(b)
	for i := 0; i < b.N; i++ {
		funcs := 0
		for _, f := range files {
			funcs += len(ParseFile(f.path, f.src).Funcs)
		}
		if funcs < 10000 {
			b.Fatalf("only %d functions", funcs)
		}
	}
	reportCPU(b, cpu)
}
