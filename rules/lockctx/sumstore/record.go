package sumstore

import (
	"sort"

	"github.com/autosel-bot/autosel-bot/index"
	"github.com/autosel-bot/autosel-bot/rules/lockctx/summary"
	"github.com/autosel-bot/autosel-bot/rules/lockctx/wire"
)

// A stored record (prepare.go) is what the engine learnt about one tree
// function while summarising the whole tree: the functions and struct
// members its summary was computed from (to tell whether a patch changes
// it) and, when the summary is the same for every entry into the call
// graph (not part of a recursive component), the summary itself.
//
// Encoding: u8 flags (recHasSummary), the deps and then the reverse deps
// (the functions whose summaries were computed from this one), each a
// uvarint count and the refs ascending as uvarint deltas, uvarint number
// of members and the member names, then the summary. Strings are a
// uvarint length and bytes. The summary is package summary's encoding
// (summary.Append).
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
func encodeRecord(deps, rdeps []index.Ref, members []string, s *summary.Summary) []byte {
	e := &recEncoder{}
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
		e.Buf = summary.Append(e.Buf, s)
	}
	return e.Buf
}

// refs encodes a set of refs (sorted and deduplicated in place).
func (e *recEncoder) refs(rs []index.Ref) {
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
func (d *recDecoder) eachRef(f func(index.Ref)) {
	n := d.Count()
	prev := uint64(0)
	for i := 0; i < n && !d.Bad; i++ {
		prev += d.U()
		if !d.Bad {
			f(index.Ref(prev))
		}
	}
}

func (d *recDecoder) refs() []index.Ref {
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
	d := &recDecoder{wire.Decoder{B: b[1:]}}
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
	d := &recDecoder{wire.Decoder{B: b[1:]}}
	d.skipRefs()
	d.eachRef(f)
	return !d.Bad
}

// recEncoder encodes records.
type recEncoder struct {
	wire.Encoder
}

// recDecoder reads what recEncoder wrote; Bad is set at the first error,
// after which every read returns zero values.
type recDecoder struct {
	wire.Decoder
}

// skipRefs skips a list of refs (see refs).
func (d *recDecoder) skipRefs() {
	n := d.Count()
	for i := 0; i < n && !d.Bad; i++ {
		d.U()
	}
}
