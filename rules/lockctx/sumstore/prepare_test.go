package sumstore

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/index"
	"github.com/autosel-bot/autosel-bot/index/indextest"
	"github.com/autosel-bot/autosel-bot/report"
	"github.com/autosel-bot/autosel-bot/rules/lockctx/registrations"
	"github.com/autosel-bot/autosel-bot/rules/lockctx/summary"
)

// callEngine is an engine for Prepare that records, for each function,
// the functions it calls by name as its deps and "*.member" for a call
// through a member; a function whose name starts with "sleep" reaches
// the target, and so does its caller.
type callEngine struct {
	ix *index.Index
	b  *Builder
}

func (e callEngine) SummaryOf(fn *cscan.Func) *summary.Summary {
	var deps []index.Ref
	var members []string
	s := &summary.Summary{}
	for _, c := range fn.Calls {
		if i := strings.LastIndexAny(c.Name, ">."); i >= 0 {
			members = append(members, "*."+c.Name[i+1:])
			continue
		}
		if strings.HasPrefix(c.Name, "sleep") {
			s.Reach = &summary.Reach{Prim: c.Name}
		}
		for _, g := range e.ix.Funcs(c.Name) {
			if ref, ok := e.ix.RefOf(g); ok {
				deps = append(deps, ref)
			}
		}
	}
	if ref, ok := e.ix.RefOf(fn); ok {
		e.b.Put(ref, deps, members, s)
	}
	return s
}

func (callEngine) Forget(*cscan.Func) bool { return false }
func (callEngine) Reset()                  {}

var prepareTree = map[string]string{
	"a.c": "void leaf(void)\n{\n\tsleep_long();\n}\n\nvoid mid(void)\n{\n\tleaf();\n}\n",
	"b.c": "void top(struct s *p)\n{\n\tmid();\n\tp->run();\n}\n\nvoid other(void)\n{\n\tleaf();\n}\n",
}

// TestPrepareFiles: Prepare writes the store beside a persisted index (a
// second Index of the tree opens it), with its reverse deps alone in a
// side file of their own that agrees with the records, the member index
// and the rows; it removes an older version's store and keeps a newer
// version's and another model's.
func TestPrepareFiles(t *testing.T) {
	ix := indextest.OpenCached(t, prepareTree)
	const id = "0123456789abcdef0123"
	rows := []registrations.Callback{{Names: []string{"register_cb"}, Kind: "hardirq", Why: "a test callback"}}
	regs := registrations.StoredRegs{NRows: 1, Files: []string{"a.c"}, Regs: []registrations.StoredReg{{Func: "h", Step: report.Step{Func: "reg", File: "a.c", Line: 3}, File: "a.c", Name: "register_cb", Start: 1}}}
	sm := Summariser{ID: id, Engine: func(ix *index.Index, b *Builder) Engine { return callEngine{ix, b} },
		Rows: func(*index.Index) []registrations.Callback { return rows },
		Regs: func(_ *index.Index, got []registrations.Callback) (registrations.StoredRegs, bool) {
			if !reflect.DeepEqual(got, rows) {
				t.Errorf("Regs given rows %+v, want Rows' %+v", got, rows)
			}
			return regs, true
		}}
	if Open(ix, id) != nil {
		t.Fatal("stored before Prepare")
	}
	cur := ix.SideName(summaryKind(id))
	old := strings.Replace(cur, fmt.Sprintf("summaries-v%d-", sumVersion), "summaries-v1-", 1)
	newer := strings.Replace(cur, fmt.Sprintf("summaries-v%d-", sumVersion), fmt.Sprintf("summaries-v%d-", sumVersion+10), 1)
	other := strings.Replace(old, id[:16], "fedcba9876543210", 1)
	for _, f := range []string{old, newer, other} {
		if err := os.WriteFile(f, []byte("old"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := Prepare(context.Background(), ix, sm, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(old); !os.IsNotExist(err) {
		t.Errorf("older version's store kept: %v", err)
	}
	for _, f := range []string{newer, other} {
		if _, err := os.Stat(f); err != nil {
			t.Errorf("%s removed: %v", filepath.Base(f), err)
		}
	}
	again, err := index.Open(context.Background(), ix.Root, index.Options{CacheDir: ix.CacheDir()})
	if err != nil {
		t.Fatal(err)
	}
	side, ok := Open(again, id).(*sideSource)
	if !ok {
		t.Fatal("a second Index does not see the store")
	}
	if got, ok := side.wrapperRows(); !ok || !reflect.DeepEqual(got, rows) {
		t.Errorf("stored rows %+v (%v), want %+v", got, ok, rows)
	}
	regs.Generation = again.Generation()
	if got, ok := side.treeRegs(); !ok || !reflect.DeepEqual(*got, regs) {
		t.Errorf("stored registrations %+v (%v), want %+v", got, ok, regs)
	}
	if side.rd == nil {
		t.Fatal("no reverse deps side file")
	}
	ref := func(name string) index.Ref {
		r, _ := again.RefOf(again.Funcs(name)[0])
		return r
	}
	if refs, ok := side.memberRefs("*.run"); !ok || !reflect.DeepEqual(refs, []index.Ref{ref("top")}) {
		t.Errorf("member *.run: %v %v, want top", refs, ok)
	}
	var rdeps []string
	for i := 0; i < again.NumFiles(); i++ {
		for _, r := range again.FileRefs(i) {
			var fromRec, fromSide []index.Ref
			eachRdep(side.get(r), func(p index.Ref) { fromRec = append(fromRec, p) })
			side.eachRdep(r, func(p index.Ref) { fromSide = append(fromSide, p) })
			if !reflect.DeepEqual(fromRec, fromSide) {
				t.Errorf("%v: reverse deps %v in the record, %v in the side file", r, fromRec, fromSide)
			}
			for _, p := range fromRec {
				rdeps = append(rdeps, again.FuncOf(r).Name+"<-"+again.FuncOf(p).Name)
			}
		}
	}
	slices.Sort(rdeps)
	if want := []string{"leaf<-mid", "leaf<-other", "mid<-top"}; !reflect.DeepEqual(rdeps, want) {
		t.Errorf("reverse deps %v, want %v", rdeps, want)
	}
	v := NewView(Open(again, id), again, nil)
	if s := v.Stored(ref("leaf")); s == nil || s.Reach == nil || s.Reach.Prim != "sleep_long" {
		t.Errorf("leaf's stored summary: %+v", s)
	}
}
