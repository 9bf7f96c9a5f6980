package runner

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/autosel-bot/autosel-bot/runner/kselftest"
)

// kselftestPrefix starts the names of selftest programs in results
// ("kselftest/futex/run.sh") and is their directory in the guest.
const kselftestPrefix = "kselftest/"

// defaultKselftestTimeout is kselftest's own default per-test timeout
// (a collection's settings file may change it).
const defaultKselftestTimeout = 45 * time.Second

// Skip is the verdict of a selftest that skipped itself (exit 4, or a
// TAP "# SKIP"): neither pass nor fail, never a regression.
const Skip Verdict = "skip"

// kselftestGuest turns the selftests installed in dir (buildKselftests)
// into guest tests, in list order, restricted to the targets and their
// programs, plus the initramfs files they need: the install tree under
// /kselftest, a wrapper per test that runs it from its collection's
// directory, and busybox (sh, bash and its applets in /bin) for the
// shell scripts. Notes say what could not be run.
func kselftestGuest(ctx context.Context, dir string, targets []kselftest.Target, busybox string) ([]Test, []initramfsFile, []string, error) {
	listB, err := os.ReadFile(filepath.Join(dir, kselftestList))
	if err != nil {
		return nil, nil, nil, fmt.Errorf("runner: installed selftests: %w", err)
	}
	want := map[string]*kselftest.Target{}
	for i := range targets {
		want[targets[i].Name] = &targets[i]
	}
	var tests []Test
	var files []initramfsFile
	var notes []string
	for _, lt := range readKselftestList(listB) {
		tg := want[lt.Collection]
		if tg == nil || len(tg.Programs) > 0 && !contains(tg.Programs, lt.Program) {
			continue
		}
		wrapper := fmt.Sprintf("%s.autosel/%d.sh", kselftestPrefix, len(tests))
		files = append(files, initramfsFile{Name: wrapper, Mode: 0o755,
			Data: []byte(fmt.Sprintf("cd /%s%s || exit 127\nexec ./%s\n", kselftestPrefix, lt.Collection, lt.Program))})
		tests = append(tests, Test{
			Name:      kselftestPrefix + lt.Collection + "/" + lt.Program,
			Doc:       tg.Doc,
			Timeout:   collectionTimeout(filepath.Join(dir, lt.Collection)),
			Kselftest: true,
			Path:      "/bin/sh",
			Args:      []string{"/" + wrapper},
			flaky:     tg.IsFlaky,
		})
	}
	for _, tg := range targets {
		found := false
		for _, t := range tests {
			found = found || strings.HasPrefix(t.Name, kselftestPrefix+tg.Name+"/")
		}
		if !found {
			notes = append(notes, fmt.Sprintf("kselftest %s: no installed test to run", tg.Name))
		}
	}
	if len(tests) == 0 {
		return nil, nil, notes, nil
	}
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		info, err := d.Info()
		if err != nil {
			return err
		}
		f := initramfsFile{Name: kselftestPrefix + filepath.ToSlash(rel), Mode: info.Mode().Perm()}
		if info.Mode()&fs.ModeSymlink != 0 {
			if f.Link, err = os.Readlink(p); err != nil {
				return err
			}
		} else if !info.Mode().IsRegular() {
			return nil
		} else if f.Data, err = os.ReadFile(p); err != nil {
			return err
		}
		files = append(files, f)
		return nil
	})
	if err != nil {
		return nil, nil, nil, fmt.Errorf("runner: installed selftests: %w", err)
	}
	bb, err := busyboxFiles(ctx, busybox)
	if err != nil {
		notes = append(notes, "no busybox for the selftests' shell scripts ("+err.Error()+"): install busybox-static; every test runs through /bin/sh, so none ran")
		return nil, nil, notes, nil
	}
	return tests, append(files, bb...), notes, nil
}

// busyboxFiles returns a static busybox as /bin/busybox with /bin links
// for its applets, sh and bash (the selftests' scripts ask for bash; the
// ones the table lists run under busybox's ash).
func busyboxFiles(ctx context.Context, busybox string) ([]initramfsFile, error) {
	b, err := os.ReadFile(busybox)
	if err != nil {
		return nil, err
	}
	out, err := exec.CommandContext(ctx, busybox, "--list").Output()
	if err != nil {
		return nil, fmt.Errorf("%s --list: %w", busybox, err)
	}
	files := []initramfsFile{{Name: "bin/busybox", Mode: 0o755, Data: b}}
	seen := map[string]bool{"busybox": true}
	for _, a := range append(strings.Fields(string(out)), "sh", "bash") {
		if a == path.Base(a) && !seen[a] {
			seen[a] = true
			files = append(files, initramfsFile{Name: "bin/" + a, Mode: 0o777, Link: "busybox"})
		}
	}
	return files, nil
}

// collectionTimeout reads "timeout=N" from a collection's settings file
// (kselftest's per-test timeout; 0 means none, which the runner bounds
// by ten minutes).
func collectionTimeout(dir string) time.Duration {
	b, err := os.ReadFile(filepath.Join(dir, "settings"))
	if err != nil {
		return defaultKselftestTimeout
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		v, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "timeout=")
		if !ok {
			continue
		}
		n, err := strconv.Atoi(v)
		switch {
		case err != nil || n < 0:
			return defaultKselftestTimeout
		case n == 0:
			return 10 * time.Minute
		}
		return time.Duration(n) * time.Second
	}
	return defaultKselftestTimeout
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// evalKselftest turns a selftest program's frame into its result (exit
// status: 0 pass, 4 skip, else fail; killed at the timeout: hang; a
// kernel splat: crash) and one result per TAP test point it printed,
// named by its stream and number ("2.1"; the caller prefixes the
// program), its description in the reason.
func evalKselftest(f *Frame, timeout time.Duration, flaky func(string) bool) (RunResult, []Splat, []TestResult) {
	rr := RunResult{Run: f.Run, Elapsed: f.Elapsed}
	texts := make([]string, len(f.Kmsg))
	for i, k := range f.Kmsg {
		texts[i] = k.Text
	}
	splats := findSplats(texts)
	tap := kselftest.ParseTAP(f.Out)
	switch {
	case len(splats) > 0:
		rr.Verdict, rr.Reason = Crash, "kernel: "+splats[0].Title
	case f.Timeout:
		rr.Verdict, rr.Reason = Hang, fmt.Sprintf("timeout: killed after %s", timeout)
		if f.Unreaped {
			rr.Reason += " (a task stayed stuck in the kernel after SIGKILL)"
		}
	case f.Signal != 0:
		rr.Verdict, rr.Reason = Fail, fmt.Sprintf("killed by signal %d", f.Signal)
	case f.Exit == 127:
		rr.Verdict, rr.Reason = Fail, "could not execute the test program"
	default:
		switch kselftest.ExitStatus(f.Exit) {
		case kselftest.Pass:
			rr.Verdict = Pass
		case kselftest.Skip:
			rr.Verdict, rr.Reason = Skip, "skipped (exit 4)"
		default:
			rr.Verdict, rr.Reason = Fail, fmt.Sprintf("exited with status %d", f.Exit)
		}
	}
	if tap.Bailed != "" {
		rr.Reason = strings.TrimPrefix(rr.Reason+"; bail out: "+tap.Bailed, "; ")
	}
	var failed []string // not ok points, the flaky ones left out
	var points []TestResult
	seen := map[string]bool{}
	for _, p := range tap.Points {
		v, reason := Pass, "ok: "+p.Name
		switch p.Status {
		case kselftest.Fail:
			v, reason = Fail, "not ok: "+p.Name
			if flaky == nil || !flaky(p.Name) {
				failed = append(failed, p.Name)
			}
		case kselftest.Skip:
			v, reason = Skip, p.Name+": "+p.Directive
		}
		// The point's stream and number name it: a failing kselftest
		// often adds the error to the description.
		name := fmt.Sprintf("%d.%d", p.Stream, p.Number)
		for i := 2; seen[name]; i++ {
			name = fmt.Sprintf("%d.%d (%d)", p.Stream, p.Number, i)
		}
		seen[name] = true
		points = append(points, TestResult{Name: name, Verdict: v, Reason: reason, Flaky: flaky != nil && flaky(p.Name),
			Runs: []RunResult{{Run: f.Run, Verdict: v, Reason: reason}}})
	}
	if rr.Verdict == Fail && len(failed) > 0 {
		rr.Reason += fmt.Sprintf("; not ok: %s", listFirst(failed, 3))
	}
	if rr.Verdict == Fail && len(failed) == 0 && f.Signal == 0 && f.Exit != 127 && anyFlakyFailed(points) {
		rr.Reason += "; only points known to fail at random under TCG failed"
		rr.Flaky = true
	}
	if f.Truncated {
		rr.Log = append(rr.Log, "(output truncated in the guest)")
	}
	rr.Log = append(rr.Log, tailLines(strings.Join(f.Out, "\n"), 20))
	return rr, splats, points
}

// anyFlakyFailed reports whether a flaky point failed.
func anyFlakyFailed(points []TestResult) bool {
	for _, p := range points {
		if p.Flaky && p.Verdict == Fail {
			return true
		}
	}
	return false
}

func listFirst(s []string, n int) string {
	if len(s) > n {
		return strings.Join(s[:n], ", ") + fmt.Sprintf(" and %d more", len(s)-n)
	}
	return strings.Join(s, ", ")
}
