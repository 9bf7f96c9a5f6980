package config

import "time"

// RunnerConfig configures the runner section (see config.yaml): building a
// patched kernel, booting it in QEMU and running the regression suite.
type RunnerConfig struct {
	// Enabled turns the VM stage on in the pipeline (check/watch).
	Enabled bool `mapstructure:"enabled"`
	// Tree is the git checkout the pipeline stage builds from. The
	// checkout itself is never modified: builds use worktrees.
	Tree string `mapstructure:"tree"`
	// Baseline is the git ref patches are applied to and compared with.
	Baseline string `mapstructure:"baseline"`
	// WorkDir holds worktrees, build dirs, ccache, compiled suite and
	// kernel images; it is reused across runs.
	WorkDir string `mapstructure:"work_dir"`
	// BuildDir overrides <work_dir>/build (one O= dir per tree under it).
	BuildDir string `mapstructure:"build_dir"`
	// CCacheDir overrides <work_dir>/ccache; "off" disables ccache.
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
	// AllowPaths are globs of host-code paths (Makefiles, Kconfig,
	// scripts/...) a patch may touch anyway.
	AllowPaths []string `mapstructure:"allow_paths"`
	// DenyPaths are globs of paths whose change runs code on the host
	// during a build; patches touching them are refused before building.
	DenyPaths []string `mapstructure:"deny_paths"`
	// QEMU is the qemu-system-x86_64 binary.
	QEMU string `mapstructure:"qemu"`
	// MemoryMB is the guest memory.
	MemoryMB int `mapstructure:"memory_mb"`
	// CPUs is the guest vCPU count.
	CPUs int `mapstructure:"cpus"`
	// Accel is auto, kvm or tcg. auto probes KVM once (by booting) and
	// caches the outcome in work_dir.
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
	// Concurrency is how many VMs may run at once.
	Concurrency int `mapstructure:"concurrency"`
	// Retries is how often an infrastructure error is retried.
	Retries int `mapstructure:"retries"`
	// Backend is where kernels boot: local (QEMU here) or lava.
	Backend string `mapstructure:"backend"`
	// Lava configures the lava backend.
	Lava LavaConfig `mapstructure:"lava"`
}
