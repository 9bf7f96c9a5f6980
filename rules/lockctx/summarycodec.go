package lockctx

import (
	"sort"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/index"
	"github.com/autosel-bot/autosel-bot/report"
	"github.com/autosel-bot/autosel-bot/rules/lockctx/wire"
)

// A stored record (summarystore.go) is what the resolver learnt about one tree
// function while summarising the whole tree: the functions and struct
// members its summary was computed from (to tell whether a patch changes
// it) and, when the summary is the same for every entry into the call
// graph (not part of a recursive component), the summary itself.
//
// Encoding: u8 flags (recHasSummary), the deps and then the reverse deps
// (the functions whose summaries were computed from this one), each a
// uvarint count and the refs ascending as uvarint deltas, uvarint number
// of members and the member names, then the summary. Strings are a
// uvarint length and bytes.
const recHasSummary = 1

// record is one decoded stored record without its summary.
type record struct {
	// deps and members are decoded by decodeRecordFull only (Prepare
	// needs them, a patch does not).
	deps    []index.Ref
	members []string
	// rest is the encoded summary (nil when none).
	rest []byte
}

// encodeRecord encodes deps and rdeps (sorted and deduplicated here),
// members and s (nil: not stored).
func encodeRecord(deps, rdeps []index.Ref, members []string, s *Summary) []byte {
	e := &sumEncoder{}
	flags := byte(0)
	if s != nil {
		flags = recHasSummary
	}
	e.Buf = append(e.Buf, flags)
	e.refs(deps)
	e.refs(rdeps)
	sort.Strings(members)
	members = dedupStrings(members)
	e.U(uint64(len(members)))
	for _, m := range members {
		e.S(m)
	}
	if s != nil {
		e.summary(s)
	}
	return e.Buf
}

// refs encodes a set of refs (sorted and deduplicated in place).
func (e *sumEncoder) refs(rs []index.Ref) {
	sort.Slice(rs, func(i, j int) bool { return rs[i] < rs[j] })
	n := 0
	for i, d := range rs {
		if i == 0 || d != rs[i-1] {
			rs[n] = d
			n++
		}
	}
	rs = rs[:n]
	e.U(uint64(len(rs)))
	prev := index.Ref(0)
	for _, d := range rs {
		e.U(uint64(d - prev))
		prev = d
	}
}

// eachRef calls f with each ref of a list refs encodes, allocating
// nothing.
func (d *sumDecoder) eachRef(f func(index.Ref)) {
	n := d.Count()
	prev := uint64(0)
	for i := 0; i < n && !d.Bad; i++ {
		prev += d.U()
		if !d.Bad {
			f(index.Ref(prev))
		}
	}
}

func (d *sumDecoder) refs() []index.Ref {
	n := d.Count()
	out := make([]index.Ref, 0, n)
	prev := uint64(0)
	for i := 0; i < n && !d.Bad; i++ {
		prev += d.U()
		out = append(out, index.Ref(prev))
	}
	return out
}

func dedupStrings(ss []string) []string {
	n := 0
	for i, s := range ss {
		if i == 0 || s != ss[i-1] {
			ss[n] = s
			n++
		}
	}
	return ss[:n]
}

// decodeRecord finds a record's reverse deps and summary, skipping its
// deps and members (a patch reads many records for their summary alone);
// ok is false when it is damaged.
func decodeRecord(b []byte) (rec record, ok bool) {
	return decodeRecordAs(b, false)
}

// decodeRecordFull decodes a record's deps and members too.
func decodeRecordFull(b []byte) (rec record, ok bool) {
	return decodeRecordAs(b, true)
}

func decodeRecordAs(b []byte, full bool) (rec record, ok bool) {
	if len(b) == 0 {
		return rec, false
	}
	d := &sumDecoder{wire.Decoder{B: b[1:]}}
	if full {
		rec.deps = d.refs()
	} else {
		d.skipRefs()
	}
	d.skipRefs() // the reverse deps: eachRdep walks them in the encoding
	m := d.Count()
	for i := 0; i < m && !d.Bad; i++ {
		if full {
			rec.members = append(rec.members, d.S())
		} else {
			d.SkipS()
		}
	}
	if d.Bad {
		return rec, false
	}
	if b[0]&recHasSummary != 0 {
		rec.rest = d.B
	}
	return rec, true
}

// eachRdep calls f with each reverse dep of the record b, decoding
// nothing else; it reports false when b is damaged.
func eachRdep(b []byte, f func(index.Ref)) bool {
	if len(b) == 0 {
		return false
	}
	d := &sumDecoder{wire.Decoder{B: b[1:]}}
	d.skipRefs()
	d.eachRef(f)
	return !d.Bad
}

// appendSummary appends the encoding of s to b.
func appendSummary(b []byte, s *Summary) []byte {
	e := &sumEncoder{Encoder: wire.Encoder{Buf: b}}
	e.summary(s)
	return e.Buf
}

// appendShape appends the encoding of s with every line number left out:
// two summaries of the same shape differ at most in where things are.
func appendShape(b []byte, s *Summary) []byte {
	e := &sumEncoder{Encoder: wire.Encoder{Buf: b}, noLines: true}
	e.summary(s)
	return e.Buf
}

// decodeSummary decodes the summary part of a record.
func decodeSummary(b []byte) (*Summary, bool) {
	d := &sumDecoder{wire.Decoder{B: b}}
	s := d.summary()
	return s, !d.Bad && len(d.B) == 0
}

// sumEncoder encodes summaries; with noLines set it writes 0 for every
// line number (appendShape), and what it writes is not decoded.
type sumEncoder struct {
	wire.Encoder
	noLines bool
}

// line encodes a line number (0 with noLines).
func (e *sumEncoder) line(v int) {
	if e.noLines {
		v = 0
	}
	e.I(v)
}

func (e *sumEncoder) steps(ss []report.Step) {
	e.U(uint64(len(ss)))
	for _, s := range ss {
		e.S(s.Func)
		e.S(s.File)
		e.line(s.Line)
		e.S(s.What)
	}
}

func (e *sumEncoder) effects(es []Effect) {
	e.U(uint64(len(es)))
	for _, x := range es {
		e.S(x.Kind)
		e.S(x.Key)
		e.steps(x.Steps)
		e.Bool(x.Soft)
	}
}

func (e *sumEncoder) reach(r *Reach) {
	e.steps(r.Steps)
	e.S(r.Prim)
	e.S(r.Why)
	e.effects(r.Drops)
	e.effects(r.Retakes)
	e.Bool(r.Weak)
}

func (e *sumEncoder) guards(gs []cscan.Guard) {
	e.U(uint64(len(gs)))
	for _, g := range gs {
		e.S(g.Kind)
		e.S(g.Cond)
		e.line(g.Line)
	}
}

func (e *sumEncoder) summary(s *Summary) {
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
}

// sumDecoder reads what sumEncoder wrote; bad is set at the first error,
// after which every read returns zero values.
type sumDecoder struct {
	wire.Decoder
}

// skipRefs skips a list of refs (see refs).
func (d *sumDecoder) skipRefs() {
	n := d.Count()
	for i := 0; i < n && !d.Bad; i++ {
		d.U()
	}
}

// list reads a list of values, each by one (nil when empty).
func list[T any](d *sumDecoder, one func() T) []T {
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

func (d *sumDecoder) steps() []report.Step {
	return list(d, func() report.Step { return report.Step{Func: d.S(), File: d.S(), Line: d.I(), What: d.S()} })
}

func (d *sumDecoder) effects() []Effect {
	return list(d, func() Effect { return Effect{Kind: d.S(), Key: d.S(), Steps: d.steps(), Soft: d.Bool()} })
}

func (d *sumDecoder) reach() Reach {
	return Reach{Steps: d.steps(), Prim: d.S(), Why: d.S(), Drops: d.effects(), Retakes: d.effects(), Weak: d.Bool()}
}

func (d *sumDecoder) guards() []cscan.Guard {
	return list(d, func() cscan.Guard { return cscan.Guard{Kind: d.S(), Cond: d.S(), Line: d.I()} })
}

func (d *sumDecoder) summary() *Summary {
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
	if d.Bad {
		return nil
	}
	return s
}
