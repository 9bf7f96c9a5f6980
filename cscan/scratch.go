package cscan

import "sync"

// scratch is the working memory of one scan: the token slice (about three
// bytes per source byte, the scanner's largest allocation), the bracket
// pairs, and the slices the parser gathers a function's calls and returns
// and a span's text in. Indexing a tree scans tens of thousands of files;
// reusing this memory instead of allocating it per file saves the
// allocation, the zeroing and the garbage collection of it.
type scratch struct {
	toks    []token
	pair    []int32
	stack   []int32
	calls   []Call
	returns []Return
	buf     []byte
}

// scratchPool recycles scratch memory between scans, across goroutines.
// Nothing in it is observable: each scan resets the slices it takes and
// copies out whatever it returns.
var scratchPool = sync.Pool{New: func() any { return new(scratch) }}

// maxPooledTokens bounds the token slice kept for the next scan (16 MB);
// the few larger files allocate their own.
const maxPooledTokens = 1 << 20

func getScratch() *scratch {
	return scratchPool.Get().(*scratch)
}

// putScratch returns sc to the pool, dropping oversized slices and the
// references the gathering slices still hold (so that they do not keep
// the last file's strings alive).
func putScratch(sc *scratch) {
	if cap(sc.toks) > maxPooledTokens {
		sc.toks, sc.pair = nil, nil
	}
	clear(sc.calls[:cap(sc.calls)])
	clear(sc.returns[:cap(sc.returns)])
	sc.calls, sc.returns = sc.calls[:0], sc.returns[:0]
	scratchPool.Put(sc)
}
