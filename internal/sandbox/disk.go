package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sync"
	"syscall"
	"time"
)

// ErrDiskBudget is returned (wrapped in a *DiskError) when a command wrote
// more than its disk budget to its writable directories, or left its
// filesystem with less free space than the reserve; the command was
// killed.
var ErrDiskBudget = errors.New("disk budget exceeded")

// DiskError says which bound a killed build crossed.
type DiskError struct {
	// Used is the growth of the writable directories, in bytes, when the
	// build was killed; Budget is sandbox.disk_budget.
	Used, Budget int64
	// Free is the free space left on a filesystem below Reserve
	// (sandbox.disk_reserve); 0 when the budget was the bound crossed.
	Free, Reserve int64
	// Dir is the directory whose filesystem ran short (reserve only).
	Dir string
}

func (e *DiskError) Error() string {
	if e.Free > 0 || e.Dir != "" {
		return fmt.Sprintf("build killed: the filesystem of its build directory had %d MiB free, below the %d MiB reserve (sandbox.disk_reserve)",
			e.Free>>20, e.Reserve>>20)
	}
	return fmt.Sprintf("build killed: it wrote %d MiB to its directories, over the %d MiB budget (sandbox.disk_budget)",
		e.Used>>20, e.Budget>>20)
}

// Unwrap makes errors.Is(err, ErrDiskBudget) hold.
func (e *DiskError) Unwrap() error { return ErrDiskBudget }

// diskWatch polls the disk use of a running command's writable
// directories. The first walk is the starting point: a build in a copy of
// a large build dir is charged only for what it adds.
type diskWatch struct {
	dirs            []string
	budget, reserve int64
	minInterval     time.Duration

	start int64
	stop  chan struct{}
	done  chan struct{}

	mu      sync.Mutex
	started bool
	err     *DiskError
}

// newDiskWatch measures dirs before a command starts. A budget or
// reserve <= 0 is not checked; with neither, it returns nil.
func newDiskWatch(dirs []string, budget, reserve int64, interval time.Duration) *diskWatch {
	if (budget <= 0 && reserve <= 0) || len(dirs) == 0 {
		return nil
	}
	w := &diskWatch{dirs: dirs, budget: budget, reserve: reserve, minInterval: interval,
		stop: make(chan struct{}), done: make(chan struct{})}
	w.start = diskUse(dirs)
	return w
}

// run starts polling; kill is called (once) when a bound is crossed.
func (w *diskWatch) run(kill func()) {
	if w != nil {
		w.mu.Lock()
		w.started = true
		w.mu.Unlock()
		go w.loop(kill)
	}
}

// loop checks the bounds until stopped. Each walk of the directories is
// followed by a pause of at least ten times its duration, so a build dir
// of many files costs the host at most a tenth of a CPU.
func (w *diskWatch) loop(kill func()) {
	defer close(w.done)
	pause := w.minInterval
	for {
		select {
		case <-w.stop:
			return
		case <-time.After(pause):
		}
		t := time.Now()
		if e := w.check(); e != nil {
			w.mu.Lock()
			w.err = e
			w.mu.Unlock()
			kill()
			return
		}
		if p := 10 * time.Since(t); p > w.minInterval {
			pause = p
		} else {
			pause = w.minInterval
		}
	}
}

// check returns the bound crossed, or nil.
func (w *diskWatch) check() *DiskError {
	if w.reserve > 0 {
		for _, d := range w.dirs {
			var st syscall.Statfs_t
			if syscall.Statfs(d, &st) != nil {
				continue
			}
			if free := int64(st.Bavail) * st.Bsize; free < w.reserve {
				return &DiskError{Free: free, Reserve: w.reserve, Dir: d}
			}
		}
	}
	if w.budget > 0 {
		if used := diskUse(w.dirs) - w.start; used > w.budget {
			return &DiskError{Used: used, Budget: w.budget}
		}
	}
	return nil
}

// finish stops the watch and returns the bound the command crossed, or
// nil.
func (w *diskWatch) finish() error {
	if w == nil {
		return nil
	}
	close(w.stop)
	w.mu.Lock()
	started := w.started
	w.mu.Unlock()
	if started {
		<-w.done
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err == nil {
		return nil
	}
	return w.err
}

// diskUse is the space allocated to the files under dirs, in bytes
// (st_blocks, so sparse files count what they use). Entries that vanish
// or cannot be read during the walk are skipped: the bot runs as root
// (which reads everything) or as the builds' own user.
func diskUse(dirs []string) int64 {
	var total int64
	for _, d := range dirs {
		filepath.WalkDir(d, func(_ string, e fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			info, err := e.Info()
			if err != nil {
				return nil
			}
			if st, ok := info.Sys().(*syscall.Stat_t); ok {
				total += st.Blocks * 512
			}
			return nil
		})
	}
	return total
}
