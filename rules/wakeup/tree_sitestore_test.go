package wakeup

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/autosel-bot/autosel-bot/index"
)

// TestWakeupSiteStore: the stored sites give, for every identifier, the
// calls the tree's scan gives, and the rule's findings with the store are
// those without; a store of another generation is not read.
func TestWakeupSiteStore(t *testing.T) {
	dir := pipeTree(t)
	cache := t.TempDir()
	open := func() *index.Index {
		t.Helper()
		ix, err := index.Open(context.Background(), dir, index.Options{CacheDir: cache})
		if err != nil {
			t.Fatal(err)
		}
		return ix
	}
	p := defaultPrims(t)
	diff := casePatch(t, "linux61-pipe-release-narrowed")
	ix := open()
	if loadSites(p, ix) != nil {
		t.Fatal("sites stored before Prepare")
	}
	want := runWakeupDiff(t, "", treePass(t, diff, ix, dir))
	if len(want) == 0 {
		t.Fatal("no findings to compare")
	}
	// What an older version of the store left goes when it is written.
	older := strings.Replace(ix.SideName(sitesKind(p)), fmt.Sprintf("-v%d-", siteVersion), "-v0-", 1)
	if err := os.WriteFile(older, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := prepareSites(context.Background(), p, ix, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(older); !os.IsNotExist(err) {
		t.Errorf("older store %s kept (%v)", older, err)
	}
	again := open()
	words := loadSites(p, again)
	if words == nil {
		t.Fatal("a second index does not find the stored sites")
	}
	stored := &primSiteSet{stored: words, ix: again, done: map[string][]treeCall{}}
	if n := len(scanSites(p, again).byWord); len(words) != n || n == 0 {
		t.Errorf("%d identifiers stored, %d scanned", len(words), n)
	}
	sameSites(t, "tree", stored, scanSites(p, again))
	// Over an overlay (the earlier patches of a series), the rescanned
	// files' calls replace the stored ones, in the order of the view.
	src, err := again.ReadFile("fs/pipe.c")
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(src), "\nvoid pipe_wait_readable(", "\nstatic void added(struct pipe_inode_info *pipe)\n{\n\twake_up_interruptible(&pipe->rd_wait);\n}\n\nvoid pipe_wait_readable(", 1)
	if edited == string(src) {
		t.Fatal("fs/pipe.c lacks pipe_wait_readable")
	}
	view := again.Overlay(map[string][]byte{"fs/pipe.c": []byte(edited)})
	overStored := &primSiteSet{stored: words, ix: again, view: view, over: newPrimSites(overlayCalls(p, view)), done: map[string][]treeCall{}}
	sameSites(t, "overlay", overStored, scanSites(p, view))
	if n := len(overStored.on("rd_wait")); n != len(stored.on("rd_wait"))+1 {
		t.Errorf("overlay: %d calls on rd_wait, want one more than the tree's %d", n, len(stored.on("rd_wait")))
	}
	got := runWakeupDiff(t, "", treePass(t, diff, again, dir))
	ja, _ := json.Marshal(got)
	jb, _ := json.Marshal(want)
	if string(ja) != string(jb) {
		t.Errorf("findings with stored sites:\n%s\nwithout:\n%s", ja, jb)
	}
	// A current store is not written again.
	path := again.SideName(sitesKind(p))
	before, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := prepareSites(context.Background(), p, open(), nil); err != nil {
		t.Fatal(err)
	}
	if after, err := os.Stat(path); err != nil || !after.ModTime().Equal(before.ModTime()) {
		t.Errorf("a current store was written again (%v)", err)
	}
	// Another generation's store is not read.
	if err := writeSites(path, "other", words); err != nil {
		t.Fatal(err)
	}
	if loadSites(p, open()) != nil {
		t.Error("a store of another generation was read")
	}
}

// scanSites returns the primitive calls of view as primSites computes them
// without a store.
func scanSites(p *prims, view *index.Index) *primSiteSet {
	var calls []treeCall
	for _, s := range view.CallsTo(p.isPrimitive) {
		calls = append(calls, treeCall{Func: s.Func, Call: s.Call})
	}
	return newPrimSites(calls)
}

// sameSites checks that stored gives, for every identifier, the calls
// scanned gives, in the same order.
func sameSites(t *testing.T, what string, stored, scanned *primSiteSet) {
	t.Helper()
	for w := range scanned.byWord {
		a, b := stored.on(w), scanned.on(w)
		if len(a) != len(b) {
			t.Errorf("%s %s: %d stored calls, %d scanned", what, w, len(a), len(b))
			continue
		}
		for i := range a {
			if a[i].Func != b[i].Func || !reflect.DeepEqual(a[i].Call, b[i].Call) {
				t.Errorf("%s %s: call %d is %s:%d %s, scanned %s:%d %s", what, w, i, a[i].Func.File, a[i].Call.Line, a[i].Call.Name,
					b[i].Func.File, b[i].Call.Line, b[i].Call.Name)
			}
		}
	}
}
