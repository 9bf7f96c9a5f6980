// Package actions is the runner backend "github-actions": kernels are
// built here (as the local backend builds them), booted on a GitHub
// Actions hosted runner with KVM, and the results frames come back to be
// evaluated here with the local backend's verdict code.
//
// The REST API cannot upload a workflow artifact (only the Actions
// runtime inside a job can), so the kernel and initramfs travel as a
// release asset: the bot keeps one prerelease (tag actions.release_tag) in
// the operator's repository, uploads a bundle per boot (tar.gz of
// spec.json, bzImage, initramfs.cpio), dispatches
// .github/workflows/autosel-vm.yml with the asset id and a unique run key,
// finds the run by its run-name (the dispatch answer carries no run id),
// polls it, downloads the "autosel-results-<key>" artifact (console.log,
// results.log, outcome.json) that the workflow's entry point
// (cmd/autosel-vm, RunBundle) leaves, and deletes the asset and the
// artifact. The repository must hold this project (the workflow runs
// `go run ./cmd/autosel-vm` from its checkout). Assets of a prerelease of
// a public repository are public: the bundle holds only the kernel built
// from a public patch and the suite.
package actions

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/autosel-bot/autosel-bot/github"
	"github.com/autosel-bot/autosel-bot/internal/defaults"
	"github.com/autosel-bot/autosel-bot/runner"
)

// Options configure the backend: the `github.actions:` section of the
// configuration (mapstructure tags; config.yaml documents every key and its
// default), plus what the caller wires in (work dir, logger).
type Options struct {
	// Enabled makes the VM stage boot on GitHub Actions instead of here.
	Enabled bool `mapstructure:"enabled"`
	// Repo ("owner/name") holds the workflow and the release.
	Repo string `mapstructure:"repo"`
	// Ref is the branch or tag the workflow is dispatched on.
	Ref string `mapstructure:"ref"`
	// Workflow is the workflow file name.
	Workflow string `mapstructure:"workflow"`
	// ReleaseTag names the prerelease whose assets carry the bundles.
	ReleaseTag string `mapstructure:"release_tag"`
	// Accel is the accelerator on the hosted runner: kvm or tcg.
	Accel string `mapstructure:"accel"`
	// MaxInFlight bounds the workflow runs in flight at once.
	MaxInFlight int `mapstructure:"max_in_flight"`
	// PollInterval is the time between two looks at a run.
	PollInterval time.Duration `mapstructure:"poll_interval"`
	// FindTimeout bounds the wait for the dispatched run to appear.
	FindTimeout time.Duration `mapstructure:"find_timeout"`
	// RunTimeout bounds one run from dispatch to completion.
	RunTimeout time.Duration `mapstructure:"run_timeout"`

	// WorkDir holds the bundles while they are uploaded.
	WorkDir string `mapstructure:"-"`
	// Log receives progress.
	Log *slog.Logger `mapstructure:"-"`
}

// DefaultOptions are the documented defaults: config.yaml's
// github.actions section (a test holds the two equal).
func DefaultOptions() Options {
	return Options{
		Ref:          "main",
		Workflow:     "autosel-vm.yml",
		ReleaseTag:   "autosel-vm-inputs",
		Accel:        "kvm",
		MaxInFlight:  4,
		PollInterval: 15 * time.Second,
		FindTimeout:  5 * time.Minute,
		RunTimeout:   90 * time.Minute,
	}
}

// Validate checks the settings that need each other and the accelerator.
func (o Options) Validate() error {
	if o.Enabled && o.Repo == "" {
		return errors.New("github.actions.enabled needs github.actions.repo")
	}
	return runner.ValidateAccel("github.actions", o.Accel)
}

// withDefaults checks o and fills its unset settings from DefaultOptions
// (0 is the default, as everywhere in the configuration); the settings
// shared with the other remote backend go through runner.RemoteOptions.
func (o *Options) withDefaults() error {
	d := DefaultOptions()
	err := runner.RemoteOptions{
		Section: "github.actions", Accel: &o.Accel, DefaultAccel: d.Accel,
		MaxInFlight: &o.MaxInFlight, DefaultMaxInFlight: d.MaxInFlight,
		WorkDir: &o.WorkDir, WorkSub: "actions", Log: &o.Log,
	}.Apply()
	if err != nil {
		return fmt.Errorf("github-actions backend: %w", err)
	}
	defaults.Fill(&o.Ref, d.Ref)
	defaults.Fill(&o.Workflow, d.Workflow)
	defaults.Fill(&o.ReleaseTag, d.ReleaseTag)
	defaults.Fill(&o.PollInterval, d.PollInterval)
	defaults.Fill(&o.FindTimeout, d.FindTimeout)
	defaults.Fill(&o.RunTimeout, d.RunTimeout)
	return nil
}

// Backend runs kernels on GitHub Actions (runner.Backend).
type Backend struct {
	c     *github.Client
	b     runner.Builder
	opts  Options
	owner string
	name  string
	slots chan struct{}
	log   *slog.Logger

	relMu     sync.Mutex
	releaseID int64
}

// New returns the backend. b builds and evaluates (usually a
// *runner.Local with the runner's options).
func New(c *github.Client, b runner.Builder, opts Options) (*Backend, error) {
	owner, name, err := github.SplitRepo(opts.Repo)
	if err != nil {
		return nil, fmt.Errorf("github-actions backend: %w", err)
	}
	if err := opts.withDefaults(); err != nil {
		return nil, err
	}
	return &Backend{c: c, b: b, opts: opts, owner: owner, name: name, slots: make(chan struct{}, opts.MaxInFlight), log: opts.Log}, nil
}

// Name implements runner.Backend.
func (b *Backend) Name() string { return "github-actions" }

// Run implements runner.Backend: build here, boot on a hosted runner,
// evaluate here. Build outcomes and guest behaviour are results; a run
// that produced no results (dispatch refused, run not found, failed or
// cancelled without an outcome, QEMU or KVM unusable there) is an
// infrastructure error, which the Runner retries (runner.retries) and
// then reports as infra-error. When ctx ends, the run is cancelled.
func (b *Backend) Run(ctx context.Context, req *runner.Request) (*runner.KernelResult, error) {
	kr := &runner.KernelResult{Label: req.Label}
	br, err := b.b.Build(ctx, req)
	if err != nil {
		return nil, err
	}
	kr.Build = *br
	if br.Status != runner.BuildOK {
		return kr, nil
	}
	key, err := runKey(req.Label)
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(b.opts.WorkDir, key)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	spec, tests, err := b.b.PrepareBoot(ctx, br.Kernel, b.opts.Accel, req.Tests, dir)
	if err != nil {
		return nil, err
	}
	bundle := filepath.Join(dir, "bundle.tar.gz")
	if err := packBundle(spec, bundle); err != nil {
		return nil, err
	}
	select {
	case b.slots <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-b.slots }()
	b.log.Info("github-actions: dispatching boot", "label", req.Label, "key", key, "repo", b.opts.Repo)
	out, console, results, err := b.remote(ctx, key, bundle)
	if err != nil {
		return nil, err
	}
	if out.Infra != "" {
		return nil, fmt.Errorf("github-actions run %s: %s", key, out.Infra)
	}
	b.b.EvalBoot(kr, spec, out, console, results, tests)
	// Keep the console where the report can point at it (the newest
	// keepConsoles of them).
	keep := filepath.Join(b.opts.WorkDir, "consoles", key+".log")
	if err := os.MkdirAll(filepath.Dir(keep), 0o755); err == nil && os.WriteFile(keep, console, 0o644) == nil {
		kr.Console = keep
		pruneConsoles(filepath.Dir(keep), keepConsoles)
	}
	return kr, nil
}

// keepConsoles is how many console logs of remote boots are kept.
const keepConsoles = 64

// pruneConsoles removes all but the newest keep files of dir.
func pruneConsoles(dir string, keep int) {
	ents, err := os.ReadDir(dir)
	if err != nil || len(ents) <= keep {
		return
	}
	type aged struct {
		name string
		mod  time.Time
	}
	var files []aged
	for _, e := range ents {
		if info, err := e.Info(); err == nil && info.Mode().IsRegular() {
			files = append(files, aged{e.Name(), info.ModTime()})
		}
	}
	sort.Slice(files, func(i, j int) bool { return files[i].mod.After(files[j].mod) })
	for _, f := range files[min(keep, len(files)):] {
		os.Remove(filepath.Join(dir, f.name))
	}
}

// runKey is a unique, shell- and name-safe key for one boot.
func runKey(label string) (string, error) {
	var r [6]byte
	if _, err := rand.Read(r[:]); err != nil {
		return "", err
	}
	clean := strings.Map(func(c rune) rune {
		if c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' {
			return c
		}
		return '-'
	}, strings.ToLower(label))
	if clean == "" {
		clean = "kernel"
	}
	return fmt.Sprintf("%s-%s-%s", clean, time.Now().UTC().Format("20060102t150405"), hex.EncodeToString(r[:])), nil
}

// errInfra marks results that never came back.
var errInfra = errors.New("github-actions: no results")
