package sumstore

import (
	"github.com/autosel-bot/autosel-bot/index"
)

// recordCache keeps the records decoded from a side file (sideSource), at
// most max bytes of them by recordCost (max <= 0: all). Past the bound a
// clock evicts one that was not asked for since the hand last passed it;
// an evicted record is decoded again from the side file when next asked
// for, so answers never change. A nil record (damaged or missing) is kept
// like any other. It is not safe for concurrent use: sideSource holds its
// mutex around every call.
type recordCache struct {
	max, size int64
	m         map[index.Ref]*recEntry
	// ring holds the cached refs in the clock's order; hand is the next
	// one to look at.
	ring []index.Ref
	hand int
	// evicted counts the records dropped to keep within max.
	evicted int64
}

// recEntry is one cached record.
type recEntry struct {
	rec  *record
	cost int64
	used bool
}

func newRecordCache(max int64) *recordCache {
	return &recordCache{max: max, m: map[index.Ref]*recEntry{}}
}

// get returns the cached record of ref.
func (c *recordCache) get(ref index.Ref) (*record, bool) {
	e, ok := c.m[ref]
	if !ok {
		return nil, false
	}
	e.used = true
	return e.rec, true
}

// put caches rec as ref's record (a record cached already stays), then
// evicts records until the cache is within its bound.
func (c *recordCache) put(ref index.Ref, rec *record) {
	if _, ok := c.m[ref]; ok {
		return
	}
	e := &recEntry{rec: rec, cost: recordCost(rec)}
	c.m[ref] = e
	c.ring = append(c.ring, ref)
	c.size += e.cost
	if c.max <= 0 {
		return
	}
	for c.size > c.max && len(c.ring) > 1 {
		if c.hand >= len(c.ring) {
			c.hand = 0
		}
		r := c.ring[c.hand]
		v := c.m[r]
		if v.used {
			v.used = false
			c.hand++
			continue
		}
		delete(c.m, r)
		c.size -= v.cost
		c.evicted++
		last := len(c.ring) - 1
		c.ring[c.hand] = c.ring[last]
		c.ring = c.ring[:last]
	}
}

// len returns the number of records cached.
func (c *recordCache) len() int { return len(c.m) }

// recordCost estimates the memory a cached record holds: its deps and
// member names (decoded by Prepare only), its encoded reverse deps and
// summary (which point into the side file's page), and the cache's own
// bookkeeping.
func recordCost(rec *record) int64 {
	const entry = 128 // map slot, entry, ring slot, record header
	if rec == nil {
		return entry
	}
	n := int64(entry + 8*len(rec.deps) + len(rec.rest))
	for _, m := range rec.members {
		n += int64(16 + len(m))
	}
	return n
}
