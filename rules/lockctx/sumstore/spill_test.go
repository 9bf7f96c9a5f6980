package sumstore

import (
	"bytes"
	"context"
	"os"
	"testing"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/index"
	"github.com/autosel-bot/autosel-bot/index/indextest"
	"github.com/autosel-bot/autosel-bot/rules/lockctx/registrations"
	"github.com/autosel-bot/autosel-bot/rules/lockctx/summary"
)

// readEngine is callEngine that also reads back, as a view would, the
// records of the callees summarised before (in earlier windows, spilled
// to the partial file): a callee read back with a reach gives a reach.
// It puts each record twice (a placeholder first), and puts the record
// of a callee already summarised again (in an earlier window, or earlier
// in this one); truncate, when set, empties the partial file at function
// truncateAt.
type readEngine struct {
	callEngine
	read       *int
	truncate   string
	truncateAt string
}

func (e readEngine) SummaryOf(fn *cscan.Func) *summary.Summary {
	if fn.Name == e.truncateAt {
		if err := os.Truncate(e.truncate, int64(len(partialMagic))); err != nil {
			panic(err)
		}
	}
	var deps []index.Ref
	s := &summary.Summary{}
	for _, c := range fn.Calls {
		for _, g := range e.ix.Funcs(c.Name) {
			ref, ok := e.ix.RefOf(g)
			if !ok {
				continue
			}
			deps = append(deps, ref)
			if rec, ok := decodeRecord(e.b.get(ref)); ok {
				*e.read++
				if cs, ok := summary.Decode(rec.rest); ok && cs.Reach != nil {
					s.Reach = &summary.Reach{Prim: cs.Reach.Prim}
				}
				e.b.Put(ref, nil, []string{"again"}, &summary.Summary{Reach: &summary.Reach{Prim: "again:" + g.Name}})
			}
		}
		if c.Name == "sleep_long" {
			s.Reach = &summary.Reach{Prim: c.Name}
		}
	}
	if ref, ok := e.ix.RefOf(fn); ok {
		e.b.Put(ref, nil, nil, nil)
		e.b.Put(ref, deps, nil, s)
	}
	return s
}

// TestPrepareSpills: a persisted Prepare keeps only the current window's
// records in memory, reads the earlier ones back from its partial file,
// and writes the store an in-memory Prepare holds, record for record.
func TestPrepareSpills(t *testing.T) {
	const id = "0123456789abcdef0123"
	sm := func(read *int) Summariser {
		return Summariser{ID: id, Window: 2,
			Engine: func(ix *index.Index, b *Builder) Engine { return readEngine{callEngine: callEngine{ix, b}, read: read} },
			Rows:   func(*index.Index) []registrations.Callback { return nil }}
	}
	tree := resumeTree()
	mem, disk := indextest.Open(t, tree), indextest.OpenCached(t, tree)
	var readMem, readDisk int
	if err := Prepare(context.Background(), mem, sm(&readMem), nil); err != nil {
		t.Fatal(err)
	}
	if err := Prepare(context.Background(), disk, sm(&readDisk), nil); err != nil {
		t.Fatal(err)
	}
	if readDisk == 0 || readDisk != readMem {
		t.Errorf("records read back: %d from the partial file, %d in memory", readDisk, readMem)
	}
	again, err := index.Open(context.Background(), disk.Root, index.Options{CacheDir: disk.CacheDir()})
	if err != nil {
		t.Fatal(err)
	}
	a, b := Open(mem, id), Open(again, id)
	if a == nil || b == nil {
		t.Fatal("no store")
	}
	n := 0
	for i := range mem.NumFiles() {
		for _, ref := range mem.FileRefs(i) {
			if x, y := a.get(ref), b.get(ref); !bytes.Equal(x, y) {
				t.Errorf("%v: stored %x, in memory %x", ref, y, x)
			} else if len(x) > 0 {
				n++
			}
		}
	}
	if n != 20 {
		t.Errorf("%d records, want 20", n)
	}
}

// TestPrepareSpillReadFails: a record that cannot be read back from the
// partial file fails the Prepare, and no store is written.
func TestPrepareSpillReadFails(t *testing.T) {
	const id = "0123456789abcdef0123"
	ix := indextest.OpenCached(t, resumeTree())
	pp := partialPath(ix.SideName(summaryKind(id)))
	read := 0
	sm := Summariser{ID: id, Window: 2,
		Engine: func(ix *index.Index, b *Builder) Engine {
			return readEngine{callEngine: callEngine{ix, b}, read: &read, truncate: pp, truncateAt: "f8_a"}
		},
		Rows: func(*index.Index) []registrations.Callback { return nil }}
	if err := Prepare(context.Background(), ix, sm, nil); err == nil {
		t.Fatal("Prepare did not fail")
	}
	again, err := index.Open(context.Background(), ix.Root, index.Options{CacheDir: ix.CacheDir()})
	if err != nil {
		t.Fatal(err)
	}
	if Open(again, id) != nil {
		t.Error("a store was written")
	}
}
