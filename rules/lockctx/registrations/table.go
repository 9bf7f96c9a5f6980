package registrations

import (
	"regexp"
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/index"
	"github.com/autosel-bot/autosel-bot/report"
	"github.com/autosel-bot/autosel-bot/rules/lockctx/typing"
	"github.com/autosel-bot/autosel-bot/rules/lockmodel"
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
	// Prefix matches every registration call whose name starts with one
	// of these (register_trace_<event>(), one per tracepoint): the rows
	// a Table uses name the calls the tree makes (deriveRows) and those
	// of the patch (Rows).
	Prefix []string `yaml:"prefix"`
	// Via is the member of the registered object holding the function.
	Via string `yaml:"via"`
	// Array marks Arg as an array (or a pointer passed by address) of
	// callbacks filled where the call is made: every function stored in
	// it is registered (virtio_find_vqs()'s callbacks, arrayarg.go).
	Array bool `yaml:"array"`
	// ArgHas, when set, limits a Names row to the calls whose argument
	// ArgHas.Arg holds one of ArgHas.Any: the context depends on what
	// else is registered (cpuhp_setup_state() runs the callbacks of a
	// *_STARTING or *_DYING state with interrupts off, the others in a
	// thread).
	ArgHas ArgText `yaml:"arg_has"`
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
	// Container names container macros (from_tasklet, from_timer): a
	// function with one parameter that it passes as such a macro's
	// pointer argument is the row's callback, however it is registered
	// (an assignment through a cast, a helper the scanner does not see).
	Container []string `yaml:"container"`
	// Unless lifts the row for functions registered from a file whose
	// source holds one of these texts (whitespace-insensitive): the
	// object declares that its callbacks may sleep (a gpio_chip with
	// can_sleep set, a PCM marked nonatomic), so the core calls them
	// where sleeping is allowed.
	Unless []string `yaml:"unless"`
	// UnlessNear also looks for the Unless texts in the other C files of
	// the registering file's directory and of its parent (a driver
	// family's directory, not a subsystem's top; nearHolds): the object
	// whose setting decides the context is set up by other code of the
	// same driver family (an ASoC DAI's trigger runs atomic unless the
	// machine driver's dai_link is nonatomic).
	UnlessNear bool `yaml:"unless_near"`
	// UnlessSleeps lifts the row for a callback that already sleeps in
	// the tree before the patch: the core calls it where it may (an ASoC
	// DAI whose trigger waits for its DSP's IPC reply runs on nonatomic
	// links only), so only a callback that did not sleep gets the
	// context.
	UnlessSleeps bool `yaml:"unless_sleeps"`
	// Only, the other way round, limits the row to functions registered
	// from a file whose source holds one of these texts: the object asks
	// for the atomic context (a regmap_config with fast_io set takes a
	// spinlock around the accesses that call its callbacks).
	Only []string `yaml:"only"`
	// OnlyCalls limits the row to functions registered from a file that
	// makes one of these calls under no condition (the object asks for
	// the context on every device: pm_runtime_irq_safe() in a probe, not
	// under an if for some models only).
	OnlyCalls []string `yaml:"only_calls"`
	// Shutdown marks a context entered only on the way down (restart and
	// power-off handlers): system_state is past SYSTEM_RUNNING there,
	// with interrupts off and the other CPUs stopped, where the kernel
	// makes some sleeping primitives work atomically (an I2C transfer
	// switches to the adapter's atomic mode). A rule may let those pass.
	Shutdown bool `yaml:"shutdown"`
	// Kind is the context the function runs in (see Kinds), Why the reason
	// shown in findings, Source where the kernel says so (documentation or
	// the code that calls the callback).
	Kind   string `yaml:"kind"`
	Why    string `yaml:"why"`
	Source string `yaml:"source"`
	// Param, on a derived wrapper row, is the wrapper's parameter it
	// passes on to the registration (wrappers.go): inside the wrapper
	// that name is the parameter, never a function of the tree.
	Param string `yaml:"-"`
	// file restricts a derived wrapper row (wrappers.go) to calls from
	// the file of its static wrapper function.
	file string
}

// ArgText is a condition on a registration call's argument text: the
// argument Arg contains one of Any (none: no condition); with Whole, as
// a whole identifier (SYS_OFF_MODE_POWER_OFF, not
// SYS_OFF_MODE_POWER_OFF_PREPARE).
type ArgText struct {
	Arg   int      `yaml:"arg"`
	Any   []string `yaml:"any"`
	Whole bool     `yaml:"whole"`
}

// holds reports whether the call arguments args meet the condition.
func (a ArgText) holds(args []string) bool {
	if len(a.Any) == 0 {
		return true
	}
	if a.Arg < 0 || a.Arg >= len(args) {
		return false
	}
	for _, t := range a.Any {
		if a.Whole && cscan.ContainsWord(args[a.Arg], t) || !a.Whole && strings.Contains(args[a.Arg], t) {
			return true
		}
	}
	return false
}

// Reg is one registration of a function found in a view: the row
// registering it and the registration as a chain step.
type Reg struct {
	Row  *Callback
	Step report.Step
	// File is the registering file: a static function is reached only by
	// the registrations of its own file.
	File string
}

// Config is what a Table reads.
type Config struct {
	// Index is the view (nil in patch-only mode), Patch the patch's
	// functions by name (read instead of the index in patch-only mode).
	Index *index.Index
	Patch map[string][]*cscan.Func
	// ID names the callback rows in what is shared through the tree's
	// index (the model's id); Callbacks are the rows.
	ID        string
	Callbacks []Callback
	// Typer types the objects callbacks are read from (nil: a Typer of
	// its own over Index).
	Typer *typing.Typer
	// Note, when not nil, is told the members a look-up depended on.
	Note func(key string)
	// Stored, when not nil, returns the wrapper rows stored beside the
	// index (ok false when there are none).
	Stored func() (rows []Callback, ok bool)
	// StoredRegs, when not nil, returns the tree's registrations stored
	// with the rows (StoreTree; ok false when there are none).
	StoredRegs func() (regs *StoredRegs, ok bool)
}

// Table finds the registrations of one view, each kind once per table
// and, for what the patch leaves alone, once per tree index and ID.
type Table struct {
	ix        *index.Index
	patch     map[string][]*cscan.Func
	id        string
	callbacks []Callback
	typ       *typing.Typer
	note      func(string)
	stored    func() ([]Callback, bool)
	// storedRegs reads the tree's registrations Prepare stored.
	storedRegs func() (*StoredRegs, bool)
	// set holds the registrations (tree.go, regset.go), rows the callback
	// rows with the registration wrappers (wrappers.go).
	set  *regView
	rows []Callback
	// patchRows are the rows of the wrappers the patch makes
	// (patchwrappers.go), part of rows; patchVia the call each wraps.
	patchRows []Callback
	patchVia  map[string]string
	// declRegs are the declaration-macro registrations per file, by
	// function name (declmacros.go).
	declRegs map[string]map[string][]Reg
}

// New returns the registration table of a view.
func New(c Config) *Table {
	t := &Table{ix: c.Index, patch: c.Patch, id: c.ID, callbacks: c.Callbacks, typ: c.Typer, note: c.Note, stored: c.Stored, storedRegs: c.StoredRegs}
	if t.typ == nil {
		t.typ = typing.New(c.Index, nil)
	}
	if t.note == nil {
		t.note = func(string) {}
	}
	return t
}

// Registered is a function a registration call registers, by name.
type Registered struct {
	Func string
	Reg
}

// By returns the functions fn's own calls register (the callback rows'
// registration calls, wrappers included), in call order.
func (t *Table) By(fn *cscan.Func) []Registered {
	rows := t.Rows()
	isName := map[string]bool{}
	for _, n := range registrationNames(rows) {
		isName[n] = true
	}
	var out []Registered
	for _, c := range fn.Calls {
		if !isName[c.Name] {
			continue
		}
		s := visitReg(t.ix, rows, fn, c)
		for i, name := range s.funcs {
			out = append(out, Registered{Func: name, Reg: s.regs[i]})
		}
	}
	return out
}

var calleeArgRe = regexp.MustCompile(`^(?:\(\s*[\w\s\*]+\)\s*)?&?\s*([A-Za-z_]\w*)$`)

// CallbackName returns the function an argument names ("fn", "&fn",
// "(irq_handler_t)fn"), "" for anything else.
func CallbackName(arg string) string {
	m := calleeArgRe.FindStringSubmatch(strings.TrimSpace(arg))
	if m == nil {
		return ""
	}
	return m[1]
}

// CallbackNames returns the functions an argument names: CallbackName's
// one, or those each branch of a conditional names ("(hwp_active ?
// update_util_hwp : update_util)", nested too); a NULL or 0 branch names
// none, and nil is returned when no branch names a function.
func CallbackNames(arg string) []string {
	s := unwrapParens(arg)
	if fn := CallbackName(s); fn != "" {
		if fn == "NULL" {
			return nil
		}
		return []string{fn}
	}
	q, colon := cscan.Ternary(s)
	if q < 0 {
		return nil
	}
	out := append(CallbackNames(s[q+1:colon]), CallbackNames(s[colon+1:])...)
	if len(out) == 0 {
		return nil
	}
	return out
}

// unwrapParens strips spaces and the parentheses enclosing the whole of
// s, as often as they nest.
func unwrapParens(s string) string {
	s = strings.TrimSpace(s)
	for {
		n := cscan.StripParens(s)
		if n == s {
			return s
		}
		s = n
	}
}

// viaMember returns the functions assigned to member via of the object an
// argument names ("&priv->nb" -> the functions assigned to
// "priv->nb.notifier_call", or in the initializer of "static struct
// notifier_block foo_nb"), in the registering function's file.
func viaMember(ix *index.Index, caller *cscan.Func, arg, via string) []string {
	if ix == nil {
		return nil
	}
	key := lockmodel.Key(arg)
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
		b := lockmodel.Key(base)
		if i := strings.LastIndexAny(b, ">."); i >= 0 {
			b = b[i+1:]
		}
		if b == last && b != "" {
			out = append(out, a.Func)
		}
	}
	return out
}
