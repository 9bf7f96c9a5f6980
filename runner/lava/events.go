package lava

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/autosel-bot/autosel-bot/internal/retry"
)

// events follows LAVA's event stream (lava-publisher) and wakes the jobs'
// followers when an event concerns them: a job event wakes that job's
// follower, a device or worker event every follower (a worker going
// offline). Polling stays the source of truth; events only cut the wait.
type events struct {
	addr string
	log  *slog.Logger
	// received counts the events read.
	received atomic.Int64

	mu   sync.Mutex
	jobs map[int64]chan struct{}
}

// newEvents returns the stream of the publisher at u (tcp://host:port).
func newEvents(u string, log *slog.Logger) (*events, error) {
	p, err := url.Parse(u)
	if err != nil || p.Scheme != "tcp" || p.Host == "" {
		return nil, fmt.Errorf("lava: event stream %q: want tcp://host:port", u)
	}
	return &events{addr: p.Host, log: log, jobs: map[int64]chan struct{}{}}, nil
}

// watch returns a channel that receives when job id has an event, and a
// function to stop watching.
func (e *events) watch(id int64) (<-chan struct{}, func()) {
	ch := make(chan struct{}, 1)
	e.mu.Lock()
	e.jobs[id] = ch
	e.mu.Unlock()
	return ch, func() {
		e.mu.Lock()
		delete(e.jobs, id)
		e.mu.Unlock()
	}
}

func (e *events) wake(id int64, all bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for j, ch := range e.jobs {
		if all || j == id {
			select {
			case ch <- struct{}{}:
			default:
			}
		}
	}
}

// reconnect is the policy of the event stream's reconnect delays.
func reconnect() retry.Policy {
	return retry.Policy{Min: time.Second, Max: time.Minute, Jitter: 0.2}
}

// run reads the stream until ctx ends, reconnecting with backoff.
func (e *events) run(ctx context.Context) {
	backoff := reconnect().New()
	for ctx.Err() == nil {
		s, err := dialSub(ctx, e.addr, "")
		if err != nil {
			e.log.Debug("lava: event stream unavailable", "addr", e.addr, "err", err)
			if backoff.Wait(ctx) != nil {
				return
			}
			continue
		}
		backoff.Reset()
		stop := context.AfterFunc(ctx, func() { s.Close() })
		for {
			msg, err := s.recv()
			if err != nil {
				break
			}
			e.handle(msg)
		}
		stop()
		s.Close()
	}
}

// handle dispatches one message: [topic, uuid, datetime, username, data].
func (e *events) handle(msg [][]byte) {
	if len(msg) != 5 {
		return
	}
	e.received.Add(1)
	topic := string(msg[0])
	switch {
	case strings.HasSuffix(topic, ".testjob"):
		var d struct {
			Job json.Number `json:"job"`
		}
		if json.Unmarshal(msg[4], &d) != nil {
			return
		}
		id, err := d.Job.Int64()
		if err != nil {
			return
		}
		e.wake(id, false)
	case strings.HasSuffix(topic, ".device"), strings.HasSuffix(topic, ".worker"):
		e.wake(0, true)
	}
}
