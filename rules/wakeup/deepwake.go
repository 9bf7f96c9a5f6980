package wakeup

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/report"
	"github.com/autosel-bot/autosel-bot/rules/lockctx"
)

// Deep wakers: a subsystem's announcement call wakes the waiters of the
// object it is handed several calls down, under conditions on the state
// it computes there (snd_pcm_period_elapsed(substream) ->
// snd_pcm_update_hw_ptr0() -> snd_pcm_update_state(), which wakes
// runtime->sleep or runtime->tsleep once enough frames are available).
// Such a call is too large and too conditional to be a wrapper: no other
// wake-up can count on it to cover or order anything. But a caller owes
// it as it owes a wake-up: removed, skipped by a new exit or put under a
// new condition, it takes its waiters' wake-up with it. A call is a deep
// waker when, through calls that hand on the object (a parameter or a
// local taken from one), it reaches a wake-up of a queue of that object
// whose key is the same in every function (a typed member). A bit's
// wake-up is left out: far down, it is a bit lock's release
// (unlock_buffer() after the chain's own lock_buffer()), not news.

// maxDeepHops bounds the calls followed below the deep waker; maxDeepViews
// the functions read for one; maxDeepLines the size of a function read.
const (
	maxDeepHops  = 4
	maxDeepViews = 48
	maxDeepLines = 400
)

// deepWakeOf returns the wake-up a call of name (from file) reaches
// through the calls handing on its arguments, nil if none (memoised).
func (r *checker) deepWakeOf(name, file string) *wsite {
	fns := r.deepDefs(name, file)
	if len(fns) == 0 {
		return nil
	}
	// Static helpers of one name in two files are two functions.
	key := fns[0].File + ":" + name
	if r.deep == nil {
		r.deep = map[string]*wsite{}
	}
	if s, ok := r.deep[key]; ok {
		return s
	}
	budget := maxDeepViews
	s := r.deepSearch(name, file, 0, &budget, map[string]int{})
	r.deep[key] = s
	return s
}

// deepDefs returns the definitions a call of name from file reaches that
// a deep waker may be: none for primitives, lock and ordering calls, task
// wakers, or functions too large to read.
func (r *checker) deepDefs(name, file string) []*cscan.Func {
	if r.p.isPrimitive(name) || r.p.takesLock(name) || r.p.ordering(name) != "" || r.p.taskWakers[name] != nil {
		return nil
	}
	fns := lockctx.DropConfigStubs(cscan.PickDefs(r.pass.Index.Funcs(name), file))
	if len(fns) == 0 || fns[0].End-fns[0].Start > maxDeepLines {
		return nil
	}
	return fns
}

// deepSearch looks for the wake-up of deepWakeOf in name and below it;
// seen holds the shallowest depth each function was searched from.
func (r *checker) deepSearch(name, file string, depth int, budget *int, seen map[string]int) *wsite {
	if d, ok := seen[name]; depth > maxDeepHops || *budget <= 0 || ok && d <= depth {
		return nil
	}
	seen[name] = depth
	fns := r.deepDefs(name, file)
	if len(fns) == 0 {
		return nil
	}
	*budget--
	v := r.tree.view(fns[0])
	if v.F == nil {
		return nil
	}
	held := handedOn(v, paramNames(v.header(), name))
	for _, s := range v.sitesOn(siteWake, "") {
		if globalKey(s.Q) && keyKindSplit(s.Q)[0] != "bit:" && held[firstIdent(stripAddr(s.Arg))] {
			return s
		}
	}
	for _, c := range v.F.Calls {
		if anyArgHead(c.Args, held) {
			if s := r.deepSearch(c.Name, v.File, depth+1, budget, seen); s != nil && !r.takenBefore(v, c.Line, s.Q) {
				return s
			}
		}
	}
	return nil
}

// handedOn returns the names of f that hold what its parameters params
// were handed: the parameters and the locals assigned from them
// ("runtime = substream->runtime"), in the order of the lines.
func handedOn(f *wfunc, params []string) map[string]bool {
	held := map[string]bool{}
	for _, p := range params {
		if p != "" {
			held[p] = true
		}
	}
	// Statement by statement, in order: an initializer may run over
	// several lines ("struct foo_chan *ch =\n\t\tdev->chan;").
	var code strings.Builder
	for _, l := range sortedLines(f) {
		code.WriteString(codeOnly(f.lines[l]))
		code.WriteByte(' ')
	}
	for _, st := range strings.FieldsFunc(code.String(), func(c rune) bool { return c == ';' || c == '{' || c == '}' }) {
		st = strings.Join(strings.Fields(st), " ")
		for _, m := range localSetRe.FindAllStringSubmatchIndex(st, -1) {
			lhs := st[m[2]:m[3]]
			rhs := splitTop(st[m[1]-1:], ",")[0] // up to the next declarator
			if !held[lhs] && heldAlias(rhs, held) {
				held[lhs] = true
			}
		}
	}
	return held
}

// heldAliasRe matches an expression that names an object through another
// (a member chain, a cast, an address, container_of(), an accessor of one
// argument: netdev_priv(dev), READ_ONCE(p->x)); $1, $2 or $3 the name it
// starts from.
var heldAliasRe = regexp.MustCompile(`^\s*(?:\([^()]*\)\s*)?&?\s*(?:([A-Za-z_]\w*)(?:\s*(?:->|\.)\s*\w+(?:\s*\[[^\]]*\])?)*|container_of\s*\(\s*([A-Za-z_]\w*)\b.*\)|[A-Za-z_]\w*\s*\(\s*&?\s*([A-Za-z_]\w*)(?:\s*(?:->|\.)\s*\w+)*\s*\))\s*$`)

// heldAlias reports whether rhs names what one of held names does: a
// member chain from it or its container, an accessor's result; not a
// lookup made with it and a key (a buffer found by a device and a block
// number is another object).
func heldAlias(rhs string, held map[string]bool) bool {
	m := heldAliasRe.FindStringSubmatch(rhs)
	return m != nil && (held[m[1]] || held[m[2]] || held[m[3]])
}

// anyArgHead reports whether one of args names one of names as a plain
// name or the head of a member chain.
func anyArgHead(args []string, names map[string]bool) bool {
	for _, a := range args {
		if anyHead(a, names) {
			return true
		}
	}
	return false
}

// firstIdent returns the first identifier of s, "" if none.
func firstIdent(s string) string {
	if ws := identWords(s); len(ws) > 0 {
		return ws[0]
	}
	return ""
}

// addDeepSites adds f's calls of deep wakers as siteDeepWake sites, with
// the key of the wake-up they reach, the call's first argument as the
// object. Calls already taken as wake-ups are left.
func (r *checker) addDeepSites(f *wfunc) {
	if f == nil || f.F == nil || r.tree == nil {
		return
	}
	taken := map[int]map[string]bool{}
	for _, s := range f.Sites {
		if taken[s.Line()] == nil {
			taken[s.Line()] = map[string]bool{}
		}
		taken[s.Line()][s.Call.Name] = true
	}
	added := false
	for _, c := range f.F.Calls {
		if len(c.Args) == 0 || taken[c.Line][c.Name] || r.p.isPrimitive(c.Name) {
			continue
		}
		in := r.deepWakeOf(c.Name, f.File)
		if in == nil {
			continue
		}
		f.Sites = append(f.Sites, &wsite{Kind: siteDeepWake, Fn: f, Call: c, Arg: in.Arg, Q: in.Q,
			Breadth: in.Breadth, Nr: in.Nr, Mode: in.Mode, WKind: in.WKind, Derived: true,
			Obj: firstIdent(stripAddr(c.Args[0])), Inner: in})
		added = true
	}
	if added {
		sort.SliceStable(f.Sites, func(i, j int) bool { return f.Sites[i].Line() < f.Sites[j].Line() })
	}
}

// addDeepStep adds to finding f, about deep waker call c, the wake-up c
// reaches, as the chain's last step.
func (r *checker) addDeepStep(f *report.Finding, c *wsite) {
	in := c.Inner
	if in == nil {
		return
	}
	f.Chain = append(f.Chain, step(in, fmt.Sprintf("%s() reaches this wake-up of the object it is handed, under conditions of its own: %s", c.Call.Name, in.Text())))
}

// takenBefore reports whether function v, before line, waits on queue key
// q itself or through a small helper (xbh_lock() -> wait_on_bit_lock()):
// a wake-up of q that v then reaches is the release of what v took, a
// lock section's end, not news for its callers.
func (r *checker) takenBefore(v *wfunc, line int, q string) bool {
	for _, s := range v.sitesOn(siteWait, "") {
		if s.Line() < line && r.sameQueue(s.Q, q) {
			return true
		}
	}
	for _, c := range v.F.Calls {
		if c.Line >= line || r.p.isPrimitive(c.Name) {
			continue
		}
		for _, h := range r.smallTreeFuncs(c.Name, v.File, maxWrapperLines) {
			for _, s := range h.sitesOn(siteWait, "") {
				if r.sameQueue(s.Q, q) {
					return true
				}
			}
		}
	}
	return false
}
