package sandbox

import "time"

// Options are the `sandbox:` section of config.yaml: how every command
// that compiles or runs patched sources (runner and stable builds) is
// confined.
type Options struct {
	// AllowUnsandboxed lets builds run without the sandbox when bwrap is
	// missing or cannot create namespaces. UNSAFE: a patch's Makefile or
	// host tool then runs with the bot's privileges and sees its files.
	AllowUnsandboxed bool `mapstructure:"allow_unsandboxed" yaml:"allow_unsandboxed"`
	// Bwrap is the bubblewrap binary ("" = bwrap on PATH).
	Bwrap string `mapstructure:"bwrap" yaml:"bwrap"`
	// BuildUser is the unprivileged user builds run as when the bot runs
	// as root: a user name, a uid, or uid:gid ("" = nobody). The kernel
	// exempts root from RLIMIT_NPROC, so only then does Processes hold.
	// Each build gets a user namespace of its own, so the budget is the
	// build's; without unprivileged user namespaces every process of that
	// user on the machine (QEMU's too, if runner.qemu_user is the same)
	// counts against it.
	BuildUser string `mapstructure:"build_user" yaml:"build_user"`
	// CPUTime bounds each process's CPU time (RLIMIT_CPU; default 20m).
	CPUTime time.Duration `mapstructure:"cpu_time" yaml:"cpu_time"`
	// FileSize bounds each file a build writes, in bytes (RLIMIT_FSIZE;
	// default 4 GiB).
	FileSize int64 `mapstructure:"file_size" yaml:"file_size"`
	// Processes bounds the processes of a build (RLIMIT_NPROC; default
	// 4096), counted in the build's user namespace (see BuildUser).
	Processes int `mapstructure:"processes" yaml:"processes"`
	// Memory bounds each build process's address space, in bytes
	// (RLIMIT_AS; default 4 GiB): a compiler driven to eat the host's
	// memory fails instead.
	Memory int64 `mapstructure:"memory" yaml:"memory"`
	// TmpSize bounds the sandbox's private /tmp (a tmpfs, in bytes;
	// default 1 GiB); its tmpfs root holds only mount points (16 MiB).
	TmpSize int64 `mapstructure:"tmp_size" yaml:"tmp_size"`
	// DiskBudget bounds what one build adds to its writable directories
	// (build dir, ccache dirs), in bytes (default 16 GiB; negative: no
	// bound). The directories are walked every few seconds while the
	// build runs; one over the budget is killed and fails with a
	// *DiskError.
	DiskBudget int64 `mapstructure:"disk_budget" yaml:"disk_budget"`
	// DiskReserve is the free space, in bytes, a build must leave on the
	// filesystems of its writable directories (default 1 GiB; negative:
	// not checked): a build that goes below it is killed, whatever else
	// filled the disk.
	DiskReserve int64 `mapstructure:"disk_reserve" yaml:"disk_reserve"`
	// ReadOnly are extra host paths bound read-only into the sandbox (a
	// cross toolchain under /opt, say). /usr and the merged-/usr links are
	// always there.
	ReadOnly []string `mapstructure:"read_only" yaml:"read_only"`
	// PassEnv are extra environment variable names passed from the bot's
	// environment to builds (on top of the built-in allow-list). Never
	// list secrets here.
	PassEnv []string `mapstructure:"pass_env" yaml:"pass_env"`
}

// DefaultOptions are the documented defaults: config.yaml's sandbox
// section (a test holds the two equal).
func DefaultOptions() Options {
	return Options{
		Bwrap:     "bwrap",
		CPUTime:   20 * time.Minute,
		FileSize:  4 << 30,
		Processes: 4096,
		Memory:    4 << 30,
		TmpSize:   1 << 30,

		DiskBudget:  16 << 30,
		DiskReserve: 1 << 30,
	}
}

// withDefaults fills the unset limits from DefaultOptions (0 is the
// default, as everywhere in the configuration).
func (o Options) withDefaults() Options {
	d := DefaultOptions()
	if o.Bwrap == "" {
		o.Bwrap = d.Bwrap
	}
	if o.CPUTime <= 0 {
		o.CPUTime = d.CPUTime
	}
	if o.FileSize <= 0 {
		o.FileSize = d.FileSize
	}
	if o.Processes <= 0 {
		o.Processes = d.Processes
	}
	if o.Memory <= 0 {
		o.Memory = d.Memory
	}
	if o.TmpSize <= 0 {
		o.TmpSize = d.TmpSize
	}
	if o.DiskBudget == 0 {
		o.DiskBudget = d.DiskBudget
	}
	if o.DiskReserve == 0 {
		o.DiskReserve = d.DiskReserve
	}
	return o
}
