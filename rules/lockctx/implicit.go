package lockctx

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/index"
	"github.com/autosel-bot/autosel-bot/report"
)

// Callback is one way of registering a function that makes it run in an
// atomic context (the "callbacks" rows of a family's table): a
// registration call taking the function as an argument (timer_setup(),
// request_irq()'s primary handler), a struct member it is assigned to
// (hrtimer.function, net_device_ops.ndo_start_xmit), or a registration
// call taking an object whose member holds it (a notifier_block passed to
// atomic_notifier_chain_register(), via its notifier_call).
type Callback struct {
	// Names are registration calls, Arg the argument holding the function
	// (or the object, with Via); ArgOf overrides Arg per name.
	Names []string       `yaml:"names"`
	Arg   int            `yaml:"arg"`
	ArgOf map[string]int `yaml:"arg_of"`
	// Via is the member of the registered object holding the function.
	Via string `yaml:"via"`
	// Struct and Members: the function is assigned to one of these members
	// of this struct type.
	Struct  string   `yaml:"struct"`
	Members []string `yaml:"members"`
	// Init, for member rows: an assignment whose struct type the scanner
	// cannot tell counts when its object is initialised by one of these
	// calls in the same file (hrtimer_init(&t->timer, ...); t->timer.function = f).
	Init []string `yaml:"init"`
	// HeldFrom, for member rows, names the member of the same object whose
	// function runs first and may return with contexts held that these
	// members then run in, until a later member releases them
	// (seq_operations: start may take a lock that show and next run
	// under, stop drops it). Kind is then empty: the contexts are what
	// that function's summary holds on return.
	HeldFrom string `yaml:"held_from"`
	// Decl marks Names as declaration macros, usually at file scope
	// (DEFINE_TIMER(name, fn)): they are looked for in the callback's own
	// file, not only among the calls of functions (declmacros.go).
	Decl bool `yaml:"decl"`
	// Kind is the context the function runs in (see Kinds), Why the reason
	// shown in findings, Source where the kernel says so (documentation or
	// the code that calls the callback).
	Kind   string `yaml:"kind"`
	Why    string `yaml:"why"`
	Source string `yaml:"source"`
	// file restricts a derived wrapper row (wrappers.go) to calls from
	// the file of its static wrapper function.
	file string
}

// implicitReg is one registration of a function found in a view.
type implicitReg struct {
	row  *Callback
	step report.Step
	// static registrations only reach a function of the same file.
	file string
}

// Implicit returns the atomic contexts fn runs in because of how it is
// registered (hard IRQ handler, timer, tasklet, RCU callback, NAPI poll,
// ops members called with a lock held...), each with the registration as
// the place it is entered; nil when none is known.
func (r *Resolver) Implicit(fn *cscan.Func) []Held {
	if fn == nil || len(r.m.callbacks) == 0 {
		return nil
	}
	var out []Held
	seen := map[string]bool{}
	add := func(c *Callback, st report.Step) {
		if seen[c.Kind] {
			return
		}
		seen[c.Kind] = true
		out = append(out, Held{Kind: c.Kind, Must: true, At: st, Why: c.Why})
	}
	for _, reg := range r.registrations(fn.Name) {
		if fn.Static && !strings.HasSuffix(fn.File, ".h") && reg.file != fn.File {
			continue
		}
		add(reg.row, reg.step)
	}
	for _, reg := range r.declRegistrations(fn.File, fn.Name) {
		add(reg.row, reg.step)
	}
	if r.ix != nil {
		for _, a := range r.ix.AssignsOf(fn.Name) {
			if fn.Static && !strings.HasSuffix(fn.File, ".h") && a.File != fn.File {
				continue
			}
			for _, reg := range r.memberRegistrations(a) {
				add(reg.row, reg.step)
			}
			for i := range r.m.callbacks {
				c := &r.m.callbacks[i]
				if len(c.Members) == 0 || !hasString(c.Members, a.Member) || !r.memberMatches(c, a) {
					continue
				}
				if c.HeldFrom != "" {
					out = append(out, r.heldFrom(fn, c, a)...)
					continue
				}
				add(c, report.Step{Func: fn.Name, File: a.File, Line: a.Line,
					What: fmt.Sprintf("assigned to %s.%s", c.Struct, a.Member)})
			}
		}
	}
	return out
}

// heldFrom returns the contexts fn, assigned by a to a member of a
// held_from row, runs in: what the function assigned to the row's
// HeldFrom member of the same object holds when it returns.
func (r *Resolver) heldFrom(fn *cscan.Func, c *Callback, a index.Assign) []Held {
	var out []Held
	for _, s := range r.ix.AssignsTo(c.HeldFrom) {
		if s.File != a.File || (a.Var == "" || s.Var != a.Var) && (a.Base == "" || s.Base != a.Base) {
			continue
		}
		defs := r.lookup(s.Func, s.File)
		if len(defs) != 1 {
			continue
		}
		for _, e := range r.SummaryOf(defs[0]).Acquires {
			out = append(out, Held{Kind: e.Kind, Key: e.Key, Must: true,
				At: report.Step{Func: s.Func, File: s.File, Line: s.Line,
					What: fmt.Sprintf("%s.%s %s() runs after %s %s() returns", c.Struct, a.Member, fn.Name, c.HeldFrom, s.Func)},
				Via: e.Steps, Why: c.Why})
		}
	}
	return out
}

// memberMatches reports whether assignment a installs the function in
// the struct type of row c.
func (r *Resolver) memberMatches(c *Callback, a index.Assign) bool {
	if a.Struct != "" {
		return a.Struct == c.Struct
	}
	if a.Base == "" {
		return false
	}
	f := r.ix.File(a.File)
	if f == nil {
		return false
	}
	// A plain assignment ("urb->complete = fn"): the base's type as the
	// assigning function declares it.
	for _, fn := range f.Funcs {
		if fn.Start <= a.Line && a.Line <= fn.End {
			if r.typ.ExprTag(a.Base, fn) == c.Struct {
				return true
			}
			break
		}
	}
	if len(c.Init) == 0 {
		return false
	}
	want := normKey(a.Base)
	for _, fn := range f.Funcs {
		for _, call := range fn.Calls {
			if hasString(c.Init, call.Name) && len(call.Args) > 0 && normKey(call.Args[0]) == want {
				return true
			}
		}
	}
	return false
}

func hasString(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

var calleeArgRe = regexp.MustCompile(`^(?:\(\s*[\w\s\*]+\)\s*)?&?\s*([A-Za-z_]\w*)$`)

// callbackName returns the function an argument names ("fn", "&fn",
// "(irq_handler_t)fn"), "" for anything else.
func callbackName(arg string) string {
	m := calleeArgRe.FindStringSubmatch(strings.TrimSpace(arg))
	if m == nil {
		return ""
	}
	return m[1]
}

// viaMember returns the functions assigned to member via of the object an
// argument names ("&priv->nb" -> the functions assigned to
// "priv->nb.notifier_call", or in the initializer of "static struct
// notifier_block foo_nb"), in the registering function's file.
func viaMember(ix *index.Index, caller *cscan.Func, arg, via string) []string {
	if ix == nil {
		return nil
	}
	key := normKey(arg)
	last := key
	if i := strings.LastIndexAny(last, ">."); i >= 0 {
		last = last[i+1:]
	}
	var out []string
	for _, a := range ix.AssignsTo(via) {
		if a.File != caller.File {
			continue
		}
		base := a.Base
		if base == "" {
			base = a.Var
		}
		b := normKey(base)
		if i := strings.LastIndexAny(b, ">."); i >= 0 {
			b = b[i+1:]
		}
		if b == last && b != "" {
			out = append(out, a.Func)
		}
	}
	return out
}

// Registration is a function a registration call makes run in an
// atomic context: Func by name, Held the context with the call as the
// place it is entered.
type Registration struct {
	Func string
	Held Held
}

// Registered returns the functions fn's own calls register to run in an
// atomic context (the callback rows' registration calls), in call order.
// A patch that changes such a call changes the context of a function it
// may leave alone: request_threaded_irq(irq, NULL, fn) made
// request_irq(irq, fn), INIT_WORK() made timer_setup().
func (r *Resolver) Registered(fn *cscan.Func) []Registration {
	if fn == nil || len(r.m.callbacks) == 0 {
		return nil
	}
	rows := r.callbackRows()
	isName := map[string]bool{}
	for _, n := range registrationNames(rows) {
		isName[n] = true
	}
	var out []Registration
	for _, c := range fn.Calls {
		if !isName[c.Name] {
			continue
		}
		s := visitReg(r.ix, rows, fn, c)
		for i, name := range s.funcs {
			reg := s.regs[i]
			out = append(out, Registration{Func: name, Held: Held{Kind: reg.row.Kind, Must: true, At: reg.step, Why: reg.row.Why}})
		}
	}
	return out
}
