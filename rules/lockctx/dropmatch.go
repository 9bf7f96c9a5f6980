package lockctx

import (
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/rules/lockmodel"
)

// Which of the caller's contexts a callee's release ends. A summary's
// Drop says that the function releases a context its caller entered
// (unlock_foo() doing spin_unlock(&foo->lock)). A keyless context (RCU,
// preemption, bottom halves, interrupts) is per CPU: the drop ends the
// caller's, whatever the chain. A lock is not: a release written in the
// callee itself may spell the caller's lock differently (its parameter
// for the caller's expression), so it ends the caller's most recent lock
// of the kind, as a lock primitive does. A release reached through more
// calls names a lock in the terms of a function further down, often one
// that function took through a helper the analysis could not pair
// (folio_memcg_lock()/folio_memcg_unlock() deep under a driver's command
// handler): it ends the caller's lock only when the names agree (the same
// expression, or the same member of the same field, o->move_lock and
// q->o->move_lock; a member named "lock" alone says little), or when the
// caller's lock has no name (two locks merged). Otherwise every caller of a
// function that reaches such a release would lose its own, unrelated
// lock, and a sleep after the call would be judged unlocked. So that a
// helper's helper releasing the caller's own lock still matches, a drop
// passed up through a call is renamed in the caller's terms when the
// callee names the lock through a parameter (dropsInCaller). A lock
// released further down whose name the analysis lost (xas_unlock_irq(xas),
// its lock call out of sight) ends a nameless lock of the caller; a
// caller holding only named locks of its kind keeps them, and the release
// stops there rather than travel up through every caller of a recursive
// component.

// ReleaseDrop applies to s drop d, a drop of the summary of the function
// a call reaches (its chain starts in that function); it reports whether
// the release stops at s: a context of s ended, or (a nameless lock
// released further down) a named lock of its kind absorbed it, held still
// (false: the release goes on to the caller's caller). A lock the names
// match is ended before one with no name.
func (s *State) ReleaseDrop(d Effect) bool {
	return s.releaseCallee(d.Kind, d.Key, dropWrittenIn(d))
}

// releaseCallee is ReleaseDrop for a drop of kind and key, written in the
// callee itself or further down.
func (s *State) releaseCallee(kind, key string, written bool) bool {
	if written || key == "" && !lockmodel.IsLock(kind) {
		_, ok := s.Release(kind, key)
		return ok
	}
	if key == "" {
		// A lock released further down whose name the analysis lost
		// (xas_unlock_irq(xas) in a function deep in a recursive
		// component) is not the caller's named lock: it ends only a lock
		// of the caller that has no name either. A caller holding named
		// locks of the kind still stops it, as before, so that it does not
		// travel up through every caller of a recursive component.
		named := false
		for i := len(s.Held) - 1; i >= 0; i-- {
			if h := s.Held[i]; h.Kind == kind {
				if h.Key == "" {
					s.Held = append(s.Held[:i:i], s.Held[i+1:]...)
					return true
				}
				named = true
			}
		}
		return named
	}
	name := lockName(key)
	for _, named := range []bool{true, false} {
		for i := len(s.Held) - 1; i >= 0; i-- {
			h := s.Held[i]
			if h.Kind != kind || named != (h.Key != "") || named && h.Key != key && lockName(h.Key) != name {
				continue
			}
			s.Held = append(s.Held[:i:i], s.Held[i+1:]...)
			return true
		}
	}
	return false
}

// dropWrittenIn reports whether d's release primitive is written in the
// function its chain starts in: the callee of the call that made it (for
// a call through an ops member, the implementation). A drop with no
// chain, or with the primitive alone, counts as written there.
func dropWrittenIn(d Effect) bool {
	n := len(d.Steps)
	return n <= 1 || d.Steps[n-1].Func == d.Steps[0].Func
}

// lockName returns the last two names of a lock expression, the member
// and what holds it ("scanned_queue.lock" for
// pmlmepriv->scanned_queue.lock, "power.lock" for dev->power.lock,
// "o.move_lock" for q->o->move_lock): enough to tell the locks named
// "lock" apart. A name of two parts is the whole expression (q->lock).
func lockName(key string) string {
	// The last two non-empty parts between "." and "->", found from the
	// end without splitting the whole expression: releaseCallee asks
	// this for every lock held at every drop it matches.
	var parts [2]string
	n, end := 0, len(key)
	for i := len(key); i >= 0 && n < 2; i-- {
		sep := 0
		switch {
		case i == 0:
			sep = -1
		case key[i-1] == '.':
			sep = 1
		case key[i-1] == '>' && i >= 2 && key[i-2] == '-':
			sep = 2
		}
		if sep == 0 {
			continue
		}
		if i < end {
			parts[n] = key[i:end]
			n++
		}
		if sep < 0 {
			break
		}
		end = i - sep
		i -= sep - 1
	}
	switch n {
	case 0:
		return ""
	case 1:
		return parts[0]
	}
	if s := len(key) - len(parts[0]) - len(parts[1]) - 1; s >= 0 && key[s:] == parts[1]+"."+parts[0] {
		return key[s:]
	}
	return parts[1] + "." + parts[0]
}

// dropsInCaller returns the drops ds of the function a call c from caller
// reaches, their lock expressions in the caller's terms: a lock the
// callee names through one of its parameters is named through the
// argument the call passes (q_unlock(struct q *queue) drops queue->lock;
// called as q_unlock(q), it drops q->lock). Only a plain variable passed
// renames: an expression would make the names grow round after round in
// a recursive component. Other expressions are kept.
func (r *Resolver) dropsInCaller(ds []Effect, c cscan.Call, caller *cscan.Func) []Effect {
	if len(ds) == 0 || strings.ContainsAny(c.Name, ">.") {
		return ds
	}
	var callee *cscan.Func
	out, copied := ds, false
	for i, d := range ds {
		root, rest := keyRoot(d.Key)
		if root == "" {
			continue
		}
		if callee == nil {
			defs := buildable(r.lookup(c.Name, caller.File), caller.File)
			if len(defs) == 0 {
				return out
			}
			callee = defs[0]
		}
		j := r.typ.ParamIndex(callee, root)
		if j < 0 || j >= len(c.Args) {
			continue
		}
		arg := plainIdent(c.Args[j])
		if arg == "" || arg == root || isUpperName(arg) || strings.HasPrefix(strings.TrimSpace(c.Args[j]), "&") {
			continue
		}
		key := arg + rest
		if !copied {
			out, copied = append([]Effect(nil), ds...), true
		}
		out[i].Key = key
	}
	return out
}

// keyRoot splits a lock expression at the end of its leading identifier
// ("queue", "->lock" for queue->lock); root is "" when the expression
// does not start with one followed by a member access.
func keyRoot(key string) (root, rest string) {
	i := 0
	for i < len(key) && (key[i] == '_' || key[i] >= 'a' && key[i] <= 'z' || key[i] >= 'A' && key[i] <= 'Z' || i > 0 && key[i] >= '0' && key[i] <= '9') {
		i++
	}
	if i == 0 || !strings.HasPrefix(key[i:], "->") && !strings.HasPrefix(key[i:], ".") {
		return "", ""
	}
	return key[:i], key[i:]
}
