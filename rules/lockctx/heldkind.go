package lockctx

import (
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/rules/lockmodel"
)

// The kind of a lock a function asserts held.
//
// lockdep_assert_held(&d->lock) says every caller holds d->lock, but not
// whether it is a spinlock or a mutex. The file that asserts it takes the
// same lock somewhere, through the same struct member of an object of the
// same struct type (or the same global): the primitive it takes it with
// gives the kind. A member of one struct type is one lock, so a file
// cannot take it both as a spinlock and as a mutex; a file that takes it
// only with primitives the model does not keep (mutex_lock()) or not at
// all states nothing.

// heldKinds is a file's lock kinds by typed lock ("tag.member", or
// "=name" for a global), with the call that took each.
type heldKinds map[string]heldTake

// heldTake is how a file takes one lock: its kind ("" when two kinds
// disagree) and the call's text.
type heldTake struct {
	kind, call string
}

// heldKind returns the atomic kind of lock key, which fn asserts held,
// and the call of fn's file that takes it; "" when unknown.
func (r *Resolver) heldKind(fn *cscan.Func, key string) (kind, call string) {
	if r.ix == nil || r.typ == nil || key == "" {
		return "", ""
	}
	tk := r.typedLock(key, fn)
	if tk == "" {
		return "", ""
	}
	v := r.fileMemo("lockctx.heldkinds:"+fn.File, fn.File, func() any { return r.fileHeldKinds(fn.File) })
	kinds, _ := v.(heldKinds)
	t := kinds[tk]
	return t.kind, t.call
}

// fileHeldKinds returns the kinds with which the functions of file take
// their locks.
func (r *Resolver) fileHeldKinds(file string) heldKinds {
	f := r.ix.File(file)
	if f == nil {
		return nil
	}
	out := heldKinds{}
	for _, g := range f.Funcs {
		for _, c := range g.Calls {
			a := r.m.Classify(c)
			if (a.Op != lockmodel.Take && a.Op != lockmodel.TryTake) || a.Key == "" || !Kinds[a.Kind] {
				continue
			}
			tk := r.typedLock(a.Key, g)
			if tk == "" {
				continue
			}
			if old, ok := out[tk]; ok && old.kind != a.Kind {
				out[tk] = heldTake{}
				continue
			}
			if _, ok := out[tk]; !ok {
				out[tk] = heldTake{kind: a.Kind, call: CallText(c)}
			}
		}
	}
	return out
}

// typedLock returns lock key as fn sees it, typed: "tag.member" for a
// member of an object whose struct type fn declares, "=name" for a plain
// name fn does not declare itself (a global); "" otherwise.
func (r *Resolver) typedLock(key string, fn *cscan.Func) string {
	i := strings.LastIndex(key, "->")
	j := strings.LastIndex(key, ".")
	switch {
	case i < 0 && j < 0:
		if !identLike(key) || r.typ.ExprTag(key, fn) != "" {
			return ""
		}
		return "=" + key
	case i > j:
		if tag := r.typ.ExprTag(key[:i], fn); tag != "" {
			return tag + "." + key[i+2:]
		}
	default:
		if tag := r.typ.ExprTag(key[:j], fn); tag != "" {
			return tag + "." + key[j+1:]
		}
	}
	return ""
}

// identLike reports whether s is a plain C identifier.
func identLike(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		if c != '_' && (c < 'a' || c > 'z') && (c < 'A' || c > 'Z') && (i == 0 || c < '0' || c > '9') {
			return false
		}
	}
	return true
}
