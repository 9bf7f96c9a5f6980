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

// fullCache holds files re-parsed with bodies (by path) and functions
// re-parsed alone (by path and position, fullfunc.go), least recently used
// first out once past maxFullFiles or maxFullSource. The zero value is
// empty; the Index's mutex guards it.
type fullCache struct {
	byPath map[string]*list.Element
	lru    list.List // of *fullEntry, most recently used at the front
	src    int64
}

// fullEntry is one cached file and the size of its source.
type fullEntry struct {
	path string
	f    *cscan.File
	src  int64
}

// get returns the cached parse of path and marks it used.
func (c *fullCache) get(path string) (*cscan.File, bool) {
	e, ok := c.byPath[path]
	if !ok {
		return nil, false
	}
	c.lru.MoveToFront(e)
	return e.Value.(*fullEntry).f, true
}

// put caches f, parsed from src bytes of source, unless path is cached
// already, and returns the cached parse; the least recently used files
// go while the cache is past its bounds (the newest always stays).
func (c *fullCache) put(path string, f *cscan.File, src int64) *cscan.File {
	if g, ok := c.get(path); ok {
		return g
	}
	if c.byPath == nil {
		c.byPath = map[string]*list.Element{}
	}
	c.byPath[path] = c.lru.PushFront(&fullEntry{path: path, f: f, src: src})
	c.src += src
	for c.lru.Len() > 1 && (c.lru.Len() > maxFullFiles || c.src > maxFullSource) {
		old := c.lru.Remove(c.lru.Back()).(*fullEntry)
		delete(c.byPath, old.path)
		c.src -= old.src
	}
	return f
}
