package registrations

import (
	"bytes"
	"encoding/gob"
	"reflect"
	"testing"
)

// TestStoreTree: the tree's registrations stored (through gob, as Prepare
// writes them) and read back on another index of the tree answer as the
// ones found, in order, members included; a table reads them instead of
// visiting the tree, unless they do not fit its rows.
func TestStoreTree(t *testing.T) {
	cbs := []Callback{
		{Names: []string{"register_cb"}, Arg: 0, Kind: "hardirq", Why: "a test callback"},
		{Names: []string{"register_nb"}, Arg: 0, Via: "notifier_call", Kind: "rcu", Why: "a notifier"},
	}
	found := New(Config{Index: openTree(t, regTree), ID: "test", Callbacks: cbs})
	found.Of("")
	s, ok := found.StoreTree()
	if !ok || len(s.Regs) < 4 || len(s.Files) != 4 {
		t.Fatalf("StoreTree = %d registrations, files %v, %v", len(s.Regs), s.Files, ok)
	}
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(s); err != nil {
		t.Fatal(err)
	}
	var back StoredRegs
	if err := gob.NewDecoder(&buf).Decode(&back); err != nil {
		t.Fatal(err)
	}
	read := func(s StoredRegs) *Table {
		tb := New(Config{Index: openTree(t, regTree), ID: "test", Callbacks: cbs,
			StoredRegs: func() (*StoredRegs, bool) { return &s, true }})
		tb.Of("")
		return tb
	}
	got := read(back)
	if g, w := regRows(got), regRows(found); !reflect.DeepEqual(g, w) {
		t.Errorf("registrations read back:\n got %q\nwant %q", g, w)
	}
	for _, fn := range []string{"ha", "hb", "hc"} {
		if g, w := steps(got.Of(fn)), steps(found.Of(fn)); !reflect.DeepEqual(g, w) {
			t.Errorf("registrations of %s read back: %v, want %v", fn, g, w)
		}
	}
	less := back
	less.Regs = nil
	for _, r := range back.Regs {
		if r.Func != "hc" {
			less.Regs = append(less.Regs, r)
		}
	}
	if g := read(less).Of("hc"); len(g) != 0 {
		t.Errorf("a table with stored registrations visited the tree: hc registered at %v", steps(g))
	}
	less.NRows++
	if g, w := steps(read(less).Of("hc")), steps(found.Of("hc")); !reflect.DeepEqual(g, w) {
		t.Errorf("stored registrations for other rows: hc registered at %v, want %v (found)", g, w)
	}
}
