package runner

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"time"
)

// This file lets a distributed Backend (package runner/actions) run the
// local backend's boot elsewhere: build and pack here (Local.Build,
// Local.PrepareBoot), boot there with the same QEMU command line and
// watchdog (Boot), evaluate the frames that come back here with the same
// verdict code (Local.EvalBoot).

// BootSpec is one boot of a built kernel with the suite, in a form that
// travels (JSON): file names are relative to the directory holding them.
type BootSpec struct {
	// Kernel and Initrd are the bzImage and the suite initramfs.
	Kernel string `json:"kernel"`
	Initrd string `json:"initrd"`
	// Accel is kvm or tcg; Scale multiplies test timeouts (TCG).
	Accel string `json:"accel"`
	Scale int    `json:"scale"`
	// MemoryMB and CPUs size the guest.
	MemoryMB int `json:"memory_mb"`
	CPUs     int `json:"cpus"`
	// Cmdline is the guest kernel command line.
	Cmdline string `json:"cmdline"`
	// Boot, Total and Silence are the watchdog limits (see runVM).
	Boot    time.Duration `json:"boot"`
	Total   time.Duration `json:"total"`
	Silence time.Duration `json:"silence"`
}

// BootOutcome is what a boot produced besides the two serial logs
// (console.log and results.log in the boot directory).
type BootOutcome struct {
	// Stopped is set when the watchdog killed the VM; Why says why.
	Stopped bool   `json:"stopped"`
	Why     string `json:"why"`
	// Exit is QEMU's exit error when it exited by itself with one.
	Exit    string        `json:"exit,omitempty"`
	Stderr  string        `json:"stderr,omitempty"`
	Elapsed time.Duration `json:"elapsed"`
	// Infra is set when QEMU could not run at all (an infrastructure
	// failure, not a result).
	Infra string `json:"infra,omitempty"`
}

// vm returns the QEMU spec of b, logs in dir; file names are used as they
// are (see inDir).
func (b *BootSpec) vm(qemu, dir string) vmSpec {
	return vmSpec{qemu: qemu, memMB: b.MemoryMB, cpus: b.CPUs, accel: b.Accel, kernel: b.Kernel, initrd: b.Initrd,
		cmdline: b.Cmdline, dir: dir, boot: b.Boot, total: b.Total, silence: b.Silence}
}

// inDir returns b with relative file names resolved in dir (a bundle).
func (b *BootSpec) inDir(dir string) *BootSpec {
	c := *b
	for _, p := range []*string{&c.Kernel, &c.Initrd} {
		if !filepath.IsAbs(*p) {
			*p = filepath.Join(dir, *p)
		}
	}
	return &c
}

// QEMUArgs is the QEMU command line of b, relative file names and logs
// in dir (the local backend's command line for the same boot: the kernel,
// initrd and results port are passed as descriptors, see startQEMU).
func QEMUArgs(b *BootSpec, dir string) []string {
	s := b.inDir(dir).vm("", dir)
	return s.fdArgs()
}

// Boot runs b with qemu, relative file names and logs in dir, under the local backend's
// watchdog. A QEMU that cannot run is reported in Infra (and as an error).
func Boot(ctx context.Context, qemu string, b *BootSpec, dir string) (*BootOutcome, error) {
	out, err := runVM(ctx, b.inDir(dir).vm(qemu, dir))
	if err != nil {
		if errors.Is(err, errQEMU) {
			return &BootOutcome{Infra: err.Error()}, err
		}
		return nil, err
	}
	o := &BootOutcome{Stopped: out.stopped, Why: out.why, Stderr: out.stderr, Elapsed: out.elapsed}
	if out.exitErr != nil {
		o.Exit = out.exitErr.Error()
	}
	return o, nil
}

// bootSpec computes the boot of tests on a kernel: the watchdog limits the
// local backend uses, scaled under TCG.
func (l *Local) bootSpec(kernel, initrd, accel string, tests []Test) BootSpec {
	scale := 1
	if accel == "tcg" {
		scale = l.opts.TCGScale
	}
	total := l.opts.BootTimeout
	maxTest := time.Duration(0)
	for _, t := range tests {
		to := t.Timeout * time.Duration(scale)
		total += time.Duration(l.runs(t)) * (to + 5*time.Second)
		maxTest = max(maxTest, to)
	}
	return BootSpec{Kernel: kernel, Initrd: initrd, Accel: accel, Scale: scale, MemoryMB: l.opts.MemoryMB, CPUs: l.opts.CPUs,
		Cmdline: kernelCmdline, Boot: l.opts.BootTimeout * time.Duration(scale), Total: total + 30*time.Second,
		Silence: max(l.opts.SilenceTimeout, maxTest+15*time.Second)}
}

// Build builds req's kernel (no VM); see Backend.Run for what is an error.
func (l *Local) Build(ctx context.Context, req *Request) (*BuildResult, error) {
	return l.b.Build(ctx, req, l.opts.Progress)
}

// PrepareBoot writes the suite initramfs for tests (nil: the configured
// tests) into dir and returns the boot of kernel under accel, with the
// tests it runs.
func (l *Local) PrepareBoot(ctx context.Context, kernel, accel string, tests []Test, dir string) (*BootSpec, []Test, error) {
	if accel != "kvm" && accel != "tcg" {
		return nil, nil, fmt.Errorf("runner: remote accel %q: want kvm or tcg", accel)
	}
	if tests == nil {
		var err error
		if tests, err = SelectTests(l.opts.Tests); err != nil {
			return nil, nil, err
		}
	}
	spec := l.bootSpec(kernel, "", accel, tests)
	initrd, err := l.initramfs(ctx, dir, tests, nil, spec.Scale)
	if err != nil {
		return nil, nil, err
	}
	spec.Initrd = initrd
	return &spec, tests, nil
}

// EvalBoot fills kr's boot status and test results from a boot's outcome
// and serial logs, with the local backend's verdict code.
func (l *Local) EvalBoot(kr *KernelResult, spec *BootSpec, out *BootOutcome, console, results []byte, tests []Test) {
	kr.Accel = spec.Accel
	var exitErr error
	if out.Exit != "" {
		exitErr = errors.New(out.Exit)
	}
	evalVM(kr, &vmOutcome{console: console, results: results, stopped: out.Stopped, why: out.Why, exitErr: exitErr,
		stderr: out.Stderr, elapsed: out.Elapsed}, tests, l.runs, spec.Scale)
}

// NewStageWithBackend is NewStage with another backend than the local one
// (built by newBackend from opts with their defaults filled in).
func NewStageWithBackend(opts Options, log *slog.Logger, newBackend func(Options) (Backend, error)) (*Stage, error) {
	if log != nil {
		opts.Log = log
	}
	opts = opts.WithDefaults()
	b, err := newBackend(opts)
	if err != nil {
		return nil, err
	}
	return &Stage{opts: opts, runner: New(opts, b)}, nil
}

// Builder is the part of the local backend that a remote boot backend
// (GitHub Actions, LAVA) uses: it builds and packs the kernel here and
// evaluates the boot's output here. *Local implements it.
type Builder interface {
	Build(ctx context.Context, req *Request) (*BuildResult, error)
	PrepareBoot(ctx context.Context, kernel, accel string, tests []Test, dir string) (*BootSpec, []Test, error)
	EvalBoot(kr *KernelResult, spec *BootSpec, out *BootOutcome, console, results []byte, tests []Test)
}

var _ Builder = (*Local)(nil)
