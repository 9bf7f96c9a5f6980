package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/autosel-bot/autosel-bot/internal/netaddr"
	"github.com/autosel-bot/autosel-bot/store"
	"github.com/autosel-bot/autosel-bot/web"
)

const serveLong = `Serve the read-only web view over an existing state database.

The pages are the ones watch serves on its metrics address: the recent
series (and GitHub pull-request heads) with their verdicts, a page per
series (patches, findings, stable matrix, VM results with the console
excerpts) and a page per finding at finding/<id>, with its call chain
drawn as a graph and a wakeup race as a CPU 0 / CPU 1 timeline. The pages
have no JavaScript and load nothing from elsewhere.

The state database is watch.store (or --store); it must exist (watch or
replay writes it). The address is watch.metrics (or --addr), loopback by
default. web.base_url is where replies and reviews link to; put a reverse
proxy that serves this address there.`

// serveFlags are the serve command's flags.
type serveFlags struct {
	store     string
	addr      string
	logFormat string
}

// newServeCmd builds the "serve" command.
func newServeCmd(a *app) *cobra.Command {
	var f serveFlags
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the read-only web view (series, findings, call chains) over a state database",
		Long:  serveLong,
		Example: `  autosel-bot serve --store ~/.local/state/autosel-bot/state.db --addr 127.0.0.1:8080
  autosel-bot replay testdata/seeds/*.mbox && autosel-bot serve`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runServe(cmd, a, f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.store, "store", "", "SQLite state file (default from watch.store)")
	fl.StringVar(&f.addr, "addr", "", "address to serve on (default from watch.metrics)")
	fl.StringVar(&f.logFormat, "log-format", "text", "log format on stderr: text or json")
	return cmd
}

func runServe(cmd *cobra.Command, a *app, f serveFlags) error {
	if err := a.cfg.Web.Validate(); err != nil {
		return &exitError{2, err}
	}
	path := f.store
	if path == "" {
		path = a.cfg.Watch.StorePath()
	}
	if _, err := os.Stat(path); err != nil {
		return &exitError{2, fmt.Errorf("serve: no state database: %w (run watch or replay first, or give --store)", err)}
	}
	addr := f.addr
	if addr == "" {
		addr = a.cfg.Watch.Metrics
	}
	if addr == "" || addr == "off" {
		return &exitError{2, fmt.Errorf("serve: no address (watch.metrics is empty; give --addr)")}
	}
	log := botLogger(a, f.logFormat)
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	st, err := store.Open(ctx, path)
	if err != nil {
		return &exitError{2, err}
	}
	defer st.Close()
	h, err := web.New(st, log)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return &exitError{2, fmt.Errorf("serve: %w", err)}
	}
	if !netaddr.IsLoopback(addr) {
		log.Warn("the web view is served on a non-loopback address", "addr", addr)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	log.Info("serving the web view", "url", "http://"+ln.Addr().String()+"/", "store", path)
	select {
	case <-ctx.Done():
	case err := <-done:
		if !errors.Is(err, http.ErrServerClosed) {
			return fmt.Errorf("serve: %w", err)
		}
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return srv.Shutdown(sctx)
}
