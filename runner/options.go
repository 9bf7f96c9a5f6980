package runner

import (
	"io"
	"log/slog"
	"path/filepath"
	"time"

	"github.com/autosel-bot/autosel-bot/config"
	"github.com/autosel-bot/autosel-bot/internal/patchguard"
	"github.com/autosel-bot/autosel-bot/internal/sandbox"
)

// Options are the runner's settings with every default filled in.
type Options struct {
	WorkDir        string
	BuildDir       string
	CCacheDir      string // "off" disables ccache ("" = <WorkDir>/ccache)
	CCacheMaxSize  string
	BuildJobs      int
	BuildTimeout   time.Duration
	ConfigFragment string
	Guard          Guard
	// Sandbox confines make, gcc and kbuild's host tools (config
	// `sandbox:`); the zero value requires a working bwrap.
	Sandbox sandbox.Options

	QEMU            string
	MemoryMB        int
	CPUs            int
	Accel           string // auto, kvm, tcg
	KVMProbeTimeout time.Duration
	BootTimeout     time.Duration
	SilenceTimeout  time.Duration
	TCGScale        int
	Runs            int
	Tests           []string
	Concurrency     int
	Retries         int

	// Log receives progress and diagnostics.
	Log *slog.Logger
	// Progress receives the build progress bar when it is a terminal
	// (usually os.Stderr); nil means log lines only.
	Progress io.Writer
}

// DefaultWorkDir is the cache directory unless configured.
const DefaultWorkDir = "/var/tmp/autosel-bot/runner"

// FromConfig resolves a config section into Options.
func FromConfig(c config.RunnerConfig) Options {
	o := Options{
		WorkDir:         c.WorkDir,
		BuildDir:        c.BuildDir,
		CCacheDir:       c.CCacheDir,
		CCacheMaxSize:   c.CCacheMaxSize,
		BuildJobs:       c.BuildJobs,
		BuildTimeout:    c.BuildTimeout,
		ConfigFragment:  c.ConfigFragment,
		Guard:           patchguard.New(c.DenyPaths, c.AllowPaths),
		QEMU:            c.QEMU,
		MemoryMB:        c.MemoryMB,
		CPUs:            c.CPUs,
		Accel:           c.Accel,
		KVMProbeTimeout: c.KVMProbeTimeout,
		BootTimeout:     c.BootTimeout,
		SilenceTimeout:  c.SilenceTimeout,
		TCGScale:        c.TCGScale,
		Runs:            c.Runs,
		Tests:           c.Tests,
		Concurrency:     c.Concurrency,
		Retries:         c.Retries,
	}
	return o.withDefaults()
}

// ccacheDir is the ccache directory, "" when ccache is off.
func (o Options) ccacheDir() string {
	if o.CCacheDir == "off" {
		return ""
	}
	return o.CCacheDir
}

// WithSandbox sets the sandbox options (the config's `sandbox:` section);
// an option for NewStage.
func WithSandbox(s sandbox.Options) func(*Options) {
	return func(o *Options) { o.Sandbox = s }
}

// withDefaults fills unset fields.
func (o Options) withDefaults() Options {
	if o.WorkDir == "" {
		o.WorkDir = DefaultWorkDir
	}
	if o.BuildDir == "" {
		o.BuildDir = filepath.Join(o.WorkDir, "build")
	}
	if o.CCacheDir == "" {
		// "off" stays "off": withDefaults runs more than once (FromConfig,
		// New, NewLocal), so it must not turn a disabled cache back on.
		o.CCacheDir = filepath.Join(o.WorkDir, "ccache")
	}
	if o.CCacheMaxSize == "" {
		o.CCacheMaxSize = "5G"
	}
	if o.BuildTimeout <= 0 {
		o.BuildTimeout = 40 * time.Minute
	}
	if o.QEMU == "" {
		o.QEMU = "qemu-system-x86_64"
	}
	if o.MemoryMB <= 0 {
		o.MemoryMB = 512
	}
	if o.CPUs <= 0 {
		o.CPUs = 2
	}
	if o.Accel == "" {
		o.Accel = "auto"
	}
	if o.KVMProbeTimeout <= 0 {
		o.KVMProbeTimeout = 20 * time.Second
	}
	if o.BootTimeout <= 0 {
		o.BootTimeout = 60 * time.Second
	}
	if o.SilenceTimeout <= 0 {
		o.SilenceTimeout = 60 * time.Second
	}
	if o.TCGScale <= 0 {
		o.TCGScale = 3
	}
	if o.Runs <= 0 {
		o.Runs = 3
	}
	if o.Concurrency <= 0 {
		o.Concurrency = 1
	}
	if o.Retries < 0 {
		o.Retries = 0
	}
	if o.Log == nil {
		o.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return o
}
