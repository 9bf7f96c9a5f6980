package runner

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// Local is the Backend that builds and boots on this machine.
type Local struct {
	opts    Options
	b       *builder
	vms     chan struct{} // concurrency limit
	probeMu sync.Mutex
}

// NewLocal returns the local backend.
func NewLocal(opts Options) *Local {
	opts = opts.WithDefaults()
	return &Local{opts: opts, b: newBuilder(opts), vms: make(chan struct{}, opts.Concurrency)}
}

// Name implements Backend.
func (l *Local) Name() string { return "local" }

// Run implements Backend: build, then boot and run the suite.
func (l *Local) Run(ctx context.Context, req *Request) (*KernelResult, error) {
	kr := &KernelResult{Label: req.Label}
	l.opts.Log.Info("building kernel", "label", req.Label, "tree", req.Tree, "ref", req.Ref, "patches", len(req.Patches))
	br, err := l.b.Build(ctx, req, l.opts.Progress)
	if err != nil {
		return nil, err
	}
	kr.Build = *br
	l.opts.Log.Info("build done", "label", req.Label, "status", br.Status, "cached", br.Cached, "duration", br.Duration)
	if br.Status != BuildOK {
		return kr, nil
	}
	tests := req.Tests
	if tests == nil {
		if tests, err = SelectTests(l.opts.Tests); err != nil {
			return nil, err
		}
	}
	for _, e := range br.KselftestErrors {
		kr.Notes = append(kr.Notes, "kselftest build failed: "+e)
	}
	var extra []initramfsFile
	if len(req.Kselftests) > 0 && br.Kselftests != "" {
		ks, files, notes, err := kselftestGuest(ctx, br.Kselftests, req.Kselftests, l.opts.Busybox)
		if err != nil {
			return nil, err
		}
		tests = append(append([]Test(nil), tests...), ks...)
		extra = files
		kr.Notes = append(kr.Notes, notes...)
	}
	select {
	case l.vms <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-l.vms }()
	if err := l.runSuite(ctx, kr, tests, extra); err != nil {
		return nil, err
	}
	return kr, nil
}

// runs is how often a test runs per boot.
func (l *Local) runs(t Test) int {
	if t.Metric {
		return l.opts.Runs
	}
	return 1
}

// initramfs writes the guest image for tests (and the extra files, the
// selftests' tree) into dir and returns its path.
func (l *Local) initramfs(ctx context.Context, dir string, tests []Test, extra []initramfsFile, scale int) (string, error) {
	bins, err := compileSuite(ctx, filepath.Join(l.opts.WorkDir, "suite"), tests)
	if err != nil {
		return "", err
	}
	initBin, err := os.ReadFile(filepath.Join(bins, "init"))
	if err != nil {
		return "", err
	}
	files := []initramfsFile{{Name: "init", Mode: 0o755, Data: initBin}}
	var manifest strings.Builder
	fmt.Fprintf(&manifest, "scale %d\n", scale)
	for _, t := range tests {
		prog := t.Path
		if !t.Kselftest {
			b, err := os.ReadFile(filepath.Join(bins, t.Name))
			if err != nil {
				return "", err
			}
			files = append(files, initramfsFile{Name: "autosel/" + t.Name, Mode: 0o755, Data: b})
			prog = "/autosel/" + t.Name
		}
		timeout := t.Timeout * time.Duration(scale)
		fmt.Fprintf(&manifest, "%s %d %d %s", t.Name, l.runs(t), timeout.Milliseconds(), prog)
		for _, a := range t.Args {
			fmt.Fprintf(&manifest, " %s", a)
		}
		manifest.WriteString("\n")
	}
	files = append(files, initramfsFile{Name: "autosel/manifest", Mode: 0o644, Data: []byte(manifest.String())})
	files = append(files, extra...)
	img, err := writeInitramfs(files)
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, "initramfs.cpio")
	return path, os.WriteFile(path, img, 0o644)
}

// runSuite boots kr's kernel with the suite and fills kr's VM fields.
func (l *Local) runSuite(ctx context.Context, kr *KernelResult, tests []Test, extra []initramfsFile) error {
	accel, err := l.resolveAccel(ctx, kr.Build.Kernel)
	if err != nil {
		return err
	}
	kr.Accel = accel
	runDir := filepath.Join(l.opts.WorkDir, "runs", fmt.Sprintf("%s-%s-%d", time.Now().UTC().Format("20060102-150405"), safeLabel(kr.Label), os.Getpid()))
	if err := os.MkdirAll(runDir, 0o755); err != nil {
		return err
	}
	pruneRuns(filepath.Join(l.opts.WorkDir, "runs"), 32)
	spec := l.bootSpec(kr.Build.Kernel, "", accel, tests)
	scale := spec.Scale
	if spec.Initrd, err = l.initramfs(ctx, runDir, tests, extra, scale); err != nil {
		return err
	}
	vm := spec.vm(l.opts.QEMU, runDir)
	vm.user = l.opts.QEMUUser
	out, err := runVM(ctx, vm)
	if err != nil {
		return err
	}
	evalVM(kr, out, tests, l.runs, scale)
	kr.Console = filepath.Join(runDir, "console.log")
	return nil
}

// evalVM fills kr's boot status and test results from a VM's outcome.
func evalVM(kr *KernelResult, out *vmOutcome, tests []Test, runs func(Test) int, scale int) {
	kr.VMTime = out.elapsed
	ch := parseChannel(out.results)
	kr.Problems = ch.Problems
	if !ch.Hello {
		kr.Boot = string(BootFailure)
		splats := findSplats(consoleLines(out.console))
		detail := out.why
		if len(splats) > 0 {
			detail += "; kernel: " + splats[0].Title + "\n" + splats[0].Text
		} else {
			detail += "\n" + tailLines(string(out.console), 25)
		}
		kr.BootDetail = detail
		for _, t := range tests {
			kr.Tests = append(kr.Tests, TestResult{Name: t.Name, Verdict: BootFailure, Reason: "the kernel did not boot to init"})
		}
		return
	}
	kr.Boot = "ok"
	if s := bootSplats(ch, out.console); len(s) > 0 {
		kr.Tests = append(kr.Tests, TestResult{Name: "boot", Verdict: Crash, Reason: "kernel: " + s[0].Title, Splats: s,
			Runs: []RunResult{{Verdict: Crash, Reason: "kernel: " + s[0].Title}}})
	}
	kr.Tests = append(kr.Tests, evalSuite(ch, out.console, tests, runs, scale, vmEnd{stopped: out.stopped, why: out.why})...)
}

func safeLabel(s string) string {
	if s == "" {
		return "kernel"
	}
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' {
			return r
		}
		return '_'
	}, strings.ToLower(s))
}

// maxTailLine bounds each console line a boot detail keeps.
const maxTailLine = 512

// tailLines returns the last n lines of s, each cut to maxTailLine bytes.
func tailLines(s string, n int) string {
	l := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(l) > n {
		l = l[len(l)-n:]
	}
	for i := range l {
		if len(l[i]) > maxTailLine {
			l[i] = l[i][:maxTailLine] + "..."
		}
	}
	return strings.Join(l, "\n")
}

// pruneRuns keeps the newest keep run directories.
func pruneRuns(dir string, keep int) {
	ents, err := os.ReadDir(dir)
	if err != nil || len(ents) <= keep {
		return
	}
	// Names start with a UTC timestamp: lexical order is age order.
	for _, e := range ents[:len(ents)-keep] {
		os.RemoveAll(filepath.Join(dir, e.Name()))
	}
}
