package ctype

import (
	"github.com/autosel-bot/autosel-bot/cscan"
)

// WordSet is the set of identifiers a source text spells, held as 32-bit
// hashes in an open-addressing table: building it allocates no string per
// identifier. Has may report a name the text lacks when two hashes collide
// (about one chance in 10^6 per query for a large file), never the other
// way round, so it serves as a filter before an exact look.
type WordSet struct {
	slots []uint32 // 0 is empty; a hash of 0 is stored as 1
}

// Words returns the identifiers src spells.
func Words(src []byte) WordSet {
	w := WordSet{slots: make([]uint32, 256)}
	n := 0
	for i := 0; i < len(src); {
		if !cscan.IsIdentStart(src[i]) {
			i++
			continue
		}
		// The word's hash (wordHash) is computed as it is scanned.
		h := uint64(fnvOffset)
		j := i
		for ; j < len(src) && cscan.IsIdentChar(src[j]); j++ {
			h = (h ^ uint64(src[j])) * fnvPrime
		}
		if i == 0 || !cscan.IsIdentChar(src[i-1]) {
			if w.add(fold(h)) {
				if n++; 2*n > len(w.slots) {
					w.grow()
				}
			}
		}
		i = j
	}
	return w
}

// add inserts hash h; it reports whether h was new.
func (w WordSet) add(h uint32) bool {
	mask := uint32(len(w.slots) - 1)
	for k := h & mask; ; k = (k + 1) & mask {
		switch w.slots[k] {
		case h:
			return false
		case 0:
			w.slots[k] = h
			return true
		}
	}
}

// grow doubles the table.
func (w *WordSet) grow() {
	old := w.slots
	w.slots = make([]uint32, 2*len(old))
	for _, h := range old {
		if h != 0 {
			w.add(h)
		}
	}
}

// Read reports whether w holds a text's words (the zero WordSet does not).
func (w WordSet) Read() bool { return w.slots != nil }

// Has reports whether the text spells name (see WordSet).
func (w WordSet) Has(name string) bool {
	n := uint32(len(w.slots))
	if n == 0 {
		return false
	}
	h := wordHash([]byte(name))
	for k := h & (n - 1); ; k = (k + 1) & (n - 1) {
		switch w.slots[k] {
		case h:
			return true
		case 0:
			return false
		}
	}
}

// FNV-1a's 64-bit offset basis and prime.
const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

// wordHash is FNV-1a, 64 bits, folded to 32 (fold).
func wordHash(b []byte) uint32 {
	h := uint64(fnvOffset)
	for _, c := range b {
		h ^= uint64(c)
		h *= fnvPrime
	}
	return fold(h)
}

// fold folds a 64-bit hash to 32 bits, never 0 (the empty slot).
func fold(h uint64) uint32 {
	if f := uint32(h ^ h>>32); f != 0 {
		return f
	}
	return 1
}
