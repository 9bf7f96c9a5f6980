package runner

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/autosel-bot/autosel-bot/internal/buildlog"
	"github.com/autosel-bot/autosel-bot/internal/ccachecfg"
	"github.com/autosel-bot/autosel-bot/internal/flock"
	"github.com/autosel-bot/autosel-bot/internal/patchguard"
	"github.com/autosel-bot/autosel-bot/internal/sandbox"
	"github.com/autosel-bot/autosel-bot/runner/kselftest"
)

// Build statuses.
const (
	BuildOK          = "ok"
	BuildFailed      = "failed"
	BuildRefused     = "refused"
	BuildApplyFailed = "apply-failed"
)

// BuildResult is the outcome of building one kernel.
type BuildResult struct {
	// Status is one of BuildOK, BuildFailed, BuildRefused, BuildApplyFailed.
	Status string `json:"status"`
	// Commit is the commit the patches were applied to.
	Commit string `json:"commit"`
	// Errors are the compiler's error lines (failed) or git apply's
	// message (apply-failed).
	Errors []string `json:"errors,omitempty"`
	// Refusals say why a patch was refused before building.
	Refusals []Refusal `json:"refusals,omitempty"`
	// Kernel is the bzImage (kept in the image cache).
	Kernel string `json:"kernel,omitempty"`
	// Log is the build log file.
	Log string `json:"log,omitempty"`
	// Cached is set when the image came from the cache without a build.
	Cached bool `json:"cached,omitempty"`
	// Duration is the make time (0 when cached).
	Duration time.Duration `json:"duration"`
	// ConfigMissing lists fragment options absent from the final .config.
	ConfigMissing []string `json:"config_missing,omitempty"`
	// Kselftests is the directory of the installed selftests (kept with
	// the image), "" when none were asked for.
	Kselftests string `json:"kselftests,omitempty"`
	// KselftestErrors name the selftest targets that did not build.
	KselftestErrors []string `json:"kselftest_errors,omitempty"`
}

// imageMeta is stored next to a cached kernel image.
type imageMeta struct {
	Commit        string        `json:"commit"`
	Duration      time.Duration `json:"duration"`
	ConfigMissing []string      `json:"config_missing,omitempty"`
	Log           string        `json:"log"`
	// KselftestErrors name the selftest targets that did not build.
	KselftestErrors []string `json:"kselftest_errors,omitempty"`
}

// builder builds kernels for one work directory.
type builder struct {
	opts Options
	sb   *sandbox.Sandbox
}

// newBuilder returns a builder whose make and scripts run in the sandbox.
func newBuilder(opts Options) *builder {
	return &builder{opts: opts, sb: sandbox.New(opts.Sandbox, opts.Log)}
}

// paths are the persistent locations for one tree.
type paths struct {
	key      string
	worktree string
	build    string
	// buildAt is where a patched build sees its throwaway build dir
	// (build): the baseline's path, so that the absolute paths recorded
	// there (tools/objtool's dependency files) hold and make rebuilds
	// only what the patch changed. "" = build.
	buildAt string
	images  string
	logs    string
	// cache is the build's ccache (isolate.go); nil before Build sets it.
	cache *ccachecfg.Setup
}

func (b *builder) pathsFor(tree string) (paths, error) {
	key, err := treeKey(tree)
	if err != nil {
		return paths{}, err
	}
	return paths{
		key:      key,
		worktree: filepath.Join(b.opts.WorkDir, "src", key),
		build:    filepath.Join(b.opts.BuildDir, key),
		images:   filepath.Join(b.opts.WorkDir, "images"),
		logs:     filepath.Join(b.opts.WorkDir, "logs"),
	}, nil
}

// objtree is the build dir as the build sees it (O=).
func (p paths) objtree() string {
	if p.buildAt != "" {
		return p.buildAt
	}
	return p.build
}

// fragments returns the config fragments in merge order: the runner's,
// the selftest targets' (every table target's, whatever is chosen), the
// configured extra one.
func (b *builder) fragments() ([][]byte, error) {
	frags := [][]byte{baseFragment}
	ks, err := b.opts.kselftestFragment()
	if err != nil {
		return nil, err
	}
	if ks != nil {
		frags = append(frags, ks)
	}
	if b.opts.ConfigFragment != "" {
		extra, err := os.ReadFile(b.opts.ConfigFragment)
		if err != nil {
			return nil, fmt.Errorf("runner: config fragment: %w", err)
		}
		frags = append(frags, extra)
	}
	return frags, nil
}

// imageKey identifies a kernel image: commit, patches, config, target.
func imageKey(commit string, patches []Patch, frags [][]byte, cc string, kselftests []kselftest.Target) string {
	h := sha256.New()
	fmt.Fprintf(h, "autosel-bot kernel image v1\nARCH=x86_64 bzImage\ncommit %s\ncc %s\n", commit, cc)
	for _, t := range kselftests {
		fmt.Fprintf(h, "kselftest %s\n", t.Name)
	}
	for _, f := range frags {
		fmt.Fprintf(h, "fragment %d\n", len(f))
		h.Write(f)
	}
	for _, p := range patches {
		fmt.Fprintf(h, "patch %d\n", len(p.Diff))
		h.Write(p.Diff)
	}
	return hex.EncodeToString(h.Sum(nil))[:20]
}

// Build refuses, applies and builds req in the tree's persistent worktree
// and build dir. A refused, unappliable or failing patch is a result, not
// an error; errors are infrastructure problems.
func (b *builder) Build(ctx context.Context, req *Request, progressOut io.Writer) (*BuildResult, error) {
	res := &BuildResult{}
	commit, err := resolveCommit(ctx, req.Tree, req.Ref)
	if err != nil {
		return nil, err
	}
	res.Commit = commit
	if len(req.Patches) > 0 {
		gp := make([]patchguard.Patch, len(req.Patches))
		for i, p := range req.Patches {
			gp[i] = patchguard.Patch{Name: p.Name, Diff: p.Diff}
		}
		refusals, err := b.opts.Guard.Check(ctx, req.Tree, commit, gp)
		if err != nil {
			return nil, err
		}
		if len(refusals) > 0 {
			res.Status, res.Refusals = BuildRefused, refusals
			return res, nil
		}
	}
	frags, err := b.fragments()
	if err != nil {
		return nil, err
	}
	p, err := b.pathsFor(req.Tree)
	if err != nil {
		return nil, err
	}
	for _, d := range []string{p.build, p.images, p.logs, filepath.Dir(p.worktree), b.opts.ccacheDir()} {
		if d == "" {
			continue
		}
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
	}
	key := imageKey(commit, req.Patches, frags, b.ccString(), req.Kselftests)
	imgDir := filepath.Join(p.images, key)
	if meta, ok := loadImage(imgDir); ok {
		now := time.Now()
		os.Chtimes(imgDir, now, now) // LRU
		res.Status, res.Kernel, res.Cached = BuildOK, filepath.Join(imgDir, "bzImage"), true
		res.ConfigMissing, res.Log = meta.ConfigMissing, meta.Log
		res.KselftestErrors = meta.KselftestErrors
		if len(req.Kselftests) > 0 {
			res.Kselftests = filepath.Join(imgDir, kselftestInstall)
		}
		return res, nil
	}

	// Nothing is checked out or built without the sandbox (or the
	// operator's explicit sandbox.allow_unsandboxed).
	mode, err := b.sb.Mode(ctx)
	if err != nil {
		return nil, fmt.Errorf("runner: %w", err)
	}

	// One build at a time per worktree (shared by every build dir of the
	// tree) and per build dir, taken in that order.
	unlockSrc, err := flock.Lock(ctx, p.worktree+".lock")
	if err != nil {
		return nil, err
	}
	defer unlockSrc()
	unlock, err := flock.Lock(ctx, p.build+".lock")
	if err != nil {
		return nil, err
	}
	defer unlock()
	if meta, ok := loadImage(imgDir); ok {
		// Built by a concurrent request while we waited for the lock.
		res.Status, res.Kernel, res.Cached = BuildOK, filepath.Join(imgDir, "bzImage"), true
		res.ConfigMissing, res.Log = meta.ConfigMissing, meta.Log
		res.KselftestErrors = meta.KselftestErrors
		if len(req.Kselftests) > 0 {
			res.Kselftests = filepath.Join(imgDir, kselftestInstall)
		}
		return res, nil
	}

	if err := prepareWorktree(ctx, req.Tree, p.worktree, commit); err != nil {
		return nil, err
	}
	if err := cleanWorktree(ctx, p.worktree); err != nil {
		return nil, err
	}
	// A patched build runs in throwaway copies (isolate.go).
	patched := len(req.Patches) > 0
	if patched {
		dir, cleanup, err := throwawayBuildDir(ctx, p.build, key)
		if err != nil {
			return nil, err
		}
		defer cleanup()
		if mode == "bwrap" {
			p.buildAt = p.build
		}
		p.build = dir
	}
	cache, err := ccachecfg.For(b.opts.ccacheDir(), b.opts.CCacheMaxSize, patched)
	if err != nil {
		return nil, err
	}
	defer cache.Cleanup()
	p.cache = cache
	for i, patch := range req.Patches {
		name := patch.Name
		if name == "" {
			name = fmt.Sprintf("patch %d", i+1)
		}
		if err := applyPatch(ctx, p.worktree, name, patch.Diff); err != nil {
			res.Status = BuildApplyFailed
			res.Errors = strings.Split(strings.TrimSpace(strings.ReplaceAll(err.Error(), p.worktree+"/", "")), "\n")
			return res, nil
		}
	}
	res.Log = filepath.Join(p.logs, key+".log")
	logf, err := os.Create(res.Log)
	if err != nil {
		return nil, err
	}
	defer logf.Close()
	// The log on disk is bounded (logcap.go) whatever the build prints.
	log := newCappedLog(logf, buildLogHead, buildLogTail)
	defer log.Flush()
	if err := b.configure(ctx, p, frags, log); err != nil {
		log.Flush()
		res.Status = BuildFailed
		msg := strings.NewReplacer(p.worktree+"/", "", p.objtree()+"/", "", p.worktree, ".", p.objtree(), ".").Replace(err.Error())
		res.Errors = append([]string{"configuring the kernel failed: " + msg}, buildlog.ErrorLines(readTail(res.Log), maxBuildErrorLines, p.worktree, p.objtree())...)
		return res, nil
	}
	dotconfig, err := readBuildFile(p.build, ".config")
	if err != nil {
		return nil, err
	}
	for _, f := range frags {
		res.ConfigMissing = append(res.ConfigMissing, missingOptions(f, dotconfig)...)
	}
	start := time.Now()
	err = b.make(ctx, p, log, progressOut, req.Label, "bzImage")
	res.Duration = time.Since(start)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		var ee *exec.ExitError
		if !errors.As(err, &ee) && !errors.Is(err, errBuildTimeout) && !errors.Is(err, sandbox.ErrDiskBudget) {
			return nil, err
		}
		log.Flush()
		logf.Sync()
		res.Status = BuildFailed
		res.Errors = buildlog.ErrorLines(readTail(res.Log), maxBuildErrorLines, p.worktree, p.objtree())
		switch {
		case errors.Is(err, errBuildTimeout):
			res.Errors = append([]string{fmt.Sprintf("build timed out after %s", b.opts.BuildTimeout)}, res.Errors...)
		case errors.Is(err, sandbox.ErrDiskBudget):
			res.Errors = append([]string{err.Error()}, res.Errors...)
		}
		return res, nil
	}
	ksErrors, err := b.buildKselftests(ctx, p, req.Kselftests, log)
	if err != nil {
		return nil, err
	}
	res.KselftestErrors = ksErrors
	if len(req.Kselftests) > 0 {
		if err := saveKselftests(imgDir, p.build); err != nil {
			return nil, err
		}
	}
	if err := saveImage(imgDir, p.build, "arch/x86/boot/bzImage", imageMeta{
		Commit: commit, Duration: res.Duration, ConfigMissing: res.ConfigMissing, Log: res.Log,
		KselftestErrors: ksErrors,
	}); err != nil {
		return nil, err
	}
	if len(req.Kselftests) > 0 {
		res.Kselftests = filepath.Join(imgDir, kselftestInstall)
	}
	pruneOldest(p.images, 16)
	pruneOldest(p.logs, 64)
	res.Status, res.Kernel = BuildOK, filepath.Join(imgDir, "bzImage")
	return res, nil
}

var errBuildTimeout = errors.New("build timed out")

// ccString is the CC make variable.
func (b *builder) ccString() string {
	if b.opts.ccacheDir() == "" {
		return "gcc"
	}
	return "ccache gcc"
}

// env is the build's environment (the sandbox drops anything outside its
// allow-list). LOCALVERSION is set (empty) so that the kernel release
// does not depend on git, which the sandbox does not reach.
func (b *builder) env(p paths) []string {
	env := []string{
		"LC_ALL=C",
		"LOCALVERSION=",
		"KBUILD_BUILD_TIMESTAMP=Thu Jan  1 00:00:00 UTC 2026",
		"KBUILD_BUILD_USER=autosel",
		"KBUILD_BUILD_HOST=autosel",
	}
	if p.cache != nil {
		env = append(env, p.cache.Env...)
	}
	return env
}

// spec is a sandboxed command in the worktree of p: its build dir (O=)
// and the build's own ccache dirs are writable, the worktree, the ccache
// configuration (and for a patched build the shared cache) read-only,
// HOME is the build dir. kbuild writes nothing into the source tree of an
// O= build; the worktree stays the bot's (git refuses a worktree another
// user owns), so the build user gets only the build dir. A patched
// build's throwaway copy is mounted at the baseline's path, which the
// build then cannot reach.
func (b *builder) spec(p paths, out io.Writer, env []string, args ...string) sandbox.Spec {
	var writable []string
	var mounts []sandbox.Mount
	if p.buildAt != "" {
		mounts = []sandbox.Mount{{Host: p.build, At: p.buildAt}}
	} else {
		writable = []string{p.build}
	}
	readOnly := []string{p.worktree}
	if p.cache != nil {
		writable = append(writable, p.cache.Writable...)
		readOnly = append(readOnly, p.cache.ReadOnly...)
	}
	return sandbox.Spec{
		Args: args, Dir: p.worktree, Writable: writable, Mounts: mounts, ReadOnly: readOnly, Home: p.objtree(),
		Env: env, Stdout: out, Stderr: out,
	}
}

// configure writes .config (tinyconfig + fragments) when the fragments
// changed or there is none; otherwise kbuild's own syncconfig keeps it
// current.
func (b *builder) configure(ctx context.Context, p paths, frags [][]byte, log io.Writer) error {
	h := sha256.New()
	for _, f := range frags {
		h.Write(f)
		h.Write([]byte{0})
	}
	stamp := hex.EncodeToString(h.Sum(nil))
	const stampFile = ".autosel-config"
	if old, err := readBuildFile(p.build, stampFile); err == nil && string(old) == stamp {
		if _, err := readBuildFile(p.build, ".config"); err == nil {
			return nil
		}
	}
	if err := b.make(ctx, p, log, nil, "", "tinyconfig"); err != nil {
		return fmt.Errorf("make tinyconfig: %w", err)
	}
	args := []string{"-m", "-O", p.objtree(), filepath.Join(p.objtree(), ".config")}
	for i, f := range frags {
		name := fmt.Sprintf(".autosel-fragment-%d.config", i)
		if err := writeBuildFile(p.build, name, f); err != nil {
			return err
		}
		args = append(args, filepath.Join(p.objtree(), name))
	}
	env := append(b.env(p), "ARCH=x86_64", "KCONFIG_CONFIG="+filepath.Join(p.objtree(), ".config"))
	sctx, cancel := context.WithTimeout(ctx, b.opts.BuildTimeout)
	defer cancel()
	// merge_config.sh makes its temporary files in the current directory:
	// the build dir, the worktree being read-only.
	spec := b.spec(p, log, env, append([]string{filepath.Join(p.worktree, "scripts/kconfig/merge_config.sh")}, args...)...)
	spec.Dir = p.objtree()
	if err := b.sb.Run(sctx, spec); err != nil {
		return fmt.Errorf("merge_config.sh: %w", err)
	}
	if err := b.make(ctx, p, log, nil, "", "olddefconfig"); err != nil {
		return fmt.Errorf("make olddefconfig: %w", err)
	}
	return writeBuildFile(p.build, stampFile, []byte(stamp))
}

// make runs make in the worktree with O=<build dir>, teeing output to log
// and feeding kbuild step lines to a progress display.
func (b *builder) make(ctx context.Context, p paths, log io.Writer, progressOut io.Writer, label string, targets ...string) error {
	jobs := b.opts.BuildJobs
	if jobs <= 0 {
		jobs = runtime.NumCPU()
	}
	if b.opts.BuildTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, b.opts.BuildTimeout)
		defer cancel()
	}
	args := append([]string{"ARCH=x86_64", "O=" + p.objtree(), "CC=" + b.ccString(), fmt.Sprintf("-j%d", jobs)}, targets...)
	fmt.Fprintf(log, "$ make %s\n", strings.Join(args, " "))
	pr, pw := io.Pipe()
	var prog progress
	if label != "" {
		what := "kernel build"
		if label != "" {
			what = label + " kernel"
		}
		prog = newProgress(progressOut, what, stepEstimate(p.build), b.opts.Log)
	}
	done := make(chan struct{})
	steps := 0
	go func() {
		defer close(done)
		sc := bufio.NewScanner(pr)
		sc.Buffer(make([]byte, 0, 64*1024), 1024*1024)
		for sc.Scan() {
			l := sc.Text()
			fmt.Fprintln(log, l)
			if prog != nil && isStepLine(l) {
				steps++
				prog.Step(l)
			}
		}
		io.Copy(io.Discard, pr)
	}()
	err := b.sb.Run(ctx, b.spec(p, pw, b.env(p), append([]string{"make"}, args...)...))
	pw.Close()
	<-done
	if prog != nil {
		prog.Done(err == nil)
	}
	if err == nil && label != "" && steps > 500 {
		writeBuildFile(p.build, ".autosel-steps", []byte(fmt.Sprint(steps)))
	}
	if err != nil && ctx.Err() == context.DeadlineExceeded {
		return errBuildTimeout
	}
	return err
}

// stepEstimate is the number of steps of the last full build (for the
// progress bar), or a tinyconfig-sized guess.
func stepEstimate(build string) int64 {
	if _, err := os.Stat(filepath.Join(build, "vmlinux")); err == nil {
		return 0 // incremental: unknown and small
	}
	var n int64
	if b, err := readBuildFile(build, ".autosel-steps"); err == nil {
		fmt.Sscan(string(b), &n)
	}
	if n <= 0 {
		n = 1200
	}
	return n
}

func loadImage(dir string) (imageMeta, bool) {
	var m imageMeta
	b, err := os.ReadFile(filepath.Join(dir, "meta.json"))
	if err != nil {
		return m, false
	}
	if json.Unmarshal(b, &m) != nil {
		return m, false
	}
	if _, err := os.Stat(filepath.Join(dir, "bzImage")); err != nil {
		return m, false
	}
	return m, true
}

// saveImage copies the kernel (kernel inside the build dir build) and its
// meta data into the image cache dir.
func saveImage(dir, build, kernel string, meta imageMeta) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	k, err := readBuildFile(build, kernel)
	if err != nil {
		return fmt.Errorf("runner: built kernel: %w", err)
	}
	if err := writeFileAtomic(filepath.Join(dir, "bzImage"), k, 0o644); err != nil {
		return err
	}
	b, _ := json.MarshalIndent(meta, "", "  ")
	return writeFileAtomic(filepath.Join(dir, "meta.json"), b, 0o644)
}

// pruneOldest keeps the keep most recently modified entries of dir
// (images are touched when reused).
func pruneOldest(dir string, keep int) {
	ents, err := os.ReadDir(dir)
	if err != nil || len(ents) <= keep {
		return
	}
	type img struct {
		path string
		t    time.Time
	}
	var imgs []img
	for _, e := range ents {
		if info, err := e.Info(); err == nil {
			imgs = append(imgs, img{filepath.Join(dir, e.Name()), info.ModTime()})
		}
	}
	sort.Slice(imgs, func(i, j int) bool { return imgs[i].t.After(imgs[j].t) })
	for _, im := range imgs[min(keep, len(imgs)):] {
		os.RemoveAll(im.path)
	}
}

// readTail returns the last 256 KiB of a file.
func readTail(path string) []byte {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Size() > 256*1024 {
		f.Seek(st.Size()-256*1024, io.SeekStart)
	}
	b, _ := io.ReadAll(f)
	return b
}
