package daemon

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/autosel-bot/autosel-bot/imapsrc"
)

// startWorkers starts the worker pool; the returned func closes the work
// queue and waits for the workers.
func (d *Daemon) startWorkers(ctx context.Context) func() {
	var wg sync.WaitGroup
	work := make(chan *job)
	d.work = work
	for i := 0; i < d.opts.Workers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			d.worker(ctx, work)
		}()
	}
	return func() {
		close(work)
		wg.Wait()
	}
}

// Run is the watch loop: it follows the mailboxes through w, schedules
// series, runs the workers, the command worker and the deliverer, and serves /metrics and
// /healthz on metricsAddr (if not empty), until ctx is cancelled.
func (d *Daemon) Run(ctx context.Context, w *imapsrc.Watcher, metricsAddr string) error {
	if err := d.Load(ctx); err != nil {
		return err
	}
	if metricsAddr != "" {
		ln, err := net.Listen("tcp", metricsAddr)
		if err != nil {
			return fmt.Errorf("metrics listener: %w", err)
		}
		srv := &http.Server{Handler: d.HTTPHandler(), ReadHeaderTimeout: 10 * time.Second}
		go srv.Serve(ln)
		defer srv.Close()
		d.log.Info("serving /metrics and /healthz", "addr", ln.Addr().String())
	}
	stopWorkers := d.startWorkers(ctx)
	var wg sync.WaitGroup
	wg.Add(4)
	go func() {
		defer wg.Done()
		if d.commands() {
			d.commandLoop(ctx)
		}
	}()
	go func() {
		defer wg.Done()
		d.dl.Run(ctx, d.kick)
	}()
	go func() {
		defer wg.Done()
		d.scheduler(ctx)
	}()
	go func() {
		defer wg.Done()
		w.Run(ctx)
	}()
	<-ctx.Done()
	wg.Wait()
	stopWorkers()
	return nil
}

// scheduler runs schedule when messages arrive (debounced) and
// periodically for series whose wait is over.
func (d *Daemon) scheduler(ctx context.Context) {
	tick := d.opts.SeriesWait / 4
	if tick > 30*time.Second {
		tick = 30 * time.Second
	}
	if tick < 50*time.Millisecond {
		tick = 50 * time.Millisecond
	}
	t := time.NewTicker(tick)
	defer t.Stop()
	first := true
	for {
		if !first {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			case <-d.trigger:
				// Let a burst of parts of one series arrive together.
				select {
				case <-ctx.Done():
					return
				case <-time.After(200 * time.Millisecond):
				}
			}
		}
		first = false
		if err := d.schedule(ctx, time.Now(), false); err != nil && ctx.Err() == nil {
			d.log.Error("schedule", "err", err)
		}
	}
}
