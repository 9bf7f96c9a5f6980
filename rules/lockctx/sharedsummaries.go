package lockctx

import (
	"sync"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/index"
)

// sharedSummaries are the summaries of tree functions that depend on no
// function of a patch: the same in every view of the tree, computed once
// per model and tree and shared by the resolvers of every patch.
type sharedSummaries struct {
	mu sync.Mutex
	m  map[*cscan.Func]*Summary
}

// sharedFor returns the shared summaries of model m over ix's tree (nil
// without a tree).
func sharedFor(m *Model, ix *index.Index) *sharedSummaries {
	if ix == nil {
		return nil
	}
	v := ix.Underlying().Memo("lockctx.summaries."+m.id, func() any {
		return &sharedSummaries{m: map[*cscan.Func]*Summary{}}
	})
	return v.(*sharedSummaries)
}

func (s *sharedSummaries) get(fn *cscan.Func) *Summary {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.m[fn]
}

func (s *sharedSummaries) put(fn *cscan.Func, sum *Summary) {
	if s == nil {
		return
	}
	s.mu.Lock()
	s.m[fn] = sum
	s.mu.Unlock()
}

// source reports whether fn's summary depends on the patch by itself: a
// patch's version of a function, a function of a file the patch changes,
// or of an MFD child of a parent it changes (mfdchildren.go).
func (r *Resolver) source(fn *cscan.Func) bool {
	for _, f := range r.patch[fn.Name] {
		if f == fn {
			return true
		}
	}
	return r.ix == nil || r.ix.Overlaid(fn.File) || r.changedChildren[fn.File]
}

// taint marks the summary being computed as depending on the patch.
func (r *Resolver) taint() {
	if n := len(r.frameTaint); n > 0 {
		r.frameTaint[n-1] = true
	}
}
