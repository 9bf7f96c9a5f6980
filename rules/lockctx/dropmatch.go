package lockctx

import (
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
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
// callee names the lock through a parameter (dropsInCaller).

// ReleaseDrop applies drop d, made by a call to callee, to s; it reports
// whether a context of s ended (false: the release goes on to the
// caller's caller).
func (s *State) ReleaseDrop(d Effect, callee string) bool {
	if d.Key == "" || d.Steps == nil || dropWrittenIn(d, callee) {
		_, ok := s.Release(d.Kind, d.Key)
		return ok
	}
	name := lockName(d.Key)
	for i := len(s.Held) - 1; i >= 0; i-- {
		h := s.Held[i]
		if h.Kind == d.Kind && (h.Key == "" || h.Key == d.Key || lockName(h.Key) == name) {
			s.Held = append(s.Held[:i:i], s.Held[i+1:]...)
			return true
		}
	}
	return false
}

// dropWrittenIn reports whether d's release primitive is written in
// callee itself (the last step of its chain is in callee).
func dropWrittenIn(d Effect, callee string) bool {
	return len(d.Steps) > 0 && d.Steps[len(d.Steps)-1].Func == callee
}

// lockName returns the last two names of a lock expression, the member
// and what holds it ("scanned_queue.lock" for
// pmlmepriv->scanned_queue.lock, "power.lock" for dev->power.lock,
// "o.move_lock" for q->o->move_lock): enough to tell the locks named
// "lock" apart, not the variable a function reaches the lock through.
func lockName(key string) string {
	parts := strings.FieldsFunc(strings.ReplaceAll(key, "->", "."), func(r rune) bool { return r == '.' })
	if len(parts) > 2 {
		parts = parts[len(parts)-2:]
	}
	return strings.Join(parts, ".")
}

// dropsInCaller returns the drops ds of the function a call c from caller
// reaches, their lock expressions in the caller's terms: a lock the
// callee names through one of its parameters is named through the
// argument the call passes (q_unlock(struct q *queue) drops queue->lock;
// called as q_unlock(q), it drops q->lock). Only a plain variable passed
// renames: an expression would make the names grow round after round in
// a recursive component. Other expressions are kept.
func (r *Resolver) dropsInCaller(ds []Effect, c cscan.Call, caller *cscan.Func) []Effect {
	var callee *cscan.Func
	out, copied := ds, false
	for i, d := range ds {
		root, rest := keyRoot(d.Key)
		if root == "" || strings.ContainsAny(c.Name, ">.") {
			continue
		}
		if callee == nil {
			defs := r.lookup(c.Name, caller.File)
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
		if arg == "" || arg == root || strings.HasPrefix(strings.TrimSpace(c.Args[j]), "&") {
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
