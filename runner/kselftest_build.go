package runner

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/autosel-bot/autosel-bot/runner/kselftest"
)

// kselftestInstall is the install directory of the selftests under a
// build dir and under a cached image.
const kselftestInstall = "kselftest-install"

// kselftestList is the list of installed tests ("collection:test" lines,
// as kselftest's own kselftest-list.txt) the runner writes after
// building every target.
const kselftestList = "autosel-kselftest-list.txt"

// buildKselftests builds and installs the targets from the worktree of
// p into <build>/kselftest-install, statically linked, in the build
// sandbox, each target on its own so that one that does not build leaves
// the others. It returns the targets that failed, with the last lines of
// their output.
func (b *builder) buildKselftests(ctx context.Context, p paths, targets []kselftest.Target, log io.Writer) ([]string, error) {
	if len(targets) == 0 {
		return nil, nil
	}
	// The selftests include the kernel's uapi headers from <build>/usr/include.
	if err := b.make(ctx, p, log, nil, "", "headers"); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return []string{fmt.Sprintf("all targets: make headers: %v", err)}, nil
	}
	// inst is the install dir on the host; the build sees the build dir
	// at p.objtree() (a throwaway copy is mounted at the baseline's path).
	inst := filepath.Join(p.build, kselftestInstall)
	if err := os.RemoveAll(inst); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(inst, 0o755); err != nil {
		return nil, err
	}
	// Static: the guest has no libc. CC on the command line (the build
	// sandbox passes no CFLAGS/LDFLAGS through, and a command-line CFLAGS
	// would replace the targets' own) compiles and links every program
	// with -static.
	env := b.env(p)
	var failed []string
	var list bytes.Buffer
	for _, t := range targets {
		var out bytes.Buffer
		w := io.MultiWriter(log, &out)
		args := []string{"make", "-C", filepath.Join(p.worktree, "tools/testing/selftests"), "ARCH=x86_64",
			"O=" + p.objtree(), "CC=gcc -static", "TARGETS=" + t.Name, "INSTALL_PATH=" + filepath.Join(p.objtree(), kselftestInstall), fmt.Sprintf("-j%d", b.jobs()), "install"}
		fmt.Fprintf(log, "$ %s\n", strings.Join(args, " "))
		sctx, cancel := context.WithTimeout(ctx, b.opts.BuildTimeout)
		err := b.sb.Run(sctx, b.spec(p, w, env, args...))
		cancel()
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if err != nil {
			failed = append(failed, fmt.Sprintf("%s: %v\n%s", t.Name, err, tailLines(out.String(), 8)))
			continue
		}
		l, err := os.ReadFile(filepath.Join(inst, "kselftest-list.txt"))
		if err != nil {
			failed = append(failed, fmt.Sprintf("%s: no kselftest-list.txt after install", t.Name))
			continue
		}
		list.Write(l)
	}
	return failed, os.WriteFile(filepath.Join(inst, kselftestList), list.Bytes(), 0o644)
}

// jobs is make's -j.
func (b *builder) jobs() int {
	if b.opts.BuildJobs > 0 {
		return b.opts.BuildJobs
	}
	return max(1, runtime.NumCPU())
}

// saveKselftests copies the installed selftests of a build dir into the
// image directory (patched builds run in throwaway build dirs).
func saveKselftests(imgDir, build string) error {
	src := filepath.Join(build, kselftestInstall)
	if _, err := os.Stat(src); err != nil {
		return nil
	}
	dst := filepath.Join(imgDir, kselftestInstall)
	os.RemoveAll(dst)
	return copyTree(dst, src)
}

// copyTree copies regular files, directories and symlinks.
func copyTree(dst, src string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		to := filepath.Join(dst, rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			return os.MkdirAll(to, 0o755)
		case info.Mode()&fs.ModeSymlink != 0:
			l, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(l, to)
		case info.Mode().IsRegular():
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			return os.WriteFile(to, b, info.Mode().Perm())
		}
		return nil
	})
}

// listedTest is one line of the installed tests' list.
type listedTest struct {
	// Collection is the target ("futex", "filesystems/epoll").
	Collection string
	// Program is the test's file in the collection's directory.
	Program string
}

// readKselftestList reads "collection:test" lines.
func readKselftestList(b []byte) []listedTest {
	var out []listedTest
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		c, t, ok := strings.Cut(strings.TrimSpace(sc.Text()), ":")
		if !ok || c == "" || t == "" || strings.Contains(t, "/") || strings.Contains(c, "..") || strings.ContainsAny(c+t, " \t") {
			continue
		}
		out = append(out, listedTest{Collection: c, Program: t})
	}
	return out
}
