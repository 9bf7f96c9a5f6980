package github

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/autosel-bot/autosel-bot/internal/retry"
)

// Stats counts what the transport did; every field is safe to read while
// the client runs.
type Stats struct {
	// Requests is the number of requests sent to GitHub (retries included).
	Requests atomic.Int64
	// NotModified counts conditional requests answered 304 (served from
	// the ETag cache; they do not count against the rate limit).
	NotModified atomic.Int64
	// Retries5xx counts retries after a 5xx or a network error.
	Retries5xx atomic.Int64
	// RateLimitWaits counts waits for a primary or secondary rate limit.
	RateLimitWaits atomic.Int64
}

// transport authenticates requests to GitHub's hosts and retries what is
// safe to retry: 5xx answers and network errors of idempotent requests
// (GET, HEAD, PUT, DELETE; never POST or PATCH, whose retry could post
// twice: the publisher resolves those through its state), and every
// request refused by a primary (X-RateLimit-Remaining: 0) or secondary
// (Retry-After, "secondary rate limit") rate limit, after waiting as the
// answer asks. When an answer says the primary limit is exhausted, later
// requests wait for X-RateLimit-Reset before going out.
type transport struct {
	base  http.RoundTripper
	token string
	// hosts are the host:port pairs that receive the token; redirects to
	// other hosts (artifact storage) go out without it.
	hosts map[string]bool
	// retries bounds the retries of one request.
	retries int
	// backoff gives the 5xx and network-error retry delays (Backoff,
	// doubled per retry up to MaxBackoff).
	backoff retry.Policy
	// maxWait bounds one rate-limit wait; a longer one returns the
	// refusal to the caller.
	maxWait time.Duration
	log     *slog.Logger
	stats   *Stats
	// sleep waits d or until ctx is done (replaced in tests).
	sleep func(ctx context.Context, d time.Duration) error
	now   func() time.Time

	// writeGap spaces mutating requests (POST, PATCH, PUT, DELETE), as
	// GitHub asks to stay clear of its secondary rate limit.
	writeGap time.Duration

	mu          sync.Mutex
	pausedUntil time.Time
	lastWrite   time.Time
}

// idempotent reports whether a request may be repeated after a 5xx.
func idempotent(method string) bool {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodPut, http.MethodDelete, http.MethodOptions:
		return true
	}
	return false
}

// RoundTrip implements http.RoundTripper.
func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	for attempt := 0; ; attempt++ {
		if err := t.waitPause(ctx); err != nil {
			return nil, err
		}
		if err := t.spaceWrites(ctx, req.Method); err != nil {
			return nil, err
		}
		r, err := t.prepare(req, attempt)
		if err != nil {
			return nil, err
		}
		t.stats.Requests.Add(1)
		resp, err := t.base.RoundTrip(r)
		retryable := attempt < t.retries && (req.Body == nil || req.Body == http.NoBody || req.GetBody != nil)
		if err != nil {
			if ctx.Err() != nil || !retryable || !idempotent(req.Method) {
				return nil, err
			}
			t.stats.Retries5xx.Add(1)
			t.log.Warn("github: request failed, retrying", "method", req.Method, "path", req.URL.Path, "err", err)
			if err := t.sleep(ctx, t.delay(attempt, 0)); err != nil {
				return nil, err
			}
			continue
		}
		t.notePrimary(resp)
		wait, limited := t.rateLimited(resp, attempt)
		switch {
		case limited && retryable && wait <= t.maxWait:
			t.stats.RateLimitWaits.Add(1)
			t.log.Warn("github: rate limited, waiting", "method", req.Method, "path", req.URL.Path, "wait", wait)
			drain(resp)
			if err := t.sleep(ctx, wait); err != nil {
				return nil, err
			}
			continue
		case limited:
			return resp, nil
		case resp.StatusCode >= 500 && retryable && idempotent(req.Method):
			t.stats.Retries5xx.Add(1)
			t.log.Warn("github: server error, retrying", "method", req.Method, "path", req.URL.Path, "status", resp.StatusCode)
			d := t.delay(attempt, retryAfter(resp))
			drain(resp)
			if err := t.sleep(ctx, d); err != nil {
				return nil, err
			}
			continue
		}
		return resp, nil
	}
}

// prepare returns the request to send: a clone with the token (for
// GitHub's own hosts only) and, on a retry, a fresh body.
func (t *transport) prepare(req *http.Request, attempt int) (*http.Request, error) {
	r := req.Clone(req.Context())
	if attempt > 0 && req.GetBody != nil {
		b, err := req.GetBody()
		if err != nil {
			return nil, fmt.Errorf("github: replay request body: %w", err)
		}
		r.Body = b
	}
	if t.token != "" && t.hosts[req.URL.Host] {
		r.Header.Set("Authorization", "Bearer "+t.token)
	} else {
		r.Header.Del("Authorization")
	}
	return r, nil
}

// delay is the wait before retry attempt+1: Retry-After when the server
// sent one, else exponential backoff.
func (t *transport) delay(attempt int, after time.Duration) time.Duration {
	if after > 0 {
		return min(after, t.maxWait)
	}
	return t.backoff.Delay(attempt)
}

// rateLimited reports whether resp refuses the request for a rate limit,
// and how long to wait before trying again.
func (t *transport) rateLimited(resp *http.Response, attempt int) (time.Duration, bool) {
	if resp.StatusCode != http.StatusForbidden && resp.StatusCode != http.StatusTooManyRequests {
		return 0, false
	}
	if d := retryAfter(resp); d > 0 {
		return d, true // secondary limit with a stated wait
	}
	if resp.Header.Get("X-RateLimit-Remaining") == "0" {
		if reset, ok := resetTime(resp); ok {
			return max(reset.Sub(t.now()), 0) + time.Second, true
		}
		return time.Minute, true
	}
	if resp.StatusCode == http.StatusTooManyRequests || secondaryBody(resp) {
		// Secondary limit without Retry-After: GitHub asks for at least a
		// minute, growing with each refusal.
		return time.Minute << attempt, true
	}
	return 0, false
}

// notePrimary pauses later requests until the reset when the primary rate
// limit is used up, and lifts the pause when an answer shows requests left.
func (t *transport) notePrimary(resp *http.Response) {
	switch resp.Header.Get("X-RateLimit-Remaining") {
	case "":
		return
	case "0":
	default:
		// Requests are left (the limit was reset): no pause.
		t.mu.Lock()
		t.pausedUntil = time.Time{}
		t.mu.Unlock()
		return
	}
	reset, ok := resetTime(resp)
	if !ok {
		return
	}
	t.mu.Lock()
	if reset.After(t.pausedUntil) {
		t.pausedUntil = reset
	}
	t.mu.Unlock()
}

// waitPause waits for a primary rate-limit reset recorded by notePrimary.
// A wait longer than maxWait is not taken: the request goes out and
// GitHub's refusal reaches the caller.
func (t *transport) waitPause(ctx context.Context) error {
	t.mu.Lock()
	until := t.pausedUntil
	t.mu.Unlock()
	d := until.Sub(t.now())
	if d <= 0 || d > t.maxWait {
		return nil
	}
	t.stats.RateLimitWaits.Add(1)
	t.log.Warn("github: primary rate limit used up, waiting for the reset", "wait", d)
	return t.sleep(ctx, d)
}

// spaceWrites waits until writeGap has passed since the last mutating
// request (one at a time: the slot is taken before waiting).
func (t *transport) spaceWrites(ctx context.Context, method string) error {
	if t.writeGap <= 0 || method == http.MethodGet || method == http.MethodHead || method == http.MethodOptions {
		return nil
	}
	t.mu.Lock()
	now := t.now()
	at := t.lastWrite.Add(t.writeGap)
	if at.Before(now) {
		at = now
	}
	t.lastWrite = at
	t.mu.Unlock()
	return t.sleep(ctx, at.Sub(now))
}

// secondaryBody reports whether a 403's body names the secondary rate
// limit (or the older "abuse detection"). The body is kept readable.
func secondaryBody(resp *http.Response) bool {
	if resp.Body == nil {
		return false
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	resp.Body = io.NopCloser(strings.NewReader(string(b)))
	if err != nil {
		return false
	}
	s := strings.ToLower(string(b))
	return strings.Contains(s, "secondary rate limit") || strings.Contains(s, "abuse detection")
}

// retryAfter parses a Retry-After header in seconds (0 when absent).
func retryAfter(resp *http.Response) time.Duration {
	v := resp.Header.Get("Retry-After")
	if v == "" {
		return 0
	}
	if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && n >= 0 {
		return time.Duration(n) * time.Second
	}
	if at, err := http.ParseTime(v); err == nil {
		return max(time.Until(at), time.Second)
	}
	return 0
}

// resetTime parses X-RateLimit-Reset (Unix seconds).
func resetTime(resp *http.Response) (time.Time, bool) {
	n, err := strconv.ParseInt(resp.Header.Get("X-RateLimit-Reset"), 10, 64)
	if err != nil || n <= 0 {
		return time.Time{}, false
	}
	return time.Unix(n, 0), true
}

// drain reads and closes a response body so the connection is reused.
func drain(resp *http.Response) {
	if resp.Body != nil {
		io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
		resp.Body.Close()
	}
}
