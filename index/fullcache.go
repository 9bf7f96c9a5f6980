package index

import (
	"container/list"

	"github.com/autosel-bot/autosel-bot/cscan"
)

// maxFullFiles and maxFullSource bound the files and functions re-parsed
// with bodies (Index.Full) kept in memory, by count and by the bytes of
// their sources (a file parsed with bodies takes about 5 times its
// source's size).
const (
	maxFullFiles  = 32768
	maxFullSource = 32 << 20
)

// lru holds values by key, least recently used first out once past the
// bounds its put is given. The zero value is empty; the Index's mutex
// guards it.
type lru[V any] struct {
	byKey map[string]*list.Element
	order list.List // of *lruEntry[V], most recently used at the front
	size  int64
}

// lruEntry is one cached value and its size.
type lruEntry[V any] struct {
	key  string
	v    V
	size int64
}

// get returns the value of key and marks it used.
func (c *lru[V]) get(key string) (V, bool) {
	e, ok := c.byKey[key]
	if !ok {
		var zero V
		return zero, false
	}
	c.order.MoveToFront(e)
	return e.Value.(*lruEntry[V]).v, true
}

// put caches v of size bytes under key, unless key is cached already, and
// returns the cached value; the least recently used go while the cache
// holds more than maxN values (0: no bound) or maxSize bytes (the newest
// always stays).
func (c *lru[V]) put(key string, v V, size int64, maxN int, maxSize int64) V {
	if g, ok := c.get(key); ok {
		return g
	}
	if c.byKey == nil {
		c.byKey = map[string]*list.Element{}
	}
	c.byKey[key] = c.order.PushFront(&lruEntry[V]{key: key, v: v, size: size})
	c.size += size
	for c.order.Len() > 1 && (maxN > 0 && c.order.Len() > maxN || c.size > maxSize) {
		old := c.order.Remove(c.order.Back()).(*lruEntry[V])
		delete(c.byKey, old.key)
		c.size -= old.size
	}
	return v
}

// fullCache holds files re-parsed with bodies (by path) and functions
// re-parsed alone (by path and position, fullfunc.go), up to maxFullFiles
// and maxFullSource.
type fullCache struct{ lru[*cscan.File] }

// put caches f, parsed from src bytes of source (see lru.put).
func (c *fullCache) put(path string, f *cscan.File, src int64) *cscan.File {
	return c.lru.put(path, f, src, maxFullFiles, maxFullSource)
}
