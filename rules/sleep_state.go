package rules

import (
	"github.com/autosel-bot/autosel-bot/report"
)

// held is one atomic context held at a program point.
type held struct {
	kind, key string
	// must is set when the context is held on every path reaching the
	// point; otherwise only on some.
	must bool
	// at is where the context was entered (the call in the analysed
	// function); via continues into callees when a function entered it
	// (lock_wqueue() -> spin_lock_bh()).
	at  report.Step
	via []report.Step
}

// ctxState is the set of atomic contexts held at a program point.
type ctxState struct {
	held []held
	// dead marks an unreachable point (after return, goto, break).
	dead bool
}

func (s ctxState) clone() ctxState {
	return ctxState{held: append([]held(nil), s.held...), dead: s.dead}
}

func (s ctxState) empty() bool { return len(s.held) == 0 }

// anyMust reports whether some context is held on every path.
func (s ctxState) anyMust() bool {
	for _, h := range s.held {
		if h.must {
			return true
		}
	}
	return false
}

func (s *ctxState) acquire(h held) {
	s.held = append(s.held, h)
}

// release leaves the context matching kind and key (by key first, else
// the most recent of the kind). It reports false when nothing matched:
// the function releases a context its caller entered.
func (s *ctxState) release(kind, key string) (held, bool) {
	idx := -1
	if key != "" {
		for i := len(s.held) - 1; i >= 0; i-- {
			if s.held[i].kind == kind && s.held[i].key == key {
				idx = i
				break
			}
		}
	}
	if idx < 0 {
		for i := len(s.held) - 1; i >= 0; i-- {
			if s.held[i].kind == kind {
				idx = i
				break
			}
		}
	}
	if idx < 0 {
		return held{}, false
	}
	h := s.held[idx]
	s.held = append(s.held[:idx:idx], s.held[idx+1:]...)
	return h, true
}

func sameHeld(a, b held) bool {
	return a.kind == b.kind && a.key == b.key
}

// mergeStates joins two control-flow paths: contexts held on both keep
// their must flag (and-ed), contexts held on one only become "some path".
func mergeStates(a, b ctxState) ctxState {
	if a.dead {
		return b.clone()
	}
	if b.dead {
		return a.clone()
	}
	out := ctxState{}
	used := make([]bool, len(b.held))
	for _, x := range a.held {
		found := false
		for j, y := range b.held {
			if !used[j] && sameHeld(x, y) {
				used[j] = true
				found = true
				x.must = x.must && y.must
				break
			}
		}
		if !found {
			x.must = false
		}
		out.held = append(out.held, x)
	}
	for j, y := range b.held {
		if !used[j] {
			y.must = false
			out.held = append(out.held, y)
		}
	}
	return out
}

var deadState = ctxState{dead: true}
