package stable

import (
	"context"
	"fmt"
	"time"

	"github.com/autosel-bot/autosel-bot/internal/git"
	"github.com/autosel-bot/autosel-bot/internal/patchguard"
	"github.com/autosel-bot/autosel-bot/internal/sandbox"
)

// Options configure the stable stage: which trees to try, where upstream
// is, and how to build. It is the `stable:` section of config.yaml
// (mapstructure tags; config.yaml documents every key and its default),
// plus the build policy the caller wires in (Sandbox, Guard).
type Options struct {
	// Enabled turns the stage on.
	Enabled bool `mapstructure:"enabled" yaml:"enabled"`
	// Repo is the default git repository for the trees and upstream (a
	// kernel clone holding mainline and the stable branches).
	Repo string `mapstructure:"repo" yaml:"repo"`
	// Upstream is mainline: where dependencies are blamed and where the
	// patch is looked for (the NOTE line).
	Upstream UpstreamOptions `mapstructure:"upstream" yaml:"upstream"`
	// Trees are the stable trees, newest first (the reply lists them in
	// this order).
	Trees []TreeOptions `mapstructure:"trees" yaml:"trees"`
	// WorkDir is where throwaway worktrees and index snapshots are made
	// ("" = the system temporary directory).
	WorkDir string `mapstructure:"workdir" yaml:"workdir"`
	// CacheDir holds, per tree with a build command, a persistent
	// worktree (src/) and build output directory (build/), and the ccache
	// cache, kept across runs so builds are incremental ("" = no cache:
	// throwaway worktrees, full builds).
	CacheDir string `mapstructure:"cache_dir" yaml:"cache_dir"`
	// CCache exports CCACHE_DIR/CCACHE_BASEDIR to the build so that ccache
	// hits across worktrees at different paths.
	CCache bool `mapstructure:"ccache" yaml:"ccache"`
	// CCacheDir is the ccache cache ("" = <cache_dir>/ccache). Pointing it
	// at the runner's ccache_dir makes one compiler cache serve the stable
	// builds and the VM runner.
	CCacheDir string `mapstructure:"ccache_dir" yaml:"ccache_dir"`
	// BuildTimeout bounds one tree's build (default 30m).
	BuildTimeout time.Duration `mapstructure:"build_timeout" yaml:"build_timeout"`
	// MaxPrerequisites bounds the dependency list tried as a prerequisite
	// chain (default 8); single dependencies are always tried.
	MaxPrerequisites int `mapstructure:"max_prerequisites" yaml:"max_prerequisites"`
	// DepsOrder orders the "Possible dependencies" list: "date" (oldest
	// first, the default) or "sha" (as the stable bot prints them).
	DepsOrder string `mapstructure:"deps_order" yaml:"deps_order"`
	// DepsDepth is how many levels of dependencies are listed: 1 (the
	// default) lists the commits that last touched the failing hunks'
	// lines; 2 adds what those need on the tree, and so on (like git-deps).
	DepsDepth int `mapstructure:"deps_depth" yaml:"deps_depth"`
	// MaxDeps bounds the listed dependencies (default 20).
	MaxDeps int `mapstructure:"max_deps" yaml:"max_deps"`
	// SearchLimit bounds the commits scanned by subject and patch-id
	// searches (default 20000).
	SearchLimit int `mapstructure:"search_limit" yaml:"search_limit"`
	// BuildErrorLines bounds the compiler error lines kept (default 20).
	BuildErrorLines int `mapstructure:"build_error_lines" yaml:"build_error_lines"`
	// MaxPatchBytes refuses larger diffs (default 8 MiB).
	MaxPatchBytes int `mapstructure:"max_patch_bytes" yaml:"max_patch_bytes"`

	// Sandbox confines every build command (the config's `sandbox:`
	// section); the zero value requires a working bwrap.
	Sandbox sandbox.Options `mapstructure:"-" yaml:"-"`
	// Guard decides whether a patched tree may be built at all (the
	// runner's deny_paths/allow_paths); nil: no configured globs.
	Guard *patchguard.Guard `mapstructure:"-" yaml:"-"`
}

// Validate checks the settings that have a fixed set of values.
func (o Options) Validate() error {
	switch o.DepsOrder {
	case "", "date", "sha":
	default:
		return fmt.Errorf("stable.deps_order %q: want date or sha", o.DepsOrder)
	}
	return nil
}

// UpstreamOptions locate mainline.
type UpstreamOptions struct {
	// Repo is the repository holding Ref ("" = Options.Repo).
	Repo string `mapstructure:"repo" yaml:"repo"`
	// Ref is the mainline ref, e.g. "origin/master" or "master".
	Ref string `mapstructure:"ref" yaml:"ref"`
}

// TreeOptions describe one stable tree.
type TreeOptions struct {
	// Name is the name used in replies, e.g. "v6.1.192".
	Name string `mapstructure:"name" yaml:"name"`
	// Repo is the repository (or local checkout) holding Ref ("" =
	// Options.Repo). It is never modified except for worktree metadata.
	Repo string `mapstructure:"repo" yaml:"repo"`
	// Ref is the branch, tag or commit to test ("" = Name when that is a
	// ref, else the repository's HEAD).
	Ref string `mapstructure:"ref" yaml:"ref"`
	// Version is the major.minor the tree carries ("" = parsed from Name),
	// matched against "Cc: stable # 5.4+" annotations and AUTOSEL subjects.
	Version string `mapstructure:"version" yaml:"version"`
	// Build is a shell command run in the patched worktree (empty: no
	// build), inside the build sandbox (internal/sandbox) and only after
	// the patch guard accepted the patched index. It sees AUTOSEL_TREE,
	// AUTOSEL_SRC, AUTOSEL_BUILD_DIR (also HOME) and, with ccache,
	// CCACHE_DIR and CCACHE_BASEDIR, plus the sandbox's allow-list (PATH,
	// LANG, ...); nothing else of the bot's environment.
	Build string `mapstructure:"build" yaml:"build"`
}

// DefaultOptions are the documented defaults: config.yaml's stable
// section (a test holds the two equal).
func DefaultOptions() Options {
	return Options{
		Upstream:         UpstreamOptions{Ref: "origin/master"},
		CCache:           true,
		CCacheDir:        "/var/tmp/autosel-bot/runner/ccache",
		BuildTimeout:     30 * time.Minute,
		MaxPrerequisites: 8,
		DepsOrder:        "date",
		DepsDepth:        1,
		MaxDeps:          20,
		SearchLimit:      20000,
		BuildErrorLines:  20,
		MaxPatchBytes:    8 << 20,
	}
}

// withDefaults fills the unset counts and durations from DefaultOptions
// (0 is the default, as everywhere in the configuration).
func (o Options) withDefaults() Options {
	d := DefaultOptions()
	if o.BuildTimeout <= 0 {
		o.BuildTimeout = d.BuildTimeout
	}
	if o.MaxPrerequisites <= 0 {
		o.MaxPrerequisites = d.MaxPrerequisites
	}
	if o.DepsOrder == "" {
		o.DepsOrder = d.DepsOrder
	}
	if o.DepsDepth <= 0 {
		o.DepsDepth = d.DepsDepth
	}
	if o.MaxDeps <= 0 {
		o.MaxDeps = d.MaxDeps
	}
	if o.SearchLimit <= 0 {
		o.SearchLimit = d.SearchLimit
	}
	if o.BuildErrorLines <= 0 {
		o.BuildErrorLines = d.BuildErrorLines
	}
	if o.MaxPatchBytes <= 0 {
		o.MaxPatchBytes = d.MaxPatchBytes
	}
	return o
}

func (o Options) upstreamRepo() string {
	if o.Upstream.Repo != "" {
		return o.Upstream.Repo
	}
	return o.Repo
}

func (o Options) treeRepo(t TreeOptions) string {
	if t.Repo != "" {
		return t.Repo
	}
	return o.Repo
}

// treeHead resolves the commit a tree is tested at: Ref; without one, the
// tree's name when it is a ref (stable tags are named like "v6.1.192"),
// else the HEAD of the repository (a local checkout).
func treeHead(ctx context.Context, g *git.Git, t TreeOptions) (string, error) {
	if t.Ref != "" {
		return g.RevParse(ctx, t.Ref)
	}
	if c, err := g.RevParse(ctx, t.Name); err == nil {
		return c, nil
	}
	return g.RevParse(ctx, "HEAD")
}
