package registrations

import (
	"regexp"
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/index"
	"github.com/autosel-bot/autosel-bot/rules/lockctx/typing"
)

// A registration call may take its callbacks as an array, one per object
// it sets up: virtio_find_vqs(vdev, n, vqs, callbacks, names, desc) gives
// each virtqueue the callback at its index. The array is filled where the
// call is made: an initializer ("vq_callback_t *cbs[] = { rx_done,
// tx_done };", designated or not, in the function or at file scope),
// element stores ("callbacks[rxq2vq(i)] = skb_recv_done;"), or a single
// pointer passed by address ("vq_callback_t *cb = done; ... &cb").

// arrayCallbacks returns the functions stored in the array (or pointer)
// that argument arg of caller's registration call names: read first in
// caller's own lines, then at its file's scope, outside every function,
// when the function fills nothing (a static array). Only names the view
// defines as functions are kept.
func arrayCallbacks(ix *index.Index, caller *cscan.Func, arg string) []string {
	if ix == nil || caller == nil {
		return nil
	}
	name := CallbackName(arg)
	if name == "" || name == "NULL" {
		return nil
	}
	var own, file []string
	_ = ix.WithSource(caller.File, func(src []byte) {
		lines := strings.Split(string(src), "\n")
		from, to := caller.Start-1, caller.End
		if from < 0 || to > len(lines) || from >= to {
			return
		}
		own = arrayElems(strings.Join(lines[from:to], "\n"), name)
		if len(own) == 0 {
			file = arrayElems(fileScope(ix, caller.File, lines), name)
		}
	})
	if len(own) == 0 {
		own = file
	}
	var out []string
	seen := map[string]bool{}
	for _, fn := range own {
		if !seen[fn] && len(ix.Funcs(fn)) > 0 {
			seen[fn] = true
			out = append(out, fn)
		}
	}
	return out
}

// fileScope returns the lines of file outside its functions (lines is
// its source): where a static array of callbacks is initialised.
func fileScope(ix *index.Index, file string, lines []string) string {
	in := make([]bool, len(lines))
	if f := ix.File(file); f != nil {
		for _, fn := range f.Funcs {
			for l := max(fn.Start-1, 0); l < fn.End && l < len(lines); l++ {
				in[l] = true
			}
		}
	}
	var b strings.Builder
	for i, t := range lines {
		if !in[i] {
			b.WriteString(t)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// fnParams matches the rest of a function pointer's declarator after its
// name and subscripts, ")(args) " (optional).
const fnParams = `(?:\)\s*\((?:[^()]|\([^()]*\))*\)\s*)?`

// arrayStoreRes are, for an array or pointer name, its initializer
// ({...}), an element store and a plain store or initialised declaration.
func arrayStoreRes(name string) (init, elem, plain *regexp.Regexp) {
	q := regexp.QuoteMeta(name)
	index := `\[(?:[^\[\]]|\[[^\]]*\])*\]`
	// The declarator may be a plain function pointer's
	// ("static int (*handlers[])(struct dev *) = {").
	init = regexp.MustCompile(`\b` + q + `\s*(?:` + index + `\s*)+` + fnParams + `=\s*\{([^{}]*)\}`)
	elem = regexp.MustCompile(`\b` + q + `\s*` + index + `\s*=\s*([^;=][^;]*);`)
	plain = regexp.MustCompile(`(?m)\*\s*` + q + `\s*=\s*([^;=][^;]*);|(?:^|[;{}])\s*` + q + `\s*=\s*([^;=][^;]*);`)
	return init, elem, plain
}

// arrayElems returns the functions text stores into array or pointer
// name, as named identifiers (CallbackNames: casts, & and conditionals
// undone); whether they are functions is for the caller to tell.
func arrayElems(text, name string) []string {
	text = typing.StripComments(text)
	init, elem, plain := arrayStoreRes(name)
	var out []string
	for _, m := range init.FindAllStringSubmatch(text, -1) {
		elems, _ := cscan.SplitArgs(m[1]+")", len(m[1])+1)
		for _, e := range elems {
			if i := strings.Index(e, "="); i >= 0 && strings.HasPrefix(strings.TrimSpace(e), "[") {
				e = e[i+1:]
			}
			out = append(out, CallbackNames(e)...)
		}
	}
	for _, m := range elem.FindAllStringSubmatch(text, -1) {
		out = append(out, CallbackNames(m[1])...)
	}
	for _, m := range plain.FindAllStringSubmatch(text, -1) {
		v := m[1]
		if v == "" {
			v = m[2]
		}
		out = append(out, CallbackNames(v)...)
	}
	return out
}
