package summary

import (
	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/report"
	"github.com/autosel-bot/autosel-bot/rules/lockctx/wire"
)

// The encoding of a Summary (package wire's varints and strings): a
// boolean and the Reach when set, the Acquires, CondAcquires and Drops,
// the ArgReaches, then a boolean and the Alt reach when set. Equal summaries encode to equal bytes, so an
// encoding also serves to compare them.

// Append appends the encoding of s to b.
func Append(b []byte, s *Summary) []byte {
	e := &encoder{Encoder: wire.Encoder{Buf: b}}
	e.summary(s)
	return e.Buf
}

// AppendShape appends the encoding of s with every line number left out:
// two summaries of the same shape differ at most in where things are.
// What it writes is not decoded.
func AppendShape(b []byte, s *Summary) []byte {
	e := &encoder{Encoder: wire.Encoder{Buf: b}, noLines: true}
	e.summary(s)
	return e.Buf
}

// Decode decodes what Append wrote, all of b; ok is false when b is
// damaged.
func Decode(b []byte) (s *Summary, ok bool) {
	d := &decoder{wire.Decoder{B: b}}
	s = d.summary()
	return s, !d.Bad && len(d.B) == 0
}

// encoder encodes summaries; with noLines set it writes 0 for every line
// number (AppendShape).
type encoder struct {
	wire.Encoder
	noLines bool
}

// line encodes a line number (0 with noLines).
func (e *encoder) line(v int) {
	if e.noLines {
		v = 0
	}
	e.I(v)
}

func (e *encoder) steps(ss []report.Step) {
	e.U(uint64(len(ss)))
	for _, s := range ss {
		e.S(s.Func)
		e.S(s.File)
		e.line(s.Line)
		e.S(s.What)
	}
}

func (e *encoder) effects(es []Effect) {
	e.U(uint64(len(es)))
	for _, x := range es {
		e.S(x.Kind)
		e.S(x.Key)
		e.steps(x.Steps)
		e.Bool(x.Soft)
		e.U(uint64(x.When))
		e.U(uint64(x.Not))
	}
}

func (e *encoder) reach(r *Reach) {
	e.steps(r.Steps)
	e.S(r.Prim)
	e.S(r.Why)
	e.effects(r.Drops)
	e.effects(r.Retakes)
	e.Bool(r.Weak)
	e.Bool(r.Cond != nil)
	if r.Cond != nil {
		e.I(r.Cond.Param)
		e.Bool(r.Cond.True)
		e.Bool(r.Cond.Strict)
		e.S(r.Cond.Value)
		e.S(r.Cond.Bit)
	}
}

func (e *encoder) guards(gs []cscan.Guard) {
	e.U(uint64(len(gs)))
	for _, g := range gs {
		e.S(g.Kind)
		e.S(g.Cond)
		e.line(g.Line)
	}
}

func (e *encoder) summary(s *Summary) {
	e.Bool(s.Reach != nil)
	if s.Reach != nil {
		e.reach(s.Reach)
	}
	e.effects(s.Acquires)
	e.effects(s.CondAcquires)
	e.effects(s.Drops)
	e.U(uint64(len(s.ArgReaches)))
	for _, a := range s.ArgReaches {
		e.I(a.Param)
		e.reach(&a.Reach)
		e.S(a.Call.Name)
		e.U(uint64(len(a.Call.Args)))
		for _, x := range a.Call.Args {
			e.S(x)
		}
		e.line(a.Call.Line)
		e.guards(a.Call.Guards)
	}
	e.Bool(s.Alt != nil)
	if s.Alt != nil {
		e.reach(s.Alt)
	}
}

// decoder reads what encoder wrote; Bad is set at the first error, after
// which every read returns zero values.
type decoder struct {
	wire.Decoder
}

// list reads a list of values, each by one (nil when empty).
func list[T any](d *decoder, one func() T) []T {
	n := d.Count()
	if n == 0 {
		return nil
	}
	out := make([]T, 0, n)
	for i := 0; i < n && !d.Bad; i++ {
		out = append(out, one())
	}
	return out
}

func (d *decoder) steps() []report.Step {
	return list(d, func() report.Step { return report.Step{Func: d.S(), File: d.S(), Line: d.I(), What: d.S()} })
}

func (d *decoder) effects() []Effect {
	return list(d, func() Effect {
		return Effect{Kind: d.S(), Key: d.S(), Steps: d.steps(), Soft: d.Bool(), When: RetClass(d.U()), Not: RetClass(d.U())}
	})
}

func (d *decoder) reach() Reach {
	r := Reach{Steps: d.steps(), Prim: d.S(), Why: d.S(), Drops: d.effects(), Retakes: d.effects(), Weak: d.Bool()}
	if d.Bool() {
		r.Cond = &ParamCond{Param: d.I(), True: d.Bool(), Strict: d.Bool(), Value: d.S(), Bit: d.S()}
	}
	return r
}

func (d *decoder) guards() []cscan.Guard {
	return list(d, func() cscan.Guard { return cscan.Guard{Kind: d.S(), Cond: d.S(), Line: d.I()} })
}

func (d *decoder) summary() *Summary {
	s := &Summary{}
	if d.Bool() {
		r := d.reach()
		s.Reach = &r
	}
	s.Acquires, s.CondAcquires, s.Drops = d.effects(), d.effects(), d.effects()
	s.ArgReaches = list(d, func() ArgReach {
		a := ArgReach{Param: d.I(), Reach: d.reach()}
		a.Call = cscan.Call{Name: d.S(), Args: list(d, d.S), Line: d.I(), Guards: d.guards()}
		return a
	})
	if d.Bool() {
		r := d.reach()
		s.Alt = &r
	}
	if d.Bad {
		return nil
	}
	return s
}
