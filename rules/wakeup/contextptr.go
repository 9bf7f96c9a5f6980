package wakeup

import (
	"regexp"
	"slices"
	"strings"
)

// A waker often reaches its queue through a pointer its waiter handed it.
// A synchronous wrapper around an asynchronous API stores the address of
// its own completion or queue in the request's context member before it
// submits (us->current_urb->context = &urb_done; bio->bi_private =
// &done;) and sleeps on it; the callback wakes what the member points to
// (complete(urb->context)). The waker's key names the member
// ("completion:urb.context"), the waiter's its own object: the member's
// waiters are those of the objects whose address the patched files store
// in it, directly or through a call that fills the object (the table's
// context_fills: usb_fill_bulk_urb(urb, ..., callback, &done)).

// contextFillRow is a call that stores its argument Arg in the untyped
// context member Member ("urb.context") of the object it fills.
type contextFillRow struct {
	Names  []string `yaml:"names"`
	Member string   `yaml:"member"`
	Arg    int      `yaml:"arg"`
}

// contextStoreRe matches a store of an object's address into member m:
// $1 the object.
func contextStoreRe(m string) *regexp.Regexp {
	return regexp.MustCompile(`(?:->|\.)\s*` + regexp.QuoteMeta(m) +
		`\s*=\s*&\s*([A-Za-z_]\w*(?:\s*(?:->|\.)\s*[A-Za-z_]\w*)*)\s*;`)
}

// contextAliases returns the keys of the objects whose address the files
// of the patch store in the member queue key q names, when that member is
// an untyped pointer (void *) of its struct: a context handed to a
// callback. None for any other key.
func (r *checker) contextAliases(q string) []string {
	kind, key := "", q
	if i := strings.IndexByte(q, ':'); i >= 0 && prefixedKind(q[:i]) {
		kind, key = q[:i+1], q[i+1:]
	}
	dot := strings.LastIndexByte(key, '.')
	if dot <= 0 || strings.ContainsAny(key, ":()[*") {
		return nil
	}
	tag, m := key[:dot], key[dot+1:]
	if strings.Contains(tag, ".") || r.typ == nil {
		return nil
	}
	if k, ok := r.ctxAliases[q]; ok {
		return k
	}
	var out []string
	re := contextStoreRe(m)
	for _, path := range r.patchedFiles() {
		if !r.memberIsPointer(tag, m, path) || !strings.Contains(r.typ.MemberDecl(tag, m, path), "void") {
			continue
		}
		for _, v := range r.fileViews(path, "") {
			if v.F == nil {
				continue
			}
			for _, c := range v.F.Calls {
				if row := r.p.contextFills[c.Name]; row != nil && row.Member == key && row.Arg < len(c.Args) && strings.HasPrefix(strings.TrimSpace(c.Args[row.Arg]), "&") {
					if a := kind + queueKey(c.Args[row.Arg], v.vt, v.Name); a != q && !slices.Contains(out, a) {
						out = append(out, a)
					}
				}
			}
			for _, l := range sortedLines(v) {
				code := codeOnly(v.lines[l])
				if !strings.Contains(code, m) {
					continue
				}
				for _, mm := range re.FindAllStringSubmatch(code, -1) {
					if a := kind + queueKey(mm[1], v.vt, v.Name); a != q && !slices.Contains(out, a) {
						out = append(out, a)
					}
				}
			}
		}
	}
	if r.ctxAliases == nil {
		r.ctxAliases = map[string][]string{}
	}
	r.ctxAliases[q] = out
	return out
}

// patchedFiles returns the files of the patch's functions, in order.
func (r *checker) patchedFiles() []string {
	var out []string
	for _, nw := range r.news {
		if nw != nil && !slices.Contains(out, nw.File) {
			out = append(out, nw.File)
		}
	}
	return out
}
