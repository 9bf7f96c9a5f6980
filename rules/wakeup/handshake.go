package wakeup

import (
	"fmt"
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/report"
)

// A flag handshake (category state-order): one side stores its flag and
// then loads the other's ("I have work: set TX_WAKEUP, then test
// SENDING"); the other side stores the second flag and then loads the
// first ("I am done: clear SENDING, then test TX_WAKEUP"). With a full
// barrier between each side's store and load (smp_mb(), or a
// value-returning atomic such as test_and_set_bit()), one of the two
// loads sees the other side's store whatever the interleaving, so one
// side acts: the worker goes round again, or the caller schedules it.
// A patch that makes one side load before it stores breaks that, whatever
// barrier it keeps: each side can load the other's old value, and neither
// acts (the kick is lost, the waiter is never woken). A lock each side
// holds through its pair orders them whatever the program order, and is
// not reported.

// handshakeRow describes calls that store or load a flag (handshake.go):
// the bit in argument Bit of the word in argument Word, or, when Bit is
// nil, the variable in argument Var.
type handshakeRow struct {
	Names []string `yaml:"names"`
	Bit   *int     `yaml:"bit"`
	Word  int      `yaml:"word"`
	Var   int      `yaml:"var"`
	Store bool     `yaml:"store"`
	Load  bool     `yaml:"load"`
}

// byName indexes table rows by each call name names gives for a row
// (handshake_ops, context_fills).
func byName[T any](rows []T, names func(*T) []string) map[string]*T {
	out := map[string]*T{}
	for i := range rows {
		for _, n := range names(&rows[i]) {
			out[n] = &rows[i]
		}
	}
	return out
}

// flagOp is one store or load of a flag in a function.
type flagOp struct {
	flag        string // "BIT@word" or the variable's last member
	call        string // the primitive: set_bit() and clear_bit() store different news
	store, load bool
	line        int
	text        string
}

// flagOps returns the flag stores and loads of fn's calls, in line order.
func (p *prims) flagOps(fn *cscan.Func) []flagOp {
	if fn == nil {
		return nil
	}
	var out []flagOp
	for _, c := range fn.Calls {
		row := p.handshake[c.Name]
		if row == nil {
			continue
		}
		flag := flagName(row, c.Args)
		if flag == "" {
			continue
		}
		out = append(out, flagOp{flag: flag, call: c.Name, store: row.Store, load: row.Load, line: c.Line,
			text: c.Name + "(" + strings.Join(c.Args, ", ") + ")"})
	}
	return out
}

// flagName names the flag a call's arguments designate: the bit and the
// last member of its word, or the last member of the variable.
func flagName(row *handshakeRow, args []string) string {
	arg := func(i int) string { return flagVar(argAt(args, i)) }
	if row.Bit != nil {
		bit, word := strings.Join(strings.Fields(argAt(args, *row.Bit)), ""), arg(row.Word)
		if bit == "" || word == "" {
			return ""
		}
		return bit + "@" + word
	}
	return arg(row.Var)
}

// flagText shows a flag in a message: "TX_WAKEUP of tx_state" for a bit.
func flagText(flag string) string {
	if bit, word, ok := strings.Cut(flag, "@"); ok {
		return bit + " of " + word
	}
	return flag
}

// argAt returns argument i, "" when there is none.
func argAt(args []string, i int) string {
	if i < 0 || i >= len(args) {
		return ""
	}
	return args[i]
}

// flagVar returns the last member name of an argument naming a flag
// ("&hu->tx_state" -> "tx_state"), or its identifier; "" for anything
// else.
func flagVar(e string) string {
	e = strings.TrimRight(strings.TrimLeft(normLvalue(e), "&*("), ")")
	if e = lastMember(e); !cscan.IsIdent(e) {
		return ""
	}
	return e
}

// firstOp returns the first op of ops on flag that stores (store set) or
// loads; nil when there is none.
func firstOp(ops []flagOp, flag string, store bool) *flagOp {
	for i := range ops {
		if ops[i].flag == flag && (store && ops[i].store || !store && ops[i].load) {
			return &ops[i]
		}
	}
	return nil
}

// checkHandshakes reports a function of the patch that stored a flag (by
// one primitive: clear_bit() is not set_bit()) before its first load of
// another, and now makes that store only after its first load of it,
// when a function of the same file stores the second flag and then loads
// the first.
func (r *checker) checkHandshakes() {
funcs:
	for i, nw := range r.news {
		old := r.olds[i]
		if nw == nil || old == nil || nw.F == nil || old.F == nil {
			continue
		}
		oldOps, newOps := r.p.flagOps(old.F), r.p.flagOps(nw.F)
		for _, a := range oldOps {
			if !a.store {
				continue
			}
			for _, b := range oldOps {
				if !b.load || b.flag == a.flag {
					continue
				}
				ol, nl := firstOp(oldOps, b.flag, false), firstOp(newOps, b.flag, false)
				if a.line >= ol.line || nl == nil {
					continue
				}
				ns := storeAfter(newOps, a, nl.line)
				if ns == nil {
					continue
				}
				if r.reportHandshake(nw, ns, nl) {
					continue funcs // one finding per function
				}
			}
		}
	}
}

// storeAfter returns the first store in ops like a (its flag, by its
// primitive) when every such store comes after line: the store that
// used to precede the load at line now follows it. It returns nil when
// one still precedes it, or none is left.
func storeAfter(ops []flagOp, a flagOp, line int) *flagOp {
	for i := range ops {
		if ops[i].store && ops[i].flag == a.flag && ops[i].call == a.call {
			if ops[i].line < line {
				return nil
			}
			return &ops[i]
		}
	}
	return nil
}

// reportHandshake reports nw's load nl now made before its store ns when
// a peer of the same file stores nl's flag before it loads ns's, and no
// lock both hold orders the two pairs; it reports whether it found one.
func (r *checker) reportHandshake(nw *wfunc, ns, nl *flagOp) bool {
	var peer *wfunc
	var ps, pl *flagOp
	for _, p := range r.handshakePeers(nw, ns.flag, nl.flag) {
		if !r.lockOrdersPairs(nw, nl.line, ns.line, p.fn, p.store.line, p.load.line) {
			peer, ps, pl = p.fn, p.store, p.load
			break
		}
	}
	if peer == nil {
		return false
	}
	f := report.Finding{
		Category: CategoryStateOrder,
		Severity: report.SeverityRisk,
		File:     nw.File, Func: nw.Name, Line: nl.line, Key: ns.flag,
		Message: fmt.Sprintf("%s() now loads %s before it stores %s; %s() stores the first and then loads the second", nw.Name, flagText(nl.flag), flagText(ns.flag), peer.Name),
		Explanation: fmt.Sprintf("%s() and %s() hand work over with two flags: each stores its own and then loads the other's, so that (with a full barrier between its store and its load) at least one of them sees the other's store and acts. "+
			"%s() now loads %s before it stores %s: both loads can see the old values, and neither side acts. Store first, then load after a full barrier (a value-returning atomic is one).",
			nw.Name, peer.Name, nw.Name, flagText(nl.flag), flagText(ns.flag)),
		Evidence: []string{nw.evidence(nl.line), nw.evidence(ns.line)},
		Chain: []report.Step{
			{Func: nw.Name, File: nw.File, Line: nl.line, What: "loads first: " + nl.text},
			{Func: nw.Name, File: nw.File, Line: ns.line, What: "stores after: " + ns.text},
			{Func: peer.Name, File: peer.File, Line: ps.line, What: "stores: " + ps.text},
			{Func: peer.Name, File: peer.File, Line: pl.line, What: "then loads: " + pl.text},
		},
	}
	f.Evidence = append(f.Evidence, interleaving(nw.Name+"()", peer.Name+"()", [][2]string{
		{nl.text + ": old value", ""},
		{"", ps.text},
		{"", pl.text + ": old value, does not act"},
		{ns.text, ""},
		{"does not act either", ""},
	})...)
	r.add(f)
	return true
}

// handshakeSide is a peer of a handshake: a function that stores one flag
// and then loads the other.
type handshakeSide struct {
	fn          *wfunc
	store, load *flagOp
}

// handshakePeers returns the functions of nw's file, other than nw, that
// store flag b and later load flag a.
func (r *checker) handshakePeers(nw *wfunc, a, b string) []handshakeSide {
	var out []handshakeSide
	for _, fn := range r.fileFuncs(nw.File) {
		if fn.Name == nw.Name {
			continue
		}
		ops := r.p.flagOps(fn)
		s := firstOp(ops, b, true)
		if s == nil {
			continue
		}
		for i := range ops {
			if ops[i].flag == a && ops[i].load && ops[i].line > s.line {
				if v := r.funcView(fn); v != nil {
					out = append(out, handshakeSide{v, s, &ops[i]})
				}
				break
			}
		}
	}
	return out
}

// lockOrdersPairs reports whether one lock is held by f from line f1 to
// f2 and by g from g1 to g2, at every call between: one critical section
// on each side orders the pairs, whatever their program order.
func (r *checker) lockOrdersPairs(f *wfunc, f1, f2 int, g *wfunc, g1, g2 int) bool {
	for _, h := range r.heldWithCallers(f, min(f1, f2)) {
		if r.heldThrough(f, min(f1, f2), max(f1, f2), h) && r.heldThrough(g, min(g1, g2), max(g1, g2), h) {
			return true
		}
	}
	return false
}

// heldThrough reports whether f holds h at every call from line from to
// line to: an unlock and a lock again between them ends one critical
// section and starts another.
func (r *checker) heldThrough(f *wfunc, from, to int, h heldLock) bool {
	if !r.holdsAt(f, from, h) || !r.holdsAt(f, to, h) {
		return false
	}
	if f.F == nil {
		return true
	}
	for _, c := range f.F.Calls {
		if c.Line > from && c.Line < to && !r.holdsAt(f, c.Line, h) {
			return false
		}
	}
	return true
}

// fileFuncs returns the functions of the post-patch file rel (its
// changed functions from the patch when there is no tree).
func (r *checker) fileFuncs(rel string) []*cscan.Func {
	if r.tree != nil {
		if tf := r.tree.parsed(rel); tf != nil {
			return tf.Funcs
		}
	}
	var out []*cscan.Func
	for _, f := range r.news {
		if f != nil && f.F != nil && f.File == rel {
			out = append(out, f.F)
		}
	}
	return out
}

// funcView returns the view of a post-patch function: the patch's own
// when fn is one of the patch's (fileFuncs without a tree), the tree's
// post-patch view otherwise.
func (r *checker) funcView(fn *cscan.Func) *wfunc {
	for _, f := range r.news {
		if f != nil && f.F == fn {
			return f
		}
	}
	if r.tree == nil {
		return nil
	}
	return r.tree.view(fn)
}
