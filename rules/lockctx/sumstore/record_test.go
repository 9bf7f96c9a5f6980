package sumstore

import (
	"bytes"
	"reflect"
	"sort"
	"testing"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/index"
	"github.com/autosel-bot/autosel-bot/report"
	"github.com/autosel-bot/autosel-bot/rules/lockctx/summary"
)

func sampleSummary() *summary.Summary {
	st := []report.Step{{Func: "f", File: "a.c", Line: 3, What: "calls g()"}, {Func: "g", File: "b.c", Line: -1, What: "mutex_lock(&m)"}}
	eff := []summary.Effect{{Kind: "spin", Key: "x->lock", Steps: st, Soft: true}}
	return &summary.Summary{
		Reach:        &summary.Reach{Steps: st, Prim: "mutex_lock", Why: "sleeps", Drops: eff, Retakes: eff, Weak: true},
		Acquires:     eff,
		CondAcquires: []summary.Effect{{Kind: "rcu", Steps: st[:1]}},
		Drops:        eff,
		ArgReaches: []summary.ArgReach{{Param: 2, Reach: summary.Reach{Steps: st, Prim: "kmalloc", Why: "GFP"},
			Call: cscan.Call{Name: "kmalloc", Args: []string{"n", "gfp"}, Line: 9, Guards: []cscan.Guard{{Kind: "if", Cond: "x", Line: 8}}}}},
	}
}

func sortedCopy(ss []string) []string {
	out := append([]string(nil), ss...)
	sort.Strings(out)
	return out
}

func TestRecordRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		name    string
		deps    []index.Ref
		members []string
		sum     *summary.Summary
	}{
		{"empty", nil, nil, nil},
		{"summary", []index.Ref{9, 3, 3, 1 << 40}, []string{"release", "open", "release"}, sampleSummary()},
		{"no effects", []index.Ref{1}, nil, &summary.Summary{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := encodeRecord(append([]index.Ref(nil), tc.deps...), []index.Ref{7, 2}, append([]string(nil), tc.members...), tc.sum)
			rec, ok := decodeRecordFull(b)
			if !ok {
				t.Fatal("decodeRecordFull failed")
			}
			// The lazy decoding finds the same reverse deps and summary.
			lazy, ok := decodeRecord(b)
			if !ok || lazy.deps != nil || lazy.members != nil || !bytes.Equal(lazy.rest, rec.rest) {
				t.Errorf("decodeRecord: %v %+v, full %+v", ok, lazy, rec)
			}
			wantDeps := map[index.Ref]bool{}
			for _, d := range tc.deps {
				wantDeps[d] = true
			}
			if len(rec.deps) != len(wantDeps) {
				t.Errorf("deps %v, want the set of %v", rec.deps, tc.deps)
			}
			for i, d := range rec.deps {
				if !wantDeps[d] || i > 0 && rec.deps[i-1] >= d {
					t.Errorf("deps %v, want the sorted set of %v", rec.deps, tc.deps)
				}
			}
			if rd, ok := rdepsOf(b); !ok || len(rd) != 2 || rd[0] != 2 || rd[1] != 7 {
				t.Errorf("eachRdep gives %v (%v), want [2 7]", rd, ok)
			}
			if len(rec.members) != len(dedupStrings(sortedCopy(tc.members))) {
				t.Errorf("members %v, want the set of %v", rec.members, tc.members)
			}
			if (rec.rest != nil) != (tc.sum != nil) {
				t.Fatalf("summary present %v, want %v", rec.rest != nil, tc.sum != nil)
			}
			if tc.sum == nil {
				return
			}
			got, ok := summary.Decode(rec.rest)
			if !ok || !reflect.DeepEqual(got, tc.sum) {
				t.Errorf("summary round trip:\n got %+v\nwant %+v", got, tc.sum)
			}
		})
	}
}

func FuzzDecodeRecord(f *testing.F) {
	f.Add(encodeRecord([]index.Ref{1, 5}, []index.Ref{3}, []string{"m"}, sampleSummary()))
	f.Add(encodeRecord(nil, nil, nil, nil))
	f.Add([]byte{1, 200, 200, 200})
	f.Fuzz(func(t *testing.T, b []byte) {
		rec, ok := decodeRecordFull(b)
		if lazy, lok := decodeRecord(b); lok != ok || ok && !bytes.Equal(lazy.rest, rec.rest) {
			t.Fatalf("decodeRecord %v %+v, full %v %+v", lok, lazy, ok, rec)
		}
		if !ok || rec.rest == nil {
			return
		}
		s, ok := summary.Decode(rec.rest)
		if !ok {
			return
		}
		// What decodes re-encodes to the same bytes.
		rdeps, _ := rdepsOf(b)
		again := encodeRecord(rec.deps, rdeps, rec.members, s)
		rec2, ok := decodeRecord(again)
		if !ok {
			t.Fatal("re-encoded record does not decode")
		}
		if s2, ok := summary.Decode(rec2.rest); !ok || !reflect.DeepEqual(s, s2) {
			t.Fatalf("summary changed on a second round trip")
		}
	})
}

func TestRenumberWhat(t *testing.T) {
	moved := map[string]map[int]int{"drivers/a.c": {120: 125}}
	for _, tc := range []struct{ in, want string }{
		{"calls f() via ops.m (assigned at drivers/a.c:120)", "calls f() via ops.m (assigned at drivers/a.c:125)"},
		{"calls f() via ops.m (assigned at drivers/a.c:120, matched by member name)", "calls f() via ops.m (assigned at drivers/a.c:125, matched by member name)"},
		{"calls f() via ops.m (assigned at drivers/a.c:121)", "calls f() via ops.m (assigned at drivers/a.c:121)"},
		{"calls f() via ops.m (assigned at drivers/b.c:120)", "calls f() via ops.m (assigned at drivers/b.c:120)"},
		{"calls f()", "calls f()"},
		{"(assigned at nocolon", "(assigned at nocolon"},
	} {
		if got := renumberWhat(tc.in, moved); got != tc.want {
			t.Errorf("renumberWhat(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// rdepsOf returns the reverse deps of an encoded record (eachRdep).
func rdepsOf(b []byte) ([]index.Ref, bool) {
	var out []index.Ref
	ok := eachRdep(b, func(r index.Ref) { out = append(out, r) })
	return out, ok
}
