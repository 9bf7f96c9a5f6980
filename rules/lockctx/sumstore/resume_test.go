package sumstore

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/index"
	"github.com/autosel-bot/autosel-bot/index/indextest"
	"github.com/autosel-bot/autosel-bot/rules/lockctx/registrations"
	"github.com/autosel-bot/autosel-bot/rules/lockctx/summary"
)

// resumeTree has ten files of two functions each; f<i>_b calls into the
// next file and f<i>_a sleeps in every third file.
func resumeTree() map[string]string {
	files := map[string]string{}
	for i := range 10 {
		a := "\tx++;\n"
		if i%3 == 0 {
			a = "\tsleep_long();\n"
		}
		files[fmt.Sprintf("d/f%d.c", i)] = fmt.Sprintf("void f%d_a(int x)\n{\n%s}\n\nvoid f%d_b(int x)\n{\n\tf%d_a(x);\n\tf%d_b(x);\n}\n",
			i, a, i, (i+1)%10, (i+1)%10)
	}
	return files
}

// stopEngine is a callEngine that counts the functions it is asked for
// and cancels its Prepare when asked for stopAt.
type stopEngine struct {
	callEngine
	asked  *int
	stopAt string
	cancel context.CancelFunc
}

func (e stopEngine) SummaryOf(fn *cscan.Func) *summary.Summary {
	*e.asked++
	if fn.Name == e.stopAt {
		e.cancel()
	}
	return e.callEngine.SummaryOf(fn)
}

// TestPrepareResumes: a Prepare stopped in the middle keeps the windows
// it finished in the partial file; the next Prepare summarises only the
// files after them and writes the store an uninterrupted Prepare writes,
// byte for byte. A torn tail is cut at the last complete window, and a
// partial file of another generation is started anew.
func TestPrepareResumes(t *testing.T) {
	ix := indextest.OpenCached(t, resumeTree())
	const id = "0123456789abcdef0123"
	// sm prepares two files a window; stopAt cancels the Prepare.
	sm := func(asked *int, stopAt string, cancel context.CancelFunc) Summariser {
		return Summariser{ID: id, Window: 2,
			Engine: func(ix *index.Index, b *Builder) Engine {
				return stopEngine{callEngine{ix, b}, asked, stopAt, cancel}
			},
			Rows: func(*index.Index) []registrations.Callback { return nil }}
	}
	path := ix.SideName(summaryKind(id))
	// take reads and removes the store's files.
	take := func() map[string][]byte {
		t.Helper()
		out := map[string][]byte{}
		paths, _ := filepath.Glob(filepath.Join(ix.CacheDir(), "*summaries*"))
		for _, p := range paths {
			if strings.HasSuffix(p, ".lock") {
				continue
			}
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			out[filepath.Base(p)] = b
			if err := os.Remove(p); err != nil {
				t.Fatal(err)
			}
		}
		return out
	}
	fresh := func() *index.Index {
		t.Helper()
		again, err := index.Open(context.Background(), ix.Root, index.Options{CacheDir: ix.CacheDir()})
		if err != nil {
			t.Fatal(err)
		}
		return again
	}
	// prepare runs a Prepare on a fresh Index, stopped when it reaches
	// stopAt (none: ""), and returns how many functions it summarised.
	prepare := func(stopAt string) (int, error) {
		t.Helper()
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		asked := 0
		err := Prepare(ctx, fresh(), sm(&asked, stopAt, cancel), nil)
		return asked, err
	}

	all, err := prepare("")
	if err != nil {
		t.Fatal(err)
	}
	if all != 20 {
		t.Fatalf("%d functions summarised, want 20", all)
	}
	want := take()
	if _, ok := want[filepath.Base(partialPath(path))]; ok {
		t.Error("partial file left beside a complete store")
	}

	// Stopped in the third window (files 4 and 5), which it finishes
	// (the context is read between files every 256, and between
	// windows): three windows kept.
	if _, err := prepare("f5_a"); err == nil {
		t.Fatal("a cancelled Prepare returned no error")
	}
	if Open(fresh(), id) != nil {
		t.Fatal("a stopped Prepare left a store")
	}
	partial, err := os.ReadFile(partialPath(path))
	if err != nil {
		t.Fatalf("no partial file after a stopped Prepare: %v", err)
	}
	// A kill in the middle of the next window's write left a torn tail:
	// a whole record with no mark after it, then half of one.
	torn := append(bytes.Clone(partial), partialRecord, 0x01, 0x02, 0xAA, 0xBB)
	torn = append(torn, partialRecord, 0x85)
	if err := os.WriteFile(partialPath(path), torn, 0o600); err != nil {
		t.Fatal(err)
	}
	n, err := prepare("")
	if err != nil {
		t.Fatal(err)
	}
	if n != 8 {
		t.Errorf("resumed Prepare summarised %d functions, want the 8 of files 6-9", n)
	}
	got := take()
	for name, w := range want {
		if !bytes.Equal(got[name], w) {
			t.Errorf("%s: %d bytes after a resumed Prepare, %d after an uninterrupted one", name, len(got[name]), len(w))
		}
	}
	if len(got) != len(want) {
		t.Errorf("%d files after a resumed Prepare, want %d", len(got), len(want))
	}

	// A partial file of another window size is not replayed.
	if err := os.WriteFile(partialPath(path), partial, 0o600); err != nil {
		t.Fatal(err)
	}
	asked := 0
	other := sm(&asked, "", func() {})
	other.Window = 3
	if err := Prepare(context.Background(), fresh(), other, nil); err != nil || asked != 20 {
		t.Errorf("Prepare over a partial file of another window size summarised %d functions (%v), want 20", asked, err)
	}
	take()

	// A partial file of another generation of the tree is not replayed.
	stale := bytes.Replace(partial, []byte(ix.Generation()), []byte(strings.Repeat("0", len(ix.Generation()))), 1)
	if bytes.Equal(stale, partial) {
		t.Fatal("generation not found in the partial file")
	}
	if err := os.WriteFile(partialPath(path), stale, 0o600); err != nil {
		t.Fatal(err)
	}
	if n, err := prepare(""); err != nil || n != 20 {
		t.Errorf("Prepare over a stale partial file summarised %d functions (%v), want 20", n, err)
	}
	got = take()
	if !bytes.Equal(got[filepath.Base(path)], want[filepath.Base(path)]) {
		t.Error("the store written over a stale partial file differs")
	}

	// A partial file left beside a complete store (a kill between the two)
	// goes with the next Prepare, which finds the store.
	if _, err := prepare(""); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(partialPath(path), partial, 0o600); err != nil {
		t.Fatal(err)
	}
	if n, err := prepare(""); err != nil || n != 0 {
		t.Errorf("Prepare with the store there summarised %d functions (%v)", n, err)
	}
	if _, err := os.Stat(partialPath(path)); !os.IsNotExist(err) {
		t.Errorf("partial file beside a complete store kept: %v", err)
	}
}
