package wakeup

import (
	"strings"

	"github.com/autosel-bot/autosel-bot/rules/lockctx/typing"
)

// Queue identity from struct types.
//
// A queue key names a member path from the struct type of the variable
// that reaches it ("iio_dev_opaque.event_interface.wait"), but the queue
// is a member of the innermost struct the path goes through: a waiter
// that holds that struct directly ("struct iio_event_interface *ev_int",
// key "iio_event_interface.wait") sleeps on the same queue. canonKey
// follows the member chain through the struct definitions visible from
// the site's file (typing.StructDef) and keys the queue by the last
// struct reached and the members after it, so both sides of a protocol
// meet on one key whatever variable each reaches the object through.

// canonKey returns the key of q re-rooted at the innermost struct its
// member path reaches through struct-typed members (embedded or pointed
// to), seen from file; q itself when nothing can be followed (no tree,
// an untyped root, a global, a call or a local pointer).
func (r *checker) canonKey(q, file string) string {
	if r.typ == nil || q == "" {
		return q
	}
	prefix, plain := "", q
	for _, p := range []string{"var:", "completion:", "bit:"} {
		if strings.HasPrefix(plain, p) {
			prefix, plain = p, strings.TrimPrefix(plain, p)
			break
		}
	}
	if strings.HasPrefix(plain, "*.") || strings.HasPrefix(plain, "local:") || strings.Contains(plain, "(") {
		return q
	}
	parts := strings.Split(plain, ".")
	if len(parts) < 3 || !identRe.MatchString(parts[0]) {
		return q
	}
	memo := file + "|" + plain
	if c, ok := r.canon[memo]; ok {
		return prefix + c
	}
	tag, i := parts[0], 1
	for ; i < len(parts)-1; i++ {
		ms, def := r.typ.StructDef(tag, file)
		next := ms[strings.TrimSuffix(parts[i], "[]")]
		if def == "" || next == "" {
			break
		}
		tag = next
	}
	c := plain
	if i > 1 {
		c = tag + "." + strings.Join(parts[i:], ".")
	}
	r.canon[memo] = c
	return prefix + c
}

// canonSites re-keys f's sites by canonKey.
func (r *checker) canonSites(f *wfunc) {
	if f == nil || r.typ == nil {
		return
	}
	for _, s := range f.Sites {
		s.Q = r.canonKey(s.Q, f.File)
	}
}

// newTyper returns the struct typer of the post-patch view, nil in
// patch-only mode.
func newTyper(r *checker) *typing.Typer {
	if r.pass.Index == nil {
		return nil
	}
	return typing.New(r.pass.Index, nil)
}
