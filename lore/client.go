package lore

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// DefaultURL is the inbox a bare Message-ID is looked up in.
const DefaultURL = "https://lore.kernel.org/all/"

// DefaultMaxBytes bounds a decompressed thread.
const DefaultMaxBytes = 64 << 20

// ErrNotFound is wrapped by the error for a thread the server does not have.
var ErrNotFound = errors.New("thread not found")

// Client downloads threads from a public-inbox server.
type Client struct {
	// BaseURL is the inbox used for bare Message-IDs (DefaultURL when
	// empty), e.g. "https://lore.kernel.org/all/" or
	// "http://127.0.0.1:8080/test-kernel/".
	BaseURL string
	// HTTP is the client used (http.DefaultClient when nil); either way
	// redirects are followed only within the host asked (sameHostClient).
	HTTP *http.Client
	// Timeout bounds one download (none when 0; ctx still applies).
	Timeout time.Duration
	// MaxBytes bounds the decompressed thread (DefaultMaxBytes when 0).
	MaxBytes int64
	// UserAgent is sent with each request.
	UserAgent string
}

// ThreadURL returns the t.mbox.gz URL of the thread of r.
func (c *Client) ThreadURL(r Ref) string {
	base := r.Base
	if base == "" {
		base = c.BaseURL
	}
	if base == "" {
		base = DefaultURL
	}
	if !strings.HasSuffix(base, "/") {
		base += "/"
	}
	return base + url.PathEscape(r.MessageID) + "/t.mbox.gz"
}

// Thread downloads the whole thread of r as an mbox (decompressed).
func (c *Client) Thread(ctx context.Context, r Ref) ([]byte, error) {
	if c.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.Timeout)
		defer cancel()
	}
	u := c.ThreadURL(r)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, fmt.Errorf("lore: %w", err)
	}
	ua := c.UserAgent
	if ua == "" {
		ua = "autosel-bot"
	}
	req.Header.Set("User-Agent", ua)
	hc := sameHostClient(c.HTTP, req.URL.Host)
	resp, err := hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("lore: fetching <%s>: %w", r.MessageID, err)
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusNotFound || resp.StatusCode == http.StatusGone:
		return nil, fmt.Errorf("lore: <%s>: %w at %s (HTTP %d)", r.MessageID, ErrNotFound, u, resp.StatusCode)
	case resp.StatusCode != http.StatusOK:
		// The status code only: the reason phrase is the server's text.
		return nil, fmt.Errorf("lore: <%s>: %s: HTTP %d", r.MessageID, u, resp.StatusCode)
	}
	max := c.MaxBytes
	if max <= 0 {
		max = DefaultMaxBytes
	}
	raw := &io.LimitedReader{R: resp.Body, N: max + 1}
	br := bufio.NewReader(raw)
	var body io.Reader = br
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("lore: <%s>: %s: %w", r.MessageID, u, err)
		}
		defer zr.Close()
		body = zr
	}
	data, err := io.ReadAll(io.LimitReader(body, max+1))
	if int64(len(data)) > max || raw.N <= 0 {
		return nil, fmt.Errorf("lore: <%s>: thread at %s is over %d bytes", r.MessageID, u, max)
	}
	if err != nil {
		return nil, fmt.Errorf("lore: <%s>: reading %s: %w", r.MessageID, u, err)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, fmt.Errorf("lore: <%s>: %w: %s is empty", r.MessageID, ErrNotFound, u)
	}
	return data, nil
}

// errRedirect refuses a redirect off the host asked.
var errRedirect = errors.New("redirect to another host refused")

// sameHostClient returns a copy of hc (http.DefaultClient when nil)
// following at most 5 redirects, all within host: a thread URL is never
// turned into a request to a host the user did not name.
func sameHostClient(hc *http.Client, host string) *http.Client {
	if hc == nil {
		hc = http.DefaultClient
	}
	c := *hc
	c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if len(via) >= 5 {
			return errors.New("too many redirects")
		}
		if !strings.EqualFold(req.URL.Host, host) || via[0].URL.Scheme == "https" && req.URL.Scheme != "https" {
			return fmt.Errorf("%w: %s", errRedirect, req.URL.Host)
		}
		return nil
	}
	return &c
}
