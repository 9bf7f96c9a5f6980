package summary

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/report"
)

func sampleSummary() *Summary {
	st := []report.Step{{Func: "f", File: "a.c", Line: 3, What: "calls g()"}, {Func: "g", File: "b.c", Line: -1, What: "mutex_lock(&m)"}}
	eff := []Effect{{Kind: "spin", Key: "x->lock", Steps: st, Soft: true}}
	return &Summary{
		Reach:        &Reach{Steps: st, Prim: "mutex_lock", Why: "sleeps", Drops: eff, Retakes: eff, Weak: true},
		Acquires:     eff,
		CondAcquires: []Effect{{Kind: "rcu", Steps: st[:1]}},
		Drops:        eff,
		ArgReaches: []ArgReach{{Param: 2, Reach: Reach{Steps: st, Prim: "kmalloc", Why: "GFP", Cond: &ParamCond{Param: 1, True: true, Strict: true}},
			Call: cscan.Call{Name: "kmalloc", Args: []string{"n", "gfp"}, Line: 9, Guards: []cscan.Guard{{Kind: "if", Cond: "x", Line: 8}}}}},
		Alt: &Reach{Steps: st[:1], Prim: "kzalloc", Why: "GFP_KERNEL", Cond: &ParamCond{Param: 2, Bit: "ATOMIC", Strict: true}},
	}
}

// TestRoundTrip: what Append writes Decode reads back, all of it, and a
// byte more or less is refused.
func TestRoundTrip(t *testing.T) {
	for name, s := range map[string]*Summary{"full": sampleSummary(), "empty": {}} {
		b := Append([]byte("prefix"), s)
		got, ok := Decode(b[len("prefix"):])
		if !ok || !reflect.DeepEqual(got, s) {
			t.Errorf("%s: round trip %v\n got %+v\nwant %+v", name, ok, got, s)
		}
		if _, ok := Decode(append(b[len("prefix"):], 0)); ok {
			t.Errorf("%s: a trailing byte decodes", name)
		}
		if _, ok := Decode(b[len("prefix") : len(b)-1]); ok {
			t.Errorf("%s: a truncated encoding decodes", name)
		}
	}
}

func FuzzDecode(f *testing.F) {
	f.Add(Append(nil, sampleSummary()))
	f.Add(Append(nil, &Summary{}))
	f.Add([]byte{1, 200, 200, 200})
	f.Fuzz(func(t *testing.T, b []byte) {
		s, ok := Decode(b)
		if !ok {
			return
		}
		// What decodes re-encodes to the same summary.
		s2, ok := Decode(Append(nil, s))
		if !ok || !reflect.DeepEqual(s, s2) {
			t.Fatalf("summary changed on a second round trip")
		}
	})
}

// TestShape: AppendShape leaves out every line number (steps, guards, an
// argument reach's call) and nothing else.
func TestShape(t *testing.T) {
	base := AppendShape(nil, sampleSummary())
	moved := sampleSummary()
	moved.Reach.Steps = []report.Step{{Func: "f", File: "a.c", Line: 30, What: "calls g()"}, {Func: "g", File: "b.c", Line: 7, What: "mutex_lock(&m)"}}
	moved.ArgReaches[0].Call.Line = 90
	moved.ArgReaches[0].Call.Guards = []cscan.Guard{{Kind: "if", Cond: "x", Line: 80}}
	if !bytes.Equal(AppendShape(nil, moved), base) {
		t.Error("summaries that differ only in lines have different shapes")
	}
	if bytes.Equal(Append(nil, moved), Append(nil, sampleSummary())) {
		t.Error("Append leaves lines out")
	}
	for name, change := range map[string]func(*Summary){
		"what": func(s *Summary) { s.Reach.Steps = []report.Step{{Func: "f", File: "a.c", Line: 3, What: "calls h()"}} },
		"file": func(s *Summary) {
			s.Acquires = []Effect{{Kind: "spin", Key: "x->lock", Steps: []report.Step{{File: "c.c"}}}}
		},
		"guard": func(s *Summary) { s.ArgReaches[0].Call.Guards = nil },
		"reach": func(s *Summary) { s.Reach = nil },
		"alt":   func(s *Summary) { s.Alt = nil },
	} {
		s := sampleSummary()
		change(s)
		if bytes.Equal(AppendShape(nil, s), base) {
			t.Errorf("%s: a change besides lines keeps the shape", name)
		}
	}
}
