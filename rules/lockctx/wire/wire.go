package wire

import (
	"encoding/binary"
	"sort"
)

// Encoder appends encoded values to Buf.
type Encoder struct {
	// Buf holds what was encoded so far.
	Buf []byte
}

// U appends an unsigned varint.
func (e *Encoder) U(v uint64) { e.Buf = binary.AppendUvarint(e.Buf, v) }

// I appends a signed varint.
func (e *Encoder) I(v int) { e.Buf = binary.AppendVarint(e.Buf, int64(v)) }

// S appends a string: its length (U) and its bytes.
func (e *Encoder) S(v string) { e.U(uint64(len(v))); e.Buf = append(e.Buf, v...) }

// Bytes appends a byte string: its length (U) and its bytes.
func (e *Encoder) Bytes(v []byte) { e.U(uint64(len(v))); e.Buf = append(e.Buf, v...) }

// Bool appends a boolean as the byte 1 or 0.
func (e *Encoder) Bool(v bool) {
	if v {
		e.Buf = append(e.Buf, 1)
	} else {
		e.Buf = append(e.Buf, 0)
	}
}

// StringMap appends m as its number of keys and the keys, sorted, each
// with its value.
func (e *Encoder) StringMap(m map[string]string) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	e.U(uint64(len(keys)))
	for _, k := range keys {
		e.S(k)
		e.S(m[k])
	}
}

// Decoder reads what an Encoder wrote from B, consuming it. Once Bad is
// set, B is nil and every read returns the zero value.
type Decoder struct {
	// B holds the bytes not read yet.
	B []byte
	// Bad is set when the bytes are not a valid encoding.
	Bad bool
}

// fail marks the decoder bad.
func (d *Decoder) fail() { d.Bad, d.B = true, nil }

// advance consumes n bytes, or fails when n is not positive (a varint
// read that found no valid varint).
func (d *Decoder) advance(n int) bool {
	if n <= 0 {
		d.fail()
		return false
	}
	d.B = d.B[n:]
	return true
}

// U reads an unsigned varint.
func (d *Decoder) U() uint64 {
	v, n := binary.Uvarint(d.B)
	if !d.advance(n) {
		return 0
	}
	return v
}

// I reads a signed varint.
func (d *Decoder) I() int {
	v, n := binary.Varint(d.B)
	if !d.advance(n) {
		return 0
	}
	return int(v)
}

// S reads a string.
func (d *Decoder) S() string {
	n := d.U()
	if n > uint64(len(d.B)) {
		d.fail()
		return ""
	}
	v := string(d.B[:n])
	d.B = d.B[n:]
	return v
}

// Bytes reads what Encoder.Bytes wrote, as a copy.
func (d *Decoder) Bytes() []byte {
	n := d.U()
	if n > uint64(len(d.B)) {
		d.fail()
		return nil
	}
	v := append([]byte(nil), d.B[:n]...)
	d.B = d.B[n:]
	return v
}

// Bool reads a boolean; a byte other than 0 or 1 is bad.
func (d *Decoder) Bool() bool {
	if len(d.B) == 0 || d.B[0] > 1 {
		d.fail()
		return false
	}
	v := d.B[0] == 1
	d.B = d.B[1:]
	return v
}

// SkipS skips a string.
func (d *Decoder) SkipS() {
	n := d.U()
	if n > uint64(len(d.B)) {
		d.fail()
		return
	}
	d.B = d.B[n:]
}

// Count reads a list length, refusing one longer than the bytes left
// (every element takes at least a byte).
func (d *Decoder) Count() int {
	n := d.U()
	if n > uint64(len(d.B)) {
		d.fail()
		return 0
	}
	return int(n)
}

// StringMap reads what Encoder.StringMap wrote (an empty map for none).
func (d *Decoder) StringMap() map[string]string {
	n := d.Count()
	m := make(map[string]string, n)
	for i := 0; i < n && !d.Bad; i++ {
		k := d.S()
		m[k] = d.S()
	}
	return m
}
