package runner

import (
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"time"

	"github.com/autosel-bot/autosel-bot/internal/defaults"
	"github.com/autosel-bot/autosel-bot/internal/patchguard"
	"github.com/autosel-bot/autosel-bot/internal/sandbox"
)

// Options are the runner's settings: the `runner:` section of the
// configuration (mapstructure tags; config.yaml documents every key and its
// default), plus what the caller wires in (sandbox, logger, progress).
// Unset fields get their defaults in New and NewLocal.
type Options struct {
	// Enabled turns the VM stage on in the pipeline (check/watch).
	Enabled bool `mapstructure:"enabled"`
	// Tree is the git checkout the pipeline stage builds from. The
	// checkout itself is never modified: builds use worktrees.
	Tree string `mapstructure:"tree"`
	// Baseline is the git ref patches are applied to and compared with.
	Baseline string `mapstructure:"baseline"`
	// Backend is where kernels boot: local (QEMU here) or lava (see
	// package runner/lava; the caller builds that backend).
	Backend string `mapstructure:"backend"`

	// WorkDir holds worktrees, build dirs, ccache, compiled suite and
	// kernel images; it is reused across runs.
	WorkDir string `mapstructure:"work_dir"`
	// BuildDir overrides <WorkDir>/build (one O= dir per tree under it).
	BuildDir string `mapstructure:"build_dir"`
	// CCacheDir overrides <WorkDir>/ccache; "off" disables ccache.
	CCacheDir string `mapstructure:"ccache_dir"`
	// CCacheMaxSize is ccache's max_size (e.g. "5G").
	CCacheMaxSize string `mapstructure:"ccache_max_size"`
	// BuildJobs is make -j; 0 means the number of CPUs.
	BuildJobs int `mapstructure:"build_jobs"`
	// BuildTimeout bounds one kernel build.
	BuildTimeout time.Duration `mapstructure:"build_timeout"`
	// ConfigFragment is an extra Kconfig fragment file merged after the
	// built-in one (runner/kconfig/autosel.config).
	ConfigFragment string `mapstructure:"config_fragment"`
	// DenyPaths are globs of paths whose change runs code on the host
	// during a build; patches touching them are refused before building
	// unless they match AllowPaths too (see Guard).
	DenyPaths  []string `mapstructure:"deny_paths"`
	AllowPaths []string `mapstructure:"allow_paths"`

	// QEMU is the qemu-system-x86_64 binary.
	QEMU string `mapstructure:"qemu"`
	// QEMUUser is the unprivileged user QEMU runs as when the bot runs as
	// root ("" = nobody); it needs no access to the work directory.
	QEMUUser string `mapstructure:"qemu_user"`
	// MemoryMB is the guest memory; CPUs its vCPU count.
	MemoryMB int `mapstructure:"memory_mb"`
	CPUs     int `mapstructure:"cpus"`
	// Accel is auto, kvm or tcg. auto probes KVM once (by booting) and
	// caches the outcome in WorkDir.
	Accel string `mapstructure:"accel"`
	// KVMProbeTimeout bounds the KVM probe boot.
	KVMProbeTimeout time.Duration `mapstructure:"kvm_probe_timeout"`
	// BootTimeout bounds the time from QEMU start to the guest's init.
	BootTimeout time.Duration `mapstructure:"boot_timeout"`
	// SilenceTimeout ends a VM that printed nothing on either serial
	// port for this long (a hang of the whole guest).
	SilenceTimeout time.Duration `mapstructure:"silence_timeout"`
	// TCGScale multiplies test timeouts and in-guest waits under TCG.
	TCGScale int `mapstructure:"tcg_scale"`
	// Runs is how often each metric test runs per boot (median of runs).
	Runs int `mapstructure:"runs"`
	// Tests selects suite tests by name; empty runs them all.
	Tests []string `mapstructure:"tests"`
	// Kselftests is "auto" (the default: the kernel's own selftests the
	// patch's files call for run next to the suite, see package
	// runner/kselftest) or "off".
	Kselftests string `mapstructure:"kselftests"`
	// KselftestBudget bounds the chosen selftests' estimated run time per
	// kernel; the slowest targets are dropped first (0: no bound).
	KselftestBudget time.Duration `mapstructure:"kselftest_budget"`
	// KselftestTables are files extending the built-in table of selftest
	// targets and the paths that call for them.
	KselftestTables []string `mapstructure:"kselftest_tables"`
	// Busybox is a static busybox (Debian's busybox-static) put into the
	// guest for the selftests' shell scripts.
	Busybox string `mapstructure:"busybox"`
	// Concurrency is how many VMs may run at once.
	Concurrency int `mapstructure:"concurrency"`
	// Retries is how often an infrastructure error is retried: 0 is the
	// default (1), a negative value none.
	Retries int `mapstructure:"retries"`

	// Guard decides which patches may be built; when nil, New and
	// NewLocal make it from DenyPaths and AllowPaths.
	Guard *Guard `mapstructure:"-"`
	// Sandbox confines make, gcc and kbuild's host tools (config
	// `sandbox:`); the zero value requires a working bwrap.
	Sandbox sandbox.Options `mapstructure:"-"`
	// Log receives progress and diagnostics.
	Log *slog.Logger `mapstructure:"-"`
	// Progress receives the build progress bar when it is a terminal
	// (usually os.Stderr); nil means log lines only.
	Progress io.Writer `mapstructure:"-"`
}

// DefaultKselftestBudget bounds the selftests' estimated run time per
// kernel unless configured (a negative budget means no bound).
const DefaultKselftestBudget = 5 * time.Minute

// DefaultWorkDir is the cache directory unless configured.
const DefaultWorkDir = "/var/tmp/autosel-bot/runner"

// Validate checks the settings that have a fixed set of values.
func (o Options) Validate() error {
	switch o.Backend {
	case "", "local", "lava":
	default:
		return fmt.Errorf("runner.backend %q: want local or lava", o.Backend)
	}
	switch o.Kselftests {
	case "", "auto", "off":
	default:
		return fmt.Errorf("runner.kselftests %q: want auto or off", o.Kselftests)
	}
	return nil
}

// ccacheDir is the ccache directory, "" when ccache is off.
func (o Options) ccacheDir() string {
	if o.CCacheDir == "off" {
		return ""
	}
	return o.CCacheDir
}

// DefaultOptions are the documented defaults: config.yaml's runner
// section (a test holds the two equal). Paths derived from WorkDir
// (BuildDir, CCacheDir) stay "" here and are filled in by WithDefaults.
func DefaultOptions() Options {
	return Options{
		Baseline:      "HEAD",
		Backend:       "local",
		WorkDir:       DefaultWorkDir,
		CCacheMaxSize: "5G",
		BuildTimeout:  40 * time.Minute,
		DenyPaths: []string{
			"**/Makefile*", "**/Kbuild*", "**/Kconfig*", "Makefile",
			"scripts/**", "tools/**", "usr/**", "arch/*/tools/**",
			"arch/*/boot/tools/**", "arch/*/entry/syscalls/*.tbl", "lib/gen_crc*",
			"lib/raid6/mktables.c", "lib/build_OID_registry", "kernel/gen_kheaders.sh",
			"**/*.sh", "**/*.pl", "**/*.py", "**/*.awk", "**/*.sed", "**/*.lex",
			"**/*.l", "**/*.y", "**/.gitignore",
		},
		QEMU:            "qemu-system-x86_64",
		MemoryMB:        512,
		CPUs:            2,
		Accel:           "auto",
		KVMProbeTimeout: 20 * time.Second,
		BootTimeout:     60 * time.Second,
		SilenceTimeout:  60 * time.Second,
		TCGScale:        3,
		Runs:            3,
		Kselftests:      "auto",
		KselftestBudget: DefaultKselftestBudget,
		Busybox:         "/bin/busybox",
		Concurrency:     1,
		Retries:         1,
	}
}

// WithDefaults returns o with every unset field filled in from
// DefaultOptions (New and NewLocal call it; a caller that reads the
// defaults, such as WorkDir, calls it first). As for every count and
// duration of the configuration, 0 is the default; Retries < 0 means no
// retries. Lists (DenyPaths) are not filled: nil denies nothing.
func (o Options) WithDefaults() Options {
	d := DefaultOptions()
	if o.WorkDir == "" {
		o.WorkDir = d.WorkDir
	}
	if o.BuildDir == "" {
		o.BuildDir = filepath.Join(o.WorkDir, "build")
	}
	if o.CCacheDir == "" {
		// "off" stays "off": WithDefaults runs more than once (New,
		// NewLocal), so it must not turn a disabled cache back on.
		o.CCacheDir = filepath.Join(o.WorkDir, "ccache")
	}
	defaults.Fill(&o.Baseline, d.Baseline)
	defaults.Fill(&o.Backend, d.Backend)
	defaults.Fill(&o.CCacheMaxSize, d.CCacheMaxSize)
	defaults.Fill(&o.QEMU, d.QEMU)
	defaults.Fill(&o.Accel, d.Accel)
	defaults.Fill(&o.BuildTimeout, d.BuildTimeout)
	defaults.Fill(&o.KVMProbeTimeout, d.KVMProbeTimeout)
	defaults.Fill(&o.BootTimeout, d.BootTimeout)
	defaults.Fill(&o.SilenceTimeout, d.SilenceTimeout)
	defaults.Fill(&o.MemoryMB, d.MemoryMB)
	defaults.Fill(&o.CPUs, d.CPUs)
	defaults.Fill(&o.TCGScale, d.TCGScale)
	defaults.Fill(&o.Runs, d.Runs)
	defaults.Fill(&o.Kselftests, d.Kselftests)
	defaults.Fill(&o.KselftestBudget, d.KselftestBudget)
	defaults.Fill(&o.Busybox, d.Busybox)
	defaults.Fill(&o.Concurrency, d.Concurrency)
	o.Retries = defaults.Count(o.Retries, d.Retries)
	if o.Guard == nil {
		// Made once: copies of o share the guard and its host-tool cache.
		g := patchguard.New(o.DenyPaths, o.AllowPaths)
		o.Guard = &g
	}
	if o.Log == nil {
		o.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return o
}
