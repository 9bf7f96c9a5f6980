package sandbox

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestDiskBudget (issue 37 point 7): a build that keeps writing to its
// build dir is killed once it has added more than Options.DiskBudget,
// with a DiskError naming the budget; what was there before the build
// is not charged, and a build within its budget runs to the end.
func TestDiskBudget(t *testing.T) {
	s, dir, helper := needBwrap(t, Options{DiskBudget: 8 << 20})
	s.diskInterval = 100 * time.Millisecond
	// 32 MiB already in the dir: a copy of a baseline build dir.
	if err := os.WriteFile(filepath.Join(dir, "baseline"), make([]byte, 32<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := runHelper(context.Background(), s, dir, helper, nil, "filldir", dir, "4")
	if err != nil || !strings.Contains(out, "filled 4") {
		t.Fatalf("4 MiB under an 8 MiB budget: %v: %s", err, out)
	}
	start := time.Now()
	out, err = runHelper(context.Background(), s, dir, helper, nil, "filldir", dir, "0")
	var de *DiskError
	if !errors.Is(err, ErrDiskBudget) || !errors.As(err, &de) {
		t.Fatalf("an endless writer ended with %v: %s", err, out)
	}
	if de.Used <= 8<<20 || de.Used > 24<<20 || de.Budget != 8<<20 {
		t.Errorf("killed at %d MiB used of a budget of %d MiB", de.Used>>20, de.Budget>>20)
	}
	if !strings.Contains(err.Error(), "sandbox.disk_budget") {
		t.Errorf("error does not name the setting: %v", err)
	}
	t.Logf("killed after %s: %v", time.Since(start).Round(time.Millisecond), err)
	if n := diskUse([]string{dir}); n > 32<<20+4<<20+24<<20 {
		t.Errorf("%d MiB left in the dir", n>>20)
	}
}

// TestDiskReserve: a build is killed when the filesystem of its build dir
// has less free space than Options.DiskReserve, however little it wrote
// itself (a reserve above the disk's size stands for a full disk).
func TestDiskReserve(t *testing.T) {
	s, dir, helper := needBwrap(t, Options{DiskReserve: 1 << 62, DiskBudget: -1})
	s.diskInterval = 100 * time.Millisecond
	out, err := runHelper(context.Background(), s, dir, helper, nil, "filldir", dir, "0")
	var de *DiskError
	if !errors.As(err, &de) || de.Dir != dir || !strings.Contains(err.Error(), "sandbox.disk_reserve") {
		t.Fatalf("got %v: %s", err, out)
	}
}

// TestDiskWatchOff: with no budget and no reserve nothing is watched.
func TestDiskWatchOff(t *testing.T) {
	if w := newDiskWatch([]string{t.TempDir()}, -1, -1, time.Second); w != nil {
		t.Fatal("a watch without bounds")
	}
	var w *diskWatch
	if err := w.finish(); err != nil {
		t.Fatal(err)
	}
}
