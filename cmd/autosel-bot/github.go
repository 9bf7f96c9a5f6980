package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/autosel-bot/autosel-bot/config"
	"github.com/autosel-bot/autosel-bot/github"
	"github.com/autosel-bot/autosel-bot/internal/netaddr"
	"github.com/autosel-bot/autosel-bot/pipeline"
	"github.com/autosel-bot/autosel-bot/report"
	"github.com/autosel-bot/autosel-bot/series"
	"github.com/autosel-bot/autosel-bot/store"
)

// githubClient is the REST client of the github section (token from the
// environment or a file; never logged).
func githubClient(g config.GitHubConfig, log *slog.Logger) (*github.Client, error) {
	co := g.Client
	tok, err := co.ResolveToken()
	if err != nil {
		return nil, err
	}
	co.Token, co.Log = tok, log
	return github.NewClient(co)
}

// githubWatch returns the pull-request watcher of the github section as a
// function running until ctx ends (with the webhook receiver when
// configured), or nil when no repository is configured. Its metrics go to
// register.
func githubWatch(a *app, st *store.Store, p *pipeline.Pipeline, register func(...prometheus.Collector) error, log *slog.Logger) (func(ctx context.Context) error, error) {
	g := a.cfg.GitHub
	if err := g.Validate(); err != nil {
		return nil, err
	}
	if len(g.Repos) == 0 {
		return nil, nil
	}
	c, err := githubClient(g, log)
	if err != nil {
		return nil, err
	}
	analyze := func(ctx context.Context, s *series.Series) (*report.Report, error) { return p.Run(ctx, s) }
	wo := g.Options
	wo.Log, wo.FindingURL = log, findingURL(a)
	w, err := github.NewWatcher(c, st, analyze, wo)
	if err != nil {
		return nil, err
	}
	if err := register(w.Collector()); err != nil {
		return nil, fmt.Errorf("github metrics: %w", err)
	}
	var hook *http.Server
	var ln net.Listener
	if g.Webhook.Addr != "" {
		secret, err := g.Webhook.Secret()
		if err != nil {
			return nil, err
		}
		if ln, err = net.Listen("tcp", g.Webhook.Addr); err != nil {
			return nil, fmt.Errorf("github webhook listener: %w", err)
		}
		if !netaddr.IsLoopback(g.Webhook.Addr) {
			log.Warn("github webhook receiver on a non-loopback address (deliveries are signature-checked)", "addr", g.Webhook.Addr)
		}
		mux := http.NewServeMux()
		mux.Handle("POST "+g.Webhook.Path, github.WebhookHandler(w, secret))
		hook = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	}
	log.Info("github: watching pull requests", "repos", g.Repos, "poll", g.PollInterval, "webhook", g.Webhook.Addr != "")
	return func(ctx context.Context) error {
		if hook != nil {
			go hook.Serve(ln)
			defer hook.Close()
		}
		return w.Run(ctx)
	}, nil
}

// serveMetrics serves h on addr until ctx ends (GitHub-only watch: the
// daemon that usually serves /metrics and /healthz does not run).
func serveMetrics(ctx context.Context, addr string, h http.Handler, log *slog.Logger) error {
	if addr == "" {
		<-ctx.Done()
		return nil
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("metrics listener: %w", err)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	log.Info("serving /metrics and /healthz", "addr", ln.Addr().String())
	<-ctx.Done()
	return srv.Close()
}

// runAlongside runs the GitHub watcher (when there is one) beside main,
// both until ctx ends; the first error of either is returned.
func runAlongside(ctx context.Context, gh func(context.Context) error, main func(context.Context) error) error {
	if gh == nil {
		return main(ctx)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	var ghErr error
	wg.Add(1)
	go func() {
		defer wg.Done()
		if ghErr = gh(ctx); ghErr != nil {
			cancel()
		}
	}()
	err := main(ctx)
	cancel()
	wg.Wait()
	return errors.Join(err, ghErr)
}
