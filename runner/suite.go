package runner

import (
	"context"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/autosel-bot/autosel-bot/internal/flock"
)

//go:embed suite/*.c suite/*.h guest/init.c
var sources embed.FS

// Test describes one suite program.
type Test struct {
	// Name is the program name (suite/<Name>.c).
	Name string
	// Doc is a one-line description for reports.
	Doc string
	// Args are the program's arguments in the guest.
	Args []string
	// Timeout is the per-run timeout under KVM; it is multiplied by the
	// TCG scale under TCG.
	Timeout time.Duration
	// Metric marks tests that report metrics: they run Options.Runs
	// times per boot so medians and spreads can be compared.
	Metric bool
	// Threads links with -pthread.
	Threads bool
	// Kselftest marks a kernel selftest program (not compiled from
	// suite/; its results are its exit status and TAP lines).
	Kselftest bool
	// Path is the program in the guest (default /autosel/<Name>).
	Path string
	// flaky reports whether a selftest's TAP point description is known
	// to fail at random (nil: none is).
	flaky func(desc string) bool
}

// Suite is the regression suite, in run order. The functional tests run
// first so that a kernel that breaks them is reported before a metric test
// can wedge it.
var Suite = []Test{
	{Name: "pipe_two_readers", Doc: "every blocked pipe reader/writer wakes on the last close (CRIU reproducer)",
		Timeout: 12 * time.Second},
	{Name: "epoll_wakeup", Doc: "N threads in epoll_wait on EPOLLET eventfds all wake (epoll60)",
		Args: []string{"8", "20"}, Timeout: 10 * time.Second, Metric: true, Threads: true},
	{Name: "pipe_token_ring", Doc: "token passed among 8 processes through one pipe: context switches per transfer",
		Args: []string{"3", "6000"}, Timeout: 12 * time.Second, Metric: true},
	{Name: "pipe_splice_throughput", Doc: "pipe read/write and vmsplice+splice bandwidth",
		Args: []string{"150"}, Timeout: 8 * time.Second, Metric: true},
	{Name: "syscall_exercise", Doc: "pipe/fifo/splice/epoll/eventfd/futex/fcntl syscall paths (kernel debug checks)",
		Timeout: 10 * time.Second, Threads: true},
	{Name: "watch_queue_keys", Doc: "key change notifications through a notification pipe (post_watch_notification, kernel debug checks)",
		Timeout: 10 * time.Second},
}

// SelectTests returns the suite tests named in names (all when empty).
func SelectTests(names []string) ([]Test, error) {
	if len(names) == 0 {
		return append([]Test(nil), Suite...), nil
	}
	var out []Test
	for _, n := range names {
		found := false
		for _, t := range Suite {
			if t.Name == n {
				out = append(out, t)
				found = true
			}
		}
		if !found {
			return nil, fmt.Errorf("runner: unknown suite test %q", n)
		}
	}
	return out, nil
}

// sourcesHash identifies the embedded C sources (and the compiler), so
// compiled binaries are reused until something changes.
func sourcesHash(cc string) (string, error) {
	h := sha256.New()
	fmt.Fprintf(h, "cc=%s\n", cc)
	err := fs.WalkDir(sources, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := sources.ReadFile(p)
		if err != nil {
			return err
		}
		fmt.Fprintf(h, "%s %d\n", p, len(b))
		h.Write(b)
		return nil
	})
	if err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}

// compileSuite compiles guest/init.c and the given tests with the host's
// gcc (-static) into <dir>/<hash>/ and returns that directory. Binaries
// are cached by source hash; the C sources are written out next to them.
func compileSuite(ctx context.Context, dir string, tests []Test) (string, error) {
	cc := "gcc"
	ver, err := exec.CommandContext(ctx, cc, "-dumpfullversion").Output()
	if err != nil {
		return "", fmt.Errorf("runner: host compiler %s: %w", cc, err)
	}
	sum, err := sourcesHash(cc + " " + strings.TrimSpace(string(ver)))
	if err != nil {
		return "", err
	}
	out := filepath.Join(dir, sum)
	src := filepath.Join(out, "src")
	if err := os.MkdirAll(src, 0o755); err != nil {
		return "", err
	}
	// One compiler per suite dir: concurrent boots (runner.concurrency,
	// remote backends) share the temporary names below.
	unlock, err := flock.Lock(ctx, out+".lock")
	if err != nil {
		return "", err
	}
	defer unlock()
	names, _ := fs.Glob(sources, "*/*")
	sort.Strings(names)
	for _, n := range names {
		b, _ := sources.ReadFile(n)
		if err := writeFileAtomic(filepath.Join(src, filepath.Base(n)), b, 0o644); err != nil {
			return "", err
		}
	}
	type unit struct {
		name    string
		threads bool
	}
	units := []unit{{"init", false}}
	for _, t := range tests {
		if !t.Kselftest {
			units = append(units, unit{t.Name, t.Threads})
		}
	}
	for _, u := range units {
		bin := filepath.Join(out, u.name)
		if _, err := os.Stat(bin); err == nil {
			continue
		}
		args := []string{"-static", "-O2", "-Wall", "-o", bin + ".tmp", filepath.Join(src, u.name+".c")}
		if u.threads {
			args = append(args, "-pthread")
		}
		cmd := exec.CommandContext(ctx, cc, args...)
		if b, err := cmd.CombinedOutput(); err != nil {
			return "", fmt.Errorf("runner: compiling %s.c: %w\n%s", u.name, err, b)
		}
		if err := os.Rename(bin+".tmp", bin); err != nil {
			return "", err
		}
	}
	return out, nil
}

// writeFileAtomic writes b to path through a temporary file and rename.
func writeFileAtomic(path string, b []byte, mode os.FileMode) error {
	tmp := fmt.Sprintf("%s.tmp%d", path, os.Getpid())
	if err := os.WriteFile(tmp, b, mode); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
