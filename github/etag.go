package github

import (
	"bytes"
	"container/list"
	"io"
	"net/http"
	"strconv"
	"sync"
)

// etagCache makes GET requests conditional: it remembers the ETag and body
// of each answer and sends If-None-Match next time. A 304 (which does not
// count against GitHub's rate limit) is turned back into the remembered
// 200, with the fresh rate-limit headers, so go-github sees an ordinary
// answer. Bodies over maxBody are not cached; the cache holds at most
// maxEntries answers (least recently used dropped first).
type etagCache struct {
	next       http.RoundTripper
	stats      *Stats
	maxEntries int
	maxBody    int64

	mu      sync.Mutex
	entries map[string]*list.Element
	lru     *list.List
}

type etagEntry struct {
	key    string
	etag   string
	header http.Header
	body   []byte
}

func newETagCache(next http.RoundTripper, stats *Stats) *etagCache {
	return &etagCache{next: next, stats: stats, maxEntries: 2048, maxBody: 4 << 20,
		entries: map[string]*list.Element{}, lru: list.New()}
}

// cacheKey separates answers by URL and the media type asked for (the
// same commit URL answers JSON or a patch).
func cacheKey(req *http.Request) string {
	return req.URL.String() + "\x00" + req.Header.Get("Accept")
}

// RoundTrip implements http.RoundTripper.
func (c *etagCache) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method != http.MethodGet || req.Header.Get("Range") != "" {
		return c.next.RoundTrip(req)
	}
	key := cacheKey(req)
	c.mu.Lock()
	var cached *etagEntry
	if el, ok := c.entries[key]; ok {
		cached = el.Value.(*etagEntry)
		c.lru.MoveToFront(el)
	}
	c.mu.Unlock()
	if cached != nil && req.Header.Get("If-None-Match") == "" {
		req = req.Clone(req.Context())
		req.Header.Set("If-None-Match", cached.etag)
	}
	resp, err := c.next.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	switch {
	case resp.StatusCode == http.StatusNotModified && cached != nil:
		c.stats.NotModified.Add(1)
		drain(resp)
		h := cached.header.Clone()
		for k, v := range resp.Header {
			if len(k) > 12 && k[:12] == "X-Ratelimit-" {
				h[k] = v
			}
		}
		h.Set("X-Autosel-Cache", "hit")
		return &http.Response{
			Status: "200 OK", StatusCode: http.StatusOK, Proto: resp.Proto, ProtoMajor: resp.ProtoMajor, ProtoMinor: resp.ProtoMinor,
			Header: h, Body: io.NopCloser(bytes.NewReader(cached.body)), ContentLength: int64(len(cached.body)), Request: resp.Request,
		}, nil
	case resp.StatusCode == http.StatusOK && resp.Header.Get("ETag") != "":
		if resp.ContentLength > c.maxBody {
			return resp, nil
		}
		body, err := io.ReadAll(io.LimitReader(resp.Body, c.maxBody+1))
		resp.Body.Close()
		if err != nil {
			return nil, err
		}
		resp.Body = io.NopCloser(bytes.NewReader(body))
		if int64(len(body)) <= c.maxBody {
			c.put(&etagEntry{key: key, etag: resp.Header.Get("ETag"), header: resp.Header.Clone(), body: body})
		}
		resp.Header.Set("Content-Length", strconv.Itoa(len(body)))
		resp.ContentLength = int64(len(body))
	}
	return resp, nil
}

func (c *etagCache) put(e *etagEntry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.entries[e.key]; ok {
		el.Value = e
		c.lru.MoveToFront(el)
		return
	}
	c.entries[e.key] = c.lru.PushFront(e)
	for c.lru.Len() > c.maxEntries {
		old := c.lru.Back()
		c.lru.Remove(old)
		delete(c.entries, old.Value.(*etagEntry).key)
	}
}
