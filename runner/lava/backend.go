package lava

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/autosel-bot/autosel-bot/internal/defaults"
	"github.com/autosel-bot/autosel-bot/internal/retry"
	"github.com/autosel-bot/autosel-bot/runner"
)

// Options configure the backend: the `runner.lava:` section of the
// configuration (mapstructure tags; config.yaml documents every key and its
// default), plus what the caller wires in (token, work dir, logger).
type Options struct {
	// URL is the LAVA server (https://lava.example.org/; its REST API
	// v0.2 is under api/v0.2/).
	URL string `mapstructure:"url"`
	// TokenEnv names the environment variable holding the API token;
	// TokenFile is a file holding it (it wins). See ResolveToken.
	TokenEnv  string `mapstructure:"token_env"`
	TokenFile string `mapstructure:"token_file"`
	// DeviceType is the device type jobs ask for (qemu); Tags are device tags.
	DeviceType string   `mapstructure:"device_type"`
	Tags       []string `mapstructure:"tags"`
	// Priority is the job priority (low, medium, high).
	Priority string `mapstructure:"priority"`
	// Accel is what the devices use (their dictionaries decide): tcg or kvm.
	// It scales the timeouts (runner.tcg_scale) and picks the CPU model.
	Accel string `mapstructure:"accel"`
	// MaxInFlight bounds the jobs submitted and not finished.
	MaxInFlight int `mapstructure:"max_in_flight"`
	// PollMin and PollMax bound the polling interval (doubled while a
	// job's state does not change).
	PollMin time.Duration `mapstructure:"poll_min"`
	PollMax time.Duration `mapstructure:"poll_max"`
	// Events is LAVA's event stream (lava-publisher, tcp://host:5500): when
	// set, a job's follower polls at once on its events instead of waiting
	// out the backoff.
	Events string `mapstructure:"events"`
	// DeployTimeout bounds the artifact download of a job.
	DeployTimeout time.Duration `mapstructure:"deploy_timeout"`
	// QueueTimeout bounds the wait of a submitted job for a device while
	// no online device can take it; OfflineGrace the time a running job's
	// worker may stay offline. Both end the job as an infrastructure failure.
	QueueTimeout time.Duration `mapstructure:"queue_timeout"`
	OfflineGrace time.Duration `mapstructure:"offline_grace"`
	// Artifacts: the backend's own file server (ServeAddr, ServeURL; empty
	// ServeURL: http://<ServeAddr>/), or a directory exported by another
	// web server (ShareDir under ShareURL).
	ServeAddr string `mapstructure:"serve_addr"`
	ServeURL  string `mapstructure:"serve_url"`
	ShareDir  string `mapstructure:"share_dir"`
	ShareURL  string `mapstructure:"share_url"`

	// Token is the API token (ResolveToken reads it from TokenFile or
	// TokenEnv).
	Token string `mapstructure:"-"`
	// WorkDir holds the per-job initramfs and the kept consoles.
	WorkDir string `mapstructure:"-"`
	// Log receives progress.
	Log *slog.Logger `mapstructure:"-"`
}

// Backend runs kernels on a LAVA lab (runner.Backend).
type Backend struct {
	c     *Client
	b     runner.Builder
	opts  Options
	art   artifacts
	srv   *FileServer
	slots chan struct{}
	log   *slog.Logger
	m     *metrics
	ev    *events
	stop  context.CancelFunc

	baseMu    sync.Mutex
	baselines map[string]*baselineRun
}

// baselineRun is one baseline boot shared by every request for it.
type baselineRun struct {
	done chan struct{}
	kr   *runner.KernelResult
	err  error
}

// New returns the backend. b builds and evaluates (usually a
// *runner.Local with the runner's options). Close it to stop the file
// server.
func New(b runner.Builder, opts Options) (*Backend, error) {
	if err := opts.withDefaults(); err != nil {
		return nil, err
	}
	c, err := NewClient(opts.URL, opts.Token, nil)
	if err != nil {
		return nil, err
	}
	be := &Backend{c: c, b: b, opts: opts, slots: make(chan struct{}, opts.MaxInFlight), log: opts.Log,
		m: newMetrics(), baselines: map[string]*baselineRun{}}
	switch {
	case opts.ShareDir != "":
		be.art = &sharedDir{dir: opts.ShareDir, prefix: opts.ShareURL}
	default:
		addr := opts.ServeAddr
		defaults.Fill(&addr, DefaultOptions().ServeAddr)
		srv, err := StartFileServer(addr, opts.ServeURL, opts.Log)
		if err != nil {
			return nil, err
		}
		be.srv, be.art = srv, srv
	}
	if opts.Events != "" {
		ev, err := newEvents(opts.Events, opts.Log)
		if err != nil {
			be.Close()
			return nil, err
		}
		ctx, cancel := context.WithCancel(context.Background())
		be.ev, be.stop = ev, cancel
		go ev.run(ctx)
	}
	return be, nil
}

// Close stops the artifact server and the event stream.
func (b *Backend) Close() error {
	if b.stop != nil {
		b.stop()
	}
	if b.srv != nil {
		return b.srv.Close()
	}
	return nil
}

// Name implements runner.Backend.
func (b *Backend) Name() string { return "lava" }

// Client returns the backend's REST client.
func (b *Backend) Client() *Client { return b.c }

// Run implements runner.Backend: build here, boot in the lab, evaluate
// here. Build outcomes and guest behaviour are results; a job without a
// result is an error wrapping ErrInfra, which the Runner retries. When ctx
// ends, the job is cancelled.
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
	if len(req.Patches) > 0 {
		return b.boot(ctx, req, kr)
	}
	// Baselines: one boot per kernel image (tree, commit, config) and
	// tests, shared by concurrent requests and kept while it succeeded.
	key := br.Kernel + "|" + testKey(req.Tests)
	b.baseMu.Lock()
	run, ok := b.baselines[key]
	if !ok {
		run = &baselineRun{done: make(chan struct{})}
		b.baselines[key] = run
	}
	b.baseMu.Unlock()
	if ok {
		select {
		case <-run.done:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		if run.err == nil {
			b.m.baselineHits.Add(1)
			c := *run.kr
			c.Label, c.Build = req.Label, *br
			return &c, nil
		}
		return b.Run(ctx, req) // the shared run failed and was dropped: try again
	}
	res, err := b.boot(ctx, req, kr)
	if err != nil || res.Boot != "ok" {
		b.baseMu.Lock()
		delete(b.baselines, key)
		b.baseMu.Unlock()
		run.err = err
		if run.err == nil {
			run.err = errors.New("the baseline did not boot")
		}
		close(run.done)
		return res, err
	}
	run.kr = res
	close(run.done)
	return res, nil
}

func testKey(tests []runner.Test) string {
	if tests == nil {
		return "default"
	}
	var names []string
	for _, t := range tests {
		names = append(names, t.Name)
	}
	return strings.Join(names, ",")
}

// boot runs one job for kr's kernel and evaluates it into kr.
func (b *Backend) boot(ctx context.Context, req *runner.Request, kr *runner.KernelResult) (*runner.KernelResult, error) {
	key, err := randomKey()
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(b.opts.WorkDir, "jobs", key)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	spec, tests, err := b.b.PrepareBoot(ctx, kr.Build.Kernel, b.opts.Accel, req.Tests, dir)
	if err != nil {
		return nil, err
	}
	b.m.queued.Add(1)
	select {
	case b.slots <- struct{}{}:
		b.m.queued.Add(-1)
	case <-ctx.Done():
		b.m.queued.Add(-1)
		return nil, ctx.Err()
	}
	defer func() { <-b.slots }()
	urls, withdraw, err := b.art.Publish(ctx, map[string]string{"bzImage": spec.Kernel, "initramfs.cpio": spec.Initrd})
	if err != nil {
		return nil, err
	}
	defer withdraw()
	def, err := definition(&jobParams{Name: fmt.Sprintf("autosel %s %s", req.Label, shortRef(req.Ref)), DeviceType: b.opts.DeviceType,
		Priority: b.opts.Priority, Tags: b.opts.Tags, KernelURL: urls["bzImage"], InitrdURL: urls["initramfs.cpio"],
		Spec: spec, DeployTimeout: b.opts.DeployTimeout})
	if err != nil {
		return nil, err
	}
	start := time.Now()
	id, err := b.c.Submit(ctx, def)
	if err != nil {
		b.m.observe("submit-error", time.Since(start))
		return nil, fmt.Errorf("%w: submit: %v", ErrInfra, err)
	}
	b.m.submitted.Add(1)
	b.log.Info("lava: job submitted", "label", req.Label, "job", id, "device_type", b.opts.DeviceType)
	b.m.inFlight.Add(1)
	job, err := b.follow(ctx, id, jobTimeouts(&jobParams{Spec: spec, DeployTimeout: b.opts.DeployTimeout}).Job+runningSlack)
	b.m.inFlight.Add(-1)
	if err != nil {
		if ctx.Err() != nil {
			b.cancel(id, "shutdown")
			return nil, ctx.Err()
		}
		b.m.observe("infra", time.Since(start))
		return nil, err
	}
	logData, err := b.c.Logs(ctx, id)
	if err != nil {
		b.m.observe("infra", time.Since(start))
		return nil, fmt.Errorf("%w: job %d log: %v", ErrInfra, id, err)
	}
	jl, err := parseLog(logData)
	if err != nil {
		b.m.observe("infra", time.Since(start))
		return nil, fmt.Errorf("%w: job %d: %v", ErrInfra, id, err)
	}
	out, console, results, err := outcome(job, jl, spec)
	if err != nil {
		b.m.observe("infra", time.Since(start))
		b.log.Warn("lava: job without a result", "label", req.Label, "job", id, "err", err)
		return nil, err
	}
	b.m.observe("result", time.Since(start))
	b.log.Info("lava: job finished", "label", req.Label, "job", id, "device", job.ActualDevice, "latency", time.Since(start).Round(time.Millisecond))
	b.b.EvalBoot(kr, spec, out, console, results, tests)
	keep := filepath.Join(b.opts.WorkDir, "consoles", fmt.Sprintf("job-%d-%s.log", id, safe(req.Label)))
	if err := os.MkdirAll(filepath.Dir(keep), 0o755); err == nil && os.WriteFile(keep, logData, 0o644) == nil {
		kr.Console = keep
		pruneOldest(filepath.Dir(keep), keepLogs)
	}
	return kr, nil
}

// keepLogs is how many job logs are kept.
const keepLogs = 64

// runningSlack is how long a job may run past its own LAVA job timeout
// before the backend gives up on it.
const runningSlack = 5 * time.Minute

// follow polls job id until it finishes, with backoff while nothing
// changes. A running job whose worker stays offline longer than
// OfflineGrace (lost dispatcher), one still running after maxRun (LAVA
// did not enforce its timeout), and a queued job that no online device
// can take for QueueTimeout, are cancelled and reported as ErrInfra.
func (b *Backend) follow(ctx context.Context, id int64, maxRun time.Duration) (*Job, error) {
	poll := retry.Policy{Min: b.opts.PollMin, Max: b.opts.PollMax}.New()
	last := ""
	var offlineSince, unschedulableSince, runningSince time.Time
	var wake <-chan struct{}
	if b.ev != nil {
		ch, stop := b.ev.watch(id)
		defer stop()
		wake = ch
	}
	for {
		j, err := b.c.Job(ctx, id)
		switch {
		case err != nil && ctx.Err() != nil:
			return nil, ctx.Err()
		case err != nil:
			b.log.Warn("lava: polling the job failed", "job", id, "err", err)
		case j.State == "Finished":
			return j, nil
		default:
			if st := j.State + "/" + j.ActualDevice; st != last {
				last = st
				poll.Reset()
				b.log.Debug("lava: job state", "job", id, "state", j.State, "device", j.ActualDevice)
			}
			now := time.Now()
			switch j.State {
			case "Running", "Scheduled", "Scheduling":
				unschedulableSince = time.Time{}
				if runningSince.IsZero() {
					runningSince = now
				}
				if now.Sub(runningSince) > maxRun {
					b.cancel(id, "overdue")
					return nil, fmt.Errorf("%w: job %d still %s after %s", ErrInfra, id, strings.ToLower(j.State), maxRun)
				}
				if lost, why := b.workerLost(ctx, j); lost {
					if offlineSince.IsZero() {
						offlineSince = now
					}
					if now.Sub(offlineSince) > b.opts.OfflineGrace {
						b.cancel(id, "lost dispatcher")
						return nil, fmt.Errorf("%w: job %d: %s for %s (lost dispatcher)", ErrInfra, id, why, b.opts.OfflineGrace)
					}
				} else {
					offlineSince = time.Time{}
				}
			case "Submitted":
				if ok, why := b.schedulable(ctx); !ok {
					if unschedulableSince.IsZero() {
						unschedulableSince = now
					}
					if now.Sub(unschedulableSince) > b.opts.QueueTimeout {
						b.cancel(id, "no device online")
						return nil, fmt.Errorf("%w: job %d queued for %s: %s", ErrInfra, id, b.opts.QueueTimeout, why)
					}
				} else {
					unschedulableSince = time.Time{}
				}
			}
		}
		t := time.NewTimer(poll.Next())
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		case <-wake:
			t.Stop()
			poll.Reset()
		case <-t.C:
		}
	}
}

// workerLost reports whether the worker of j's device is offline.
func (b *Backend) workerLost(ctx context.Context, j *Job) (bool, string) {
	if j.ActualDevice == "" {
		return false, ""
	}
	d, err := b.c.Device(ctx, j.ActualDevice)
	if err != nil || d.WorkerHost == "" {
		return false, ""
	}
	w, err := b.c.Worker(ctx, d.WorkerHost)
	if err != nil {
		return false, ""
	}
	if w.State != "Online" {
		return true, fmt.Sprintf("worker %s of device %s is %s", w.Hostname, d.Hostname, strings.ToLower(w.State))
	}
	return false, ""
}

// schedulable reports whether a device of the type is usable: healthy and
// on an online, active worker.
func (b *Backend) schedulable(ctx context.Context) (bool, string) {
	devs, err := b.c.Devices(ctx, b.opts.DeviceType)
	if err != nil {
		return true, "" // the server is unreachable: keep waiting, the polling logs it
	}
	workers := map[string]bool{}
	for _, d := range devs {
		switch d.Health {
		case "Good", "Unknown", "Looping":
		default:
			continue
		}
		online, seen := workers[d.WorkerHost]
		if !seen {
			w, err := b.c.Worker(ctx, d.WorkerHost)
			online = err == nil && w.State == "Online" && w.Health == "Active"
			workers[d.WorkerHost] = online
		}
		if online {
			return true, ""
		}
	}
	return false, fmt.Sprintf("no %s device is healthy on an online worker (%d devices)", b.opts.DeviceType, len(devs))
}

// cancel cancels a job with a context of its own (the caller's may be done).
func (b *Backend) cancel(id int64, why string) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := b.c.Cancel(ctx, id); err != nil {
		b.log.Warn("lava: cancelling the job failed", "job", id, "err", err)
		return
	}
	b.log.Info("lava: job cancelled", "job", id, "why", why)
}

func shortRef(ref string) string {
	if len(ref) > 12 {
		return ref[:12]
	}
	return ref
}

func safe(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' {
			return r
		}
		return '_'
	}, strings.ToLower(s))
}

// pruneOldest removes all but the newest keep files of dir.
func pruneOldest(dir string, keep int) {
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
		if info, err := e.Info(); err == nil {
			files = append(files, aged{e.Name(), info.ModTime()})
		}
	}
	for len(files) > keep {
		oldest := 0
		for i := range files {
			if files[i].mod.Before(files[oldest].mod) {
				oldest = i
			}
		}
		os.Remove(filepath.Join(dir, files[oldest].name))
		files = append(files[:oldest], files[oldest+1:]...)
	}
}
