package github

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/autosel-bot/autosel-bot/store"
)

// Options configure the pull-request watcher: they are the `github:`
// section of the configuration (mapstructure tags; config.yaml documents
// every key and its default), with the REST client's keys (Client) and the
// webhook receiver's (Webhook). NewWatcher uses the watcher's own fields.
type Options struct {
	// Repos are the watched repositories ("owner/name").
	Repos []string `mapstructure:"repos"`
	// PollInterval is the time between two listings of a repository's
	// open pull requests.
	PollInterval time.Duration `mapstructure:"poll_interval"`
	// Workers is how many pull requests are analysed at once.
	Workers int `mapstructure:"workers"`
	// CheckName names the check run.
	CheckName string `mapstructure:"check_name"`
	// MaxCommits is the most commits a reviewed pull request may have.
	MaxCommits int `mapstructure:"max_commits"`
	// MaxAttempts is how often a head is tried before it is given up.
	MaxAttempts int `mapstructure:"max_attempts"`
	// Notes posts note-level findings as line comments too.
	Notes bool `mapstructure:"notes"`
	// Drafts reviews draft pull requests too.
	Drafts bool `mapstructure:"drafts"`
	// Client configures the REST client (keys of the same section).
	Client ClientOptions `mapstructure:",squash"`
	// Webhook is the optional pull_request event receiver.
	Webhook WebhookOptions `mapstructure:"webhook"`

	// FindingURL gives the address of a finding's web page (package web,
	// web.base_url): the review links every finding to it. nil: no links.
	FindingURL func(id string) string `mapstructure:"-"`

	// Log receives progress; nil discards it.
	Log *slog.Logger `mapstructure:"-"`
}

// Watcher follows pull requests of the configured repositories: polling
// (the default) and, when a webhook receiver is mounted, pull_request
// events. Each new head goes through the pipeline once and gets a review
// and a check run; the state lives in the store.
type Watcher struct {
	c       *Client
	st      *store.Store
	analyze AnalyzeFunc
	opts    Options
	log     *slog.Logger
	repos   map[string]bool

	queue chan PullRequest
	kick  chan string

	mu       sync.Mutex
	inFlight map[string]bool // repo#number being processed or queued
}

// NewWatcher returns a watcher. It does nothing until Run.
func NewWatcher(c *Client, st *store.Store, analyze AnalyzeFunc, opts Options) (*Watcher, error) {
	if len(opts.Repos) == 0 {
		return nil, errors.New("github: no repository configured (github.repos)")
	}
	repos := map[string]bool{}
	for _, r := range opts.Repos {
		if _, _, err := SplitRepo(r); err != nil {
			return nil, err
		}
		repos[r] = true
	}
	d := DefaultOptions()
	if opts.PollInterval <= 0 {
		opts.PollInterval = d.PollInterval
	}
	if opts.Workers <= 0 {
		opts.Workers = d.Workers
	}
	if opts.CheckName == "" {
		opts.CheckName = d.CheckName
	}
	if opts.MaxCommits <= 0 {
		opts.MaxCommits = d.MaxCommits
	}
	if opts.MaxAttempts <= 0 {
		opts.MaxAttempts = d.MaxAttempts
	}
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	return &Watcher{c: c, st: st, analyze: analyze, opts: opts, log: opts.Log, repos: repos,
		queue: make(chan PullRequest, 256), kick: make(chan string, 64), inFlight: map[string]bool{}}, nil
}

// Run polls every repository now and every PollInterval (or sooner when
// Notify is called), and processes new heads with Workers workers, until
// ctx is done. Heads in progress when ctx ends are resumed by the next
// Run (the store knows where they stopped).
func (w *Watcher) Run(ctx context.Context) error {
	var wg sync.WaitGroup
	for i := 0; i < w.opts.Workers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w.worker(ctx)
		}()
	}
	t := time.NewTicker(w.opts.PollInterval)
	defer t.Stop()
	w.PollOnce(ctx)
	for {
		select {
		case <-ctx.Done():
			wg.Wait()
			return nil
		case <-t.C:
			w.PollOnce(ctx)
		case repo := <-w.kick:
			w.pollRepo(ctx, repo)
		}
	}
}

// PollOnce lists the open pull requests of every repository and queues
// the heads not done yet.
func (w *Watcher) PollOnce(ctx context.Context) {
	for _, repo := range w.opts.Repos {
		w.pollRepo(ctx, repo)
	}
	st := w.c.Stats
	w.log.Debug("github: polled", "requests", st.Requests.Load(), "not_modified", st.NotModified.Load(),
		"retries_5xx", st.Retries5xx.Load(), "rate_limit_waits", st.RateLimitWaits.Load())
}

func (w *Watcher) pollRepo(ctx context.Context, repo string) {
	prs, err := w.c.OpenPullRequests(ctx, repo)
	if err != nil {
		if ctx.Err() == nil {
			w.log.Warn("github: polling failed", "repo", repo, "err", err)
		}
		return
	}
	for _, pr := range prs {
		w.consider(ctx, pr)
	}
}

// consider queues pr unless its head is done (or failed) or it is queued.
func (w *Watcher) consider(ctx context.Context, pr PullRequest) {
	if pr.Draft && !w.opts.Drafts {
		return
	}
	row, err := w.st.GetPullRequest(ctx, pr.Repo, pr.Number, pr.HeadSHA)
	if err == nil && (row.State == store.PRDone || row.State == store.PRFailed) {
		return
	}
	key := fmt.Sprintf("%s#%d", pr.Repo, pr.Number)
	w.mu.Lock()
	if w.inFlight[key] {
		w.mu.Unlock()
		return
	}
	w.inFlight[key] = true
	w.mu.Unlock()
	select {
	case w.queue <- pr:
	case <-ctx.Done():
	}
}

// Notify asks for an immediate poll of repo (a webhook event arrived).
// Events for repositories that are not configured are ignored.
func (w *Watcher) Notify(repo string) bool {
	if !w.repos[repo] {
		return false
	}
	select {
	case w.kick <- repo:
	default: // a poll is pending anyway
	}
	return true
}

func (w *Watcher) worker(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case pr := <-w.queue:
			if err := w.process(ctx, pr); err != nil && ctx.Err() == nil {
				w.log.Warn("github: pull request not finished, retried at the next poll", "repo", pr.Repo, "pr", pr.Number, "err", err)
			}
			w.mu.Lock()
			delete(w.inFlight, fmt.Sprintf("%s#%d", pr.Repo, pr.Number))
			w.mu.Unlock()
		}
	}
}

// ProcessHead takes one pull-request head through check run, analysis,
// review and check completion now, with the steps and state Run's workers
// use (a head already done is left alone).
func (w *Watcher) ProcessHead(ctx context.Context, pr PullRequest) error {
	return w.process(ctx, pr)
}
