package cscan

import (
	"testing"

	"github.com/autosel-bot/autosel-bot/internal/testkernel"
)

// loadBenchFiles reads fs/ and kernel/ of Linux 6.1 (about 2,400 files,
// 57 MB) into memory, so that only the scan is timed.
func loadBenchFiles(b *testing.B) ([]testkernel.SourceFile, int64) {
	b.Helper()
	return testkernel.ReadSources(b, testkernel.Dir(b), "fs", "kernel")
}

// BenchmarkScanFile scans fs/ and kernel/ of Linux 6.1 as the index does
// (ScanFile, one goroutine).
func BenchmarkScanFile(b *testing.B) { benchScan(b, ScanFile) }

// BenchmarkParseFile is BenchmarkScanFile with statement trees, as
// overlays and rules re-parse files.
func BenchmarkParseFile(b *testing.B) { benchScan(b, ParseFile) }

// benchScan times scan over the benchmark files, reporting CPU time and
// allocations per pass.
func benchScan(b *testing.B, scan func(path string, src []byte) *File) {
	files, size := loadBenchFiles(b)
	b.SetBytes(size)
	b.ReportAllocs()
	b.ResetTimer()
	cpu := testkernel.CPUTime(b)
	for i := 0; i < b.N; i++ {
		funcs := 0
		for _, f := range files {
			funcs += len(scan(f.Path, f.Src).Funcs)
		}
		if funcs < 10000 {
			b.Fatalf("only %d functions", funcs)
		}
	}
	testkernel.ReportCPU(b, cpu)
}
