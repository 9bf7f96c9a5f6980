package sumstore

import "github.com/autosel-bot/autosel-bot/index"

// refSet is a set of tree functions by ref: a bit per function, by file.
// markDirty's closure can hold half of Linux's functions, which a map
// holds in tens of MB.
type refSet struct {
	files [][]uint64
	n     int
}

// add adds r and reports whether it was not in the set.
func (s *refSet) add(r index.Ref) bool {
	f, p := r.File(), r.Pos()
	if f >= len(s.files) {
		s.files = append(s.files, make([][]uint64, f+1-len(s.files))...)
	}
	w := p / 64
	if w >= len(s.files[f]) {
		s.files[f] = append(s.files[f], make([]uint64, w+1-len(s.files[f]))...)
	}
	bit := uint64(1) << (p % 64)
	if s.files[f][w]&bit != 0 {
		return false
	}
	s.files[f][w] |= bit
	s.n++
	return true
}

// has reports whether r is in the set.
func (s *refSet) has(r index.Ref) bool {
	f, p := r.File(), r.Pos()
	if f >= len(s.files) || p/64 >= len(s.files[f]) {
		return false
	}
	return s.files[f][p/64]&(1<<(p%64)) != 0
}

// len returns the number of refs in the set.
func (s *refSet) len() int { return s.n }
