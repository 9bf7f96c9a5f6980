package index

import (
	"bytes"
	"context"
	"reflect"
	"testing"

	"github.com/autosel-bot/autosel-bot/internal/testtree"

	"github.com/autosel-bot/autosel-bot/cscan"
)

// TestFullSourceBound: re-parsed functions are dropped once their sources pass
// maxFullSource, least recently used first, and a dropped file is parsed
// again into an equal value.
func TestFullSourceBound(t *testing.T) {
	dir := t.TempDir()
	// Three functions of 40% of the bound each (with the padding above
	// them, which their re-parse reads): the third pushes one out.
	pad := bytes.Repeat([]byte("/* padding */\n"), maxFullSource*4/10/14)
	files := map[string]string{}
	for _, f := range []string{"a", "b", "c"} {
		files[f+".c"] = string(pad) + "void " + f + "(void)\n{\n\tspin_lock(&l);\n}\n"
	}
	testtree.Write(t, dir, files)
	ix, err := Open(context.Background(), dir, Options{CacheDir: "-"})
	if err != nil {
		t.Fatal(err)
	}
	full := func(name string) *cscan.Func {
		t.Helper()
		fn := ix.Full(ix.Funcs(name)[0])
		if fn == nil || fn.Body == nil {
			t.Fatalf("%s: not re-parsed", name)
		}
		return fn
	}
	a, b := full("a"), full("b")
	if full("a") != a {
		t.Fatal("a parsed again while cached")
	}
	full("c") // b is the least recently used
	ix.mu.Lock()
	_, aKept := ix.full.byKey["a.c\x000"]
	_, bKept := ix.full.byKey["b.c\x000"]
	n, sum := ix.full.order.Len(), ix.full.size
	ix.mu.Unlock()
	if !aKept || bKept || n != 2 || sum > maxFullSource {
		t.Errorf("a kept %v, b kept %v, %d functions of %d source bytes cached (bound %d)", aKept, bKept, n, sum, maxFullSource)
	}
	if full("a") != a {
		t.Error("a parsed again")
	}
	if again := full("b"); again == b || !reflect.DeepEqual(again, b) {
		t.Errorf("b parsed again: same %v, equal %v", again == b, reflect.DeepEqual(again, b))
	}
	ix.Release()
	if ix.full.order.Len() != 0 || ix.full.size != 0 {
		t.Errorf("after Release: %d entries, %d source bytes cached", ix.full.order.Len(), ix.full.size)
	}
}
