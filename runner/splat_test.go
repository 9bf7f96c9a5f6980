package runner

import (
	"os"
	"strings"
	"testing"
)

func TestFindSplats(t *testing.T) {
	tests := []struct {
		file  string
		kinds []string
		title string // first splat's title prefix
		last  string // the first splat's text ends with this line
	}{
		{"sleep-in-atomic.log", []string{"sleep-in-atomic"}, "BUG: sleeping function called from invalid context at kernel/locking/mutex.c", "</TASK>"},
		{"lockdep.log", []string{"lockdep"}, "WARNING: possible circular locking dependency detected", "</TASK>"},
		{"warn.log", []string{"warning"}, "WARNING: CPU: 1 PID: 77 at fs/pipe.c:1300", "---[ end trace 0000000000000000 ]---"},
		{"oops-panic.log", []string{"oops"}, "BUG: kernel NULL pointer dereference, address: 0000000000000000", "---[ end Kernel panic - not syncing: Fatal exception ]---"},
		{"hung-task.log", []string{"hung-task"}, "INFO: task pipe_two_reade:80 blocked for more than 10 seconds.", "</TASK>"},
		{"clean-boot.log", nil, "", ""},
		// A whole console of the runner's Linux 6.1 kernel with a patch
		// that takes a mutex under pipe->rd_wait.lock.
		{"real-6.1-sleep-in-atomic.log", []string{"sleep-in-atomic", "lockdep"}, "BUG: sleeping function called from invalid context at kernel/locking/mutex.c:580", "</TASK>"},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			b, err := os.ReadFile("testdata/splats/" + tt.file)
			if err != nil {
				t.Fatal(err)
			}
			got := findSplats(consoleLines(b))
			var kinds []string
			for _, s := range got {
				kinds = append(kinds, s.Kind)
			}
			if strings.Join(kinds, ",") != strings.Join(tt.kinds, ",") {
				t.Fatalf("kinds = %v, want %v", kinds, tt.kinds)
			}
			if len(got) == 0 {
				return
			}
			if !strings.HasPrefix(got[0].Title, tt.title) {
				t.Errorf("title = %q, want prefix %q", got[0].Title, tt.title)
			}
			lines := strings.Split(got[0].Text, "\n")
			if last := strings.TrimSpace(lines[len(lines)-1]); last != tt.last {
				t.Errorf("text ends with %q, want %q", last, tt.last)
			}
			if len(lines) > maxSplatLines {
				t.Errorf("text has %d lines", len(lines))
			}
		})
	}
}

func TestConsoleSection(t *testing.T) {
	con := []byte("[    0.100000] booting\n[    1.000000] autosel: begin a 0\n[    1.100000] inside a\n[    1.200000] autosel: end a 0\n[    1.300000] autosel: begin b 0\n[    1.400000] inside b\n")
	lines := consoleLines(con)
	if got := consoleSection(lines, "a", 0); len(got) != 1 || got[0] != "inside a" {
		t.Errorf("section a = %q", got)
	}
	if got := consoleSection(lines, "b", 0); len(got) != 1 || got[0] != "inside b" {
		t.Errorf("section b (never ended) = %q", got)
	}
	if got := consoleSection(lines, "c", 0); got != nil {
		t.Errorf("section c = %q", got)
	}
}

// FuzzFindSplats: arbitrary console text never panics and every splat
// respects the line cap.
func FuzzFindSplats(f *testing.F) {
	for _, n := range []string{"sleep-in-atomic.log", "oops-panic.log", "warn.log"} {
		if b, err := os.ReadFile("testdata/splats/" + n); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("BUG: x\nOops: y\nKernel panic - not syncing\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, s := range findSplats(consoleLines(data)) {
			if s.Kind == "" || s.Title == "" {
				t.Fatalf("empty splat %+v", s)
			}
			if n := strings.Count(s.Text, "\n") + 1; n > maxSplatLines {
				t.Fatalf("splat of %d lines", n)
			}
		}
	})
}

func BenchmarkFindSplats(b *testing.B) {
	var con []byte
	for _, n := range []string{"clean-boot.log", "sleep-in-atomic.log", "lockdep.log", "warn.log", "oops-panic.log"} {
		d, err := os.ReadFile("testdata/splats/" + n)
		if err != nil {
			b.Fatal(err)
		}
		con = append(con, d...)
	}
	for len(con) < 1<<20 {
		con = append(con, con...)
	}
	b.SetBytes(int64(len(con)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		findSplats(consoleLines(con))
	}
}

func TestRealSplatSecond(t *testing.T) {
	b, err := os.ReadFile("testdata/splats/real-6.1-sleep-in-atomic.log")
	if err != nil {
		t.Fatal(err)
	}
	got := findSplats(consoleLines(b))
	if len(got) != 2 || got[1].Title != "[ BUG: Invalid wait context ]" || !strings.Contains(got[1].Text, "pipe_resize_stats_lock") {
		t.Fatalf("%+v", got)
	}
	if strings.Contains(got[0].Text, "autosel:") || strings.Contains(got[1].Text, "reboot:") {
		t.Errorf("splat text runs past the report")
	}
}
