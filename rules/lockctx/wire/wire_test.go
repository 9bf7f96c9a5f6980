package wire

import (
	"reflect"
	"testing"
)

// TestRoundTrip: what an Encoder writes, a Decoder reads back whole.
func TestRoundTrip(t *testing.T) {
	var e Encoder
	e.U(300)
	e.I(-7)
	e.S("spin_lock")
	e.Bool(true)
	e.StringMap(map[string]string{"b": "2", "a": "1"})
	e.Bytes([]byte{0, 0xff})
	d := Decoder{B: e.Buf}
	got := []any{d.U(), d.I(), d.S(), d.Bool(), d.StringMap(), d.Bytes()}
	want := []any{uint64(300), -7, "spin_lock", true, map[string]string{"a": "1", "b": "2"}, []byte{0, 0xff}}
	if !reflect.DeepEqual(got, want) || d.Bad || len(d.B) != 0 {
		t.Errorf("decoded %v (bad %v, %d left), want %v", got, d.Bad, len(d.B), want)
	}
}

// TestBad: a read past the end or of a bad value marks the decoder bad.
func TestBad(t *testing.T) {
	tests := []struct {
		name string
		b    []byte
		read func(d *Decoder)
	}{
		{"empty varint", nil, func(d *Decoder) { d.U() }},
		{"string past the end", []byte{5, 'a'}, func(d *Decoder) { d.S() }},
		{"skip past the end", []byte{5, 'a'}, func(d *Decoder) { d.SkipS() }},
		{"bytes past the end", []byte{3, 'a'}, func(d *Decoder) { d.Bytes() }},
		{"bool 2", []byte{2}, func(d *Decoder) { d.Bool() }},
		{"count past the end", []byte{9, 0}, func(d *Decoder) { d.Count() }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := Decoder{B: tt.b}
			tt.read(&d)
			if !d.Bad || d.B != nil {
				t.Errorf("Bad %v, B %v; want bad and nil", d.Bad, d.B)
			}
		})
	}
}

// TestStringMapSorted: equal maps encode to equal bytes.
func TestStringMapSorted(t *testing.T) {
	var a, b Encoder
	a.StringMap(map[string]string{"x": "1", "y": "2", "z": "3"})
	b.StringMap(map[string]string{"z": "3", "x": "1", "y": "2"})
	if string(a.Buf) != string(b.Buf) {
		t.Errorf("%q != %q", a.Buf, b.Buf)
	}
}
