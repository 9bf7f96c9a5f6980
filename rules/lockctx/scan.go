package lockctx

import (
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
)

// Hand-written scanners for the two patterns the struct typing runs over
// whole files (every header a caller's file includes); the regular
// expressions they replace cost a third of a one-shot check --tree. Each
// finds exactly what its pattern in the comment finds.

// isSpace is RE2's \s: [\t\n\f\r ].
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r'
}

// isWord is RE2's \w: [0-9A-Za-z_].
func isWord(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}

// structOpenings finds `\bstruct\s+(\w+)\s*\{` in text, left to right and
// without overlap: for each, the tag's start and end and the offset just
// after the brace.
func structOpenings(text string) [][3]int {
	var out [][3]int
	for pos := 0; ; {
		i := strings.Index(text[pos:], "struct")
		if i < 0 {
			return out
		}
		i += pos
		pos = i + 1
		if i > 0 && isWord(text[i-1]) {
			continue
		}
		j := i + len("struct")
		if j >= len(text) || !isSpace(text[j]) {
			continue
		}
		for j < len(text) && isSpace(text[j]) {
			j++
		}
		tagStart := j
		for j < len(text) && isWord(text[j]) {
			j++
		}
		if j == tagStart {
			continue
		}
		tagEnd := j
		for j < len(text) && isSpace(text[j]) {
			j++
		}
		if j >= len(text) || text[j] != '{' {
			continue
		}
		out = append(out, [3]int{tagStart, tagEnd, j + 1})
		pos = j + 1
	}
}

// includeDirectives finds `(?m)^\s*#\s*include\s*([<"])([^>"]+)[>"]` in
// src: for each, the opening delimiter ('<' or '"') and the name.
func includeDirectives(src string) (delims []byte, names []string) {
	for pos := 0; ; {
		i := strings.IndexByte(src[pos:], '#')
		if i < 0 {
			return delims, names
		}
		i += pos
		pos = i + 1
		// Only white space between the line's start and the '#'.
		k := i - 1
		for k >= 0 && src[k] != '\n' && isSpace(src[k]) {
			k--
		}
		if k >= 0 && src[k] != '\n' {
			continue
		}
		j := i + 1
		for j < len(src) && isSpace(src[j]) {
			j++
		}
		if !strings.HasPrefix(src[j:], "include") {
			continue
		}
		j += len("include")
		for j < len(src) && isSpace(src[j]) {
			j++
		}
		if j >= len(src) || (src[j] != '<' && src[j] != '"') {
			continue
		}
		delim := src[j]
		j++
		start := j
		for j < len(src) && src[j] != '>' && src[j] != '"' {
			j++
		}
		if j == start || j >= len(src) {
			continue
		}
		delims = append(delims, delim)
		names = append(names, src[start:j])
		pos = j + 1
	}
}

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
