package wakeup

import (
	"regexp"
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
)

// Deferred wake-ups: a call that queues an irq_work, work item, tasklet
// or timer whose handler wakes a queue is a wake-up of that queue, made
// later (ring_buffer_wake_waiters() queueing the irq_work whose
// rb_wake_up_waiters() wakes the readers). The handler is the one an init
// call or declaration of the queueing call's file hands for the same
// member (init_irq_work(&cpu_buffer->irq_work.work, rb_wake_up_waiters)).
// Such a wake-up is derived: removing the call removes the wake-up, but it
// does not cover another path (it runs later, on another CPU).

// maxHandlerLines bounds the size of a handler whose wake-ups count.
const maxHandlerLines = 80

// deferHandler is one handler an init call of a file gives an item.
type deferHandler struct {
	member, handler string
}

// deferredWake returns the wake-up call c of a function in file makes
// through a deferred item, nil if c queues no item or its handler wakes
// no queue unconditionally (memoised per file and member).
func (r *checker) deferredWake(c cscan.Call, file string) *wrapperWake {
	row := r.p.deferQueue[c.Name]
	if row == nil || r.tree == nil || row.Item >= len(c.Args) {
		return nil
	}
	member := itemMember(c.Args[row.Item])
	if member == "" {
		return nil
	}
	if r.wrappers == nil {
		r.wrappers = map[string]*wrapperWake{}
	}
	key := "defer:" + file + ":" + member
	if w, ok := r.wrappers[key]; ok {
		return w
	}
	r.wrappers[key] = nil
	for _, h := range r.fileHandlers(file) {
		if h.member != member {
			continue
		}
		fns := cscan.PickDefs(r.pass.Index.Funcs(h.handler), file)
		if len(fns) == 0 || fns[0].End-fns[0].Start > maxHandlerLines {
			continue
		}
		if w := r.handlerWake(r.tree.view(fns[0])); w != nil {
			r.wrappers[key] = w
			return w
		}
	}
	return nil
}

// handlerWake returns the wake-up a handler v makes on every run: a
// wake-up of a queue with one key wherever it is named, under no test but
// one for sleepers, or one through a helper it calls that way.
func (r *checker) handlerWake(v *wfunc) *wrapperWake {
	for _, s := range v.sitesOn(siteWake, "") {
		ok, lockless := r.sleeperGuardsOnly(s.Call.Guards)
		if ok && globalKey(s.Q) {
			return &wrapperWake{param: -1, inner: s, gated: lockless, derived: true}
		}
	}
	if w := r.calleeWake(v); w != nil {
		return &wrapperWake{param: -1, inner: w.inner, gated: w.gated, derived: true}
	}
	return nil
}

// itemMember returns the last name of an item argument ("work" for
// &rbwork->work, "foo_work" for &foo_work), "" if it has none.
func itemMember(arg string) string {
	ws := identWords(stripAddr(arg))
	if len(ws) == 0 {
		return ""
	}
	return ws[len(ws)-1]
}

// initCallRe finds a call or declaration macro by name and its opening
// parenthesis.
var initCallRe = regexp.MustCompile(`\b([A-Za-z_]\w*)\s*\(`)

// fileHandlers returns the items the init calls and declarations of tree
// file rel give a handler (memoised per file).
func (r *checker) fileHandlers(rel string) []deferHandler {
	if hs, ok := r.handlers[rel]; ok {
		return hs
	}
	if r.handlers == nil {
		r.handlers = map[string][]deferHandler{}
	}
	var out []deferHandler
	lines := r.tree.file(rel).lines
	for i, l := range lines.All() {
		if !strings.Contains(l, "(") {
			continue
		}
		for _, m := range initCallRe.FindAllStringSubmatchIndex(l, -1) {
			row := r.p.deferInit[l[m[2]:m[3]]]
			if row == nil {
				continue
			}
			// The arguments may run on over the next lines.
			text := l[m[1]:]
			for j := i + 1; j < lines.Len() && j <= i+3 && !strings.Contains(text, ")"); j++ {
				text += " " + lines.Line(j)
			}
			args := topArgs(text)
			if row.Item >= len(args) || row.Handler >= len(args) {
				continue
			}
			h := identWords(args[row.Handler])
			if member := itemMember(args[row.Item]); member != "" && len(h) == 1 {
				out = append(out, deferHandler{member: member, handler: h[0]})
			}
		}
	}
	r.handlers[rel] = out
	return out
}

// topArgs splits the text after an opening parenthesis into the
// arguments up to the matching closing one, at top-level commas.
func topArgs(text string) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(text); i++ {
		switch text[i] {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			if depth == 0 {
				return append(out, strings.TrimSpace(text[start:i]))
			}
			depth--
		case ',':
			if depth == 0 {
				out = append(out, strings.TrimSpace(text[start:i]))
				start = i + 1
			}
		}
	}
	return append(out, strings.TrimSpace(text[start:]))
}

// deferralTables describe deferred work (deferred.go): the calls that
// queue an item and the calls that give an item its handler.
type deferralTables struct {
	Queue []deferQueueRow `yaml:"queue"`
	Inits []deferInitRow  `yaml:"inits"`
}

// deferQueueRow is a call that queues the item in argument Item.
type deferQueueRow struct {
	Name string `yaml:"name"`
	Item int    `yaml:"item"`
}

// deferInitRow is a call (or, with Decl, a file-scope declaration macro)
// that gives the item in argument Item the handler in argument Handler.
type deferInitRow struct {
	Name    string `yaml:"name"`
	Item    int    `yaml:"item"`
	Handler int    `yaml:"handler"`
	Decl    bool   `yaml:"decl"`
}
