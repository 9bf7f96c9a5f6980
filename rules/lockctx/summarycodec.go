package lockctx

import (
	"encoding/binary"
	"sort"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/index"
	"github.com/autosel-bot/autosel-bot/report"
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
	e.buf = append(e.buf, flags)
	e.refs(deps)
	e.refs(rdeps)
	sort.Strings(members)
	members = dedupStrings(members)
	e.u(uint64(len(members)))
	for _, m := range members {
		e.s(m)
	}
	if s != nil {
		e.summary(s)
	}
	return e.buf
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
	e.u(uint64(len(rs)))
	prev := index.Ref(0)
	for _, d := range rs {
		e.u(uint64(d - prev))
		prev = d
	}
}

// eachRef calls f with each ref of a list refs encodes, allocating
// nothing.
func (d *sumDecoder) eachRef(f func(index.Ref)) {
	n := d.count()
	prev := uint64(0)
	for i := 0; i < n && !d.bad; i++ {
		prev += d.u()
		if !d.bad {
			f(index.Ref(prev))
		}
	}
}

func (d *sumDecoder) refs() []index.Ref {
	n := d.count()
	out := make([]index.Ref, 0, n)
	prev := uint64(0)
	for i := 0; i < n && !d.bad; i++ {
		prev += d.u()
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
	d := &sumDecoder{b: b[1:]}
	if full {
		rec.deps = d.refs()
	} else {
		d.skipRefs()
	}
	d.skipRefs() // the reverse deps: eachRdep walks them in the encoding
	m := d.count()
	for i := 0; i < m && !d.bad; i++ {
		if full {
			rec.members = append(rec.members, d.s())
		} else {
			d.skipS()
		}
	}
	if d.bad {
		return rec, false
	}
	if b[0]&recHasSummary != 0 {
		rec.rest = d.b
	}
	return rec, true
}

// eachRdep calls f with each reverse dep of the record b, decoding
// nothing else; it reports false when b is damaged.
func eachRdep(b []byte, f func(index.Ref)) bool {
	if len(b) == 0 {
		return false
	}
	d := &sumDecoder{b: b[1:]}
	d.skipRefs()
	d.eachRef(f)
	return !d.bad
}

// appendSummary appends the encoding of s to b.
func appendSummary(b []byte, s *Summary) []byte {
	e := &sumEncoder{buf: b}
	e.summary(s)
	return e.buf
}

// appendShape appends the encoding of s with every line number left out:
// two summaries of the same shape differ at most in where things are.
func appendShape(b []byte, s *Summary) []byte {
	e := &sumEncoder{buf: b, noLines: true}
	e.summary(s)
	return e.buf
}

// decodeSummary decodes the summary part of a record.
func decodeSummary(b []byte) (*Summary, bool) {
	d := &sumDecoder{b: b}
	s := d.summary()
	return s, !d.bad && len(d.b) == 0
}

// sumEncoder encodes summaries; with noLines set it writes 0 for every
// line number (appendShape), and what it writes is not decoded.
type sumEncoder struct {
	buf     []byte
	noLines bool
}

func (e *sumEncoder) u(v uint64) { e.buf = binary.AppendUvarint(e.buf, v) }
func (e *sumEncoder) i(v int)    { e.buf = binary.AppendVarint(e.buf, int64(v)) }
func (e *sumEncoder) line(v int) {
	if e.noLines {
		v = 0
	}
	e.i(v)
}
func (e *sumEncoder) s(v string) { e.u(uint64(len(v))); e.buf = append(e.buf, v...) }
func (e *sumEncoder) b(v bool) {
	if v {
		e.buf = append(e.buf, 1)
	} else {
		e.buf = append(e.buf, 0)
	}
}

func (e *sumEncoder) steps(ss []report.Step) {
	e.u(uint64(len(ss)))
	for _, s := range ss {
		e.s(s.Func)
		e.s(s.File)
		e.line(s.Line)
		e.s(s.What)
	}
}

func (e *sumEncoder) effects(es []Effect) {
	e.u(uint64(len(es)))
	for _, x := range es {
		e.s(x.Kind)
		e.s(x.Key)
		e.steps(x.Steps)
		e.b(x.Soft)
	}
}

func (e *sumEncoder) reach(r *Reach) {
	e.steps(r.Steps)
	e.s(r.Prim)
	e.s(r.Why)
	e.effects(r.Drops)
	e.effects(r.Retakes)
	e.b(r.Weak)
}

func (e *sumEncoder) guards(gs []cscan.Guard) {
	e.u(uint64(len(gs)))
	for _, g := range gs {
		e.s(g.Kind)
		e.s(g.Cond)
		e.line(g.Line)
	}
}

func (e *sumEncoder) summary(s *Summary) {
	e.b(s.Reach != nil)
	if s.Reach != nil {
		e.reach(s.Reach)
	}
	e.effects(s.Acquires)
	e.effects(s.CondAcquires)
	e.effects(s.Drops)
	e.u(uint64(len(s.ArgReaches)))
	for _, a := range s.ArgReaches {
		e.i(a.Param)
		e.reach(&a.Reach)
		e.s(a.Call.Name)
		e.u(uint64(len(a.Call.Args)))
		for _, x := range a.Call.Args {
			e.s(x)
		}
		e.line(a.Call.Line)
		e.guards(a.Call.Guards)
	}
}

// sumDecoder reads what sumEncoder wrote; bad is set at the first error,
// after which every read returns zero values.
type sumDecoder struct {
	b   []byte
	bad bool
}

// advance consumes n bytes of a varint just read; n <= 0 is an error.
func (d *sumDecoder) advance(n int) bool {
	if n <= 0 {
		d.bad, d.b = true, nil
		return false
	}
	d.b = d.b[n:]
	return true
}

func (d *sumDecoder) u() uint64 {
	v, n := binary.Uvarint(d.b)
	if !d.advance(n) {
		return 0
	}
	return v
}

func (d *sumDecoder) i() int {
	v, n := binary.Varint(d.b)
	if !d.advance(n) {
		return 0
	}
	return int(v)
}

func (d *sumDecoder) s() string {
	n := d.u()
	if n > uint64(len(d.b)) {
		d.bad, d.b = true, nil
		return ""
	}
	v := string(d.b[:n])
	d.b = d.b[n:]
	return v
}

func (d *sumDecoder) bool() bool {
	if len(d.b) == 0 || d.b[0] > 1 {
		d.bad, d.b = true, nil
		return false
	}
	v := d.b[0] == 1
	d.b = d.b[1:]
	return v
}

// skipS skips a string.
func (d *sumDecoder) skipS() {
	n := d.u()
	if n > uint64(len(d.b)) {
		d.bad, d.b = true, nil
		return
	}
	d.b = d.b[n:]
}

// skipRefs skips a list of refs (see refs).
func (d *sumDecoder) skipRefs() {
	n := d.count()
	for i := 0; i < n && !d.bad; i++ {
		d.u()
	}
}

// count reads a list length, refusing one longer than the bytes left.
func (d *sumDecoder) count() int {
	n := d.u()
	if n > uint64(len(d.b)) {
		d.bad, d.b = true, nil
		return 0
	}
	return int(n)
}

// list reads a list of values, each by one (nil when empty).
func list[T any](d *sumDecoder, one func() T) []T {
	n := d.count()
	if n == 0 {
		return nil
	}
	out := make([]T, 0, n)
	for i := 0; i < n && !d.bad; i++ {
		out = append(out, one())
	}
	return out
}

func (d *sumDecoder) steps() []report.Step {
	return list(d, func() report.Step { return report.Step{Func: d.s(), File: d.s(), Line: d.i(), What: d.s()} })
}

func (d *sumDecoder) effects() []Effect {
	return list(d, func() Effect { return Effect{Kind: d.s(), Key: d.s(), Steps: d.steps(), Soft: d.bool()} })
}

func (d *sumDecoder) reach() Reach {
	return Reach{Steps: d.steps(), Prim: d.s(), Why: d.s(), Drops: d.effects(), Retakes: d.effects(), Weak: d.bool()}
}

func (d *sumDecoder) guards() []cscan.Guard {
	return list(d, func() cscan.Guard { return cscan.Guard{Kind: d.s(), Cond: d.s(), Line: d.i()} })
}

func (d *sumDecoder) summary() *Summary {
	s := &Summary{}
	if d.bool() {
		r := d.reach()
		s.Reach = &r
	}
	s.Acquires, s.CondAcquires, s.Drops = d.effects(), d.effects(), d.effects()
	s.ArgReaches = list(d, func() ArgReach {
		a := ArgReach{Param: d.i(), Reach: d.reach()}
		a.Call = cscan.Call{Name: d.s(), Args: list(d, d.s), Line: d.i(), Guards: d.guards()}
		return a
	})
	if d.bad {
		return nil
	}
	return s
}
