package lockctx

import (
	"bytes"
	"context"
	"encoding/gob"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/autosel-bot/autosel-bot/index"
	"github.com/autosel-bot/autosel-bot/internal/stageprogress"
)

// randomCallTree is a tree of n files whose call graph has what makes a
// summary depend on the order functions are summarised in: each file's
// g() calls others picked at random (seeded), one of them under a lock,
// so that the graph has recursive components with several entries and
// paths of several lengths to a sleep; a third of the files' leaves
// sleep, some functions return with a lock held (hold) that their caller
// releases, and ops members have their implementations in other files.
func randomCallTree(n int, seed int64) map[string]string {
	rnd := rand.New(rand.NewSource(seed))
	files := map[string]string{}
	for i := range n {
		var b strings.Builder
		leaf := "\tx++;\n"
		if i%3 == 0 {
			leaf = "\tsleep_long();\n"
		}
		fmt.Fprintf(&b, "void f%d_leaf(int x)\n{\n%s}\n\n", i, leaf)
		fmt.Fprintf(&b, "void f%d_hold(int x)\n{\n\tspin_lock(&h%d);\n}\n\n", i, i%7)
		a, c, d := rnd.Intn(n), rnd.Intn(n), rnd.Intn(n)
		fmt.Fprintf(&b, "void f%d_g(int x)\n{\n\tif (x)\n\t\tf%d_g(x - 1);\n", i, a)
		switch rnd.Intn(3) {
		case 0:
			fmt.Fprintf(&b, "\tspin_lock(&l%d);\n\tf%d_g(x);\n\tspin_unlock(&l%d);\n", i, c, i)
		case 1:
			fmt.Fprintf(&b, "\tf%d_hold(x);\n\tf%d_g(x);\n\tspin_unlock(&h%d);\n", c, c, c%7)
		default:
			fmt.Fprintf(&b, "\tf%d_g(x);\n", c)
		}
		fmt.Fprintf(&b, "\tf%d_leaf(x);\n", rnd.Intn(n))
		if rnd.Intn(2) == 0 {
			fmt.Fprintf(&b, "\tf%d_g(x + 1);\n", d)
		}
		b.WriteString("}\n\n")
		fmt.Fprintf(&b, "static void f%d_run(struct my_ops *o)\n{\n\tf%d_g(1);\n}\n\n", i, rnd.Intn(n))
		fmt.Fprintf(&b, "static const struct my_ops f%d_ops = {\n\t.run = f%d_run,\n};\n\n", i, i)
		fmt.Fprintf(&b, "void f%d_top(struct my_ops *o)\n{\n\tspin_lock(&t%d);\n\tf%d_g(3);\n\to->run(o);\n\tspin_unlock(&t%d);\n}\n", i, i, rnd.Intn(n), i)
		if i%5 == 0 {
			// A callback registered as running in hard interrupt context.
			fmt.Fprintf(&b, "\nvoid f%d_init(void)\n{\n\tregister_cb(f%d_g);\n}\n", i, rnd.Intn(n))
		}
		files[fmt.Sprintf("d%d/f%d.c", i%4, i)] = b.String()
	}
	return files
}

// takeStore reads and removes the summary store files in dir (the member
// index decoded: gob writes a map in Go's random order).
func takeStore(t *testing.T, dir string) map[string]any {
	t.Helper()
	out := map[string]any{}
	paths, err := filepath.Glob(filepath.Join(dir, "*summaries*"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range paths {
		if strings.HasSuffix(p, ".lock") {
			continue
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
		if !strings.HasSuffix(p, ".members.gob") {
			out[filepath.Base(p)] = b
			continue
		}
		var mi struct {
			Generation string
			Members    map[string][]index.Ref
		}
		if err := gob.NewDecoder(bytes.NewReader(b)).Decode(&mi); err != nil {
			t.Fatal(err)
		}
		out[filepath.Base(p)] = mi
	}
	return out
}

// callbackModel is testModel with a callback row: register_cb()'s
// argument runs in hard interrupt context.
func callbackModel(t *testing.T) *Model {
	t.Helper()
	m, err := Compile("test", testLocks(), &Tables{Callbacks: []Callback{{Names: []string{"register_cb"}, Arg: 0, Kind: "hardirq", Why: "a test callback"}}}, target{})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestPrepareResumesSameStore: a Prepare stopped half-way through the
// tree and started again writes the store an uninterrupted Prepare
// writes, byte for byte, with the summaries of recursive components
// (which depend on where a component was entered) too: between two
// windows nothing but the records is carried over.
func TestPrepareResumesSameStore(t *testing.T) {
	for seed := range int64(3) {
		t.Run(fmt.Sprint("seed ", seed), func(t *testing.T) {
			m := callbackModel(t)
			ix := openCachedTree(t, randomCallTree(90, seed))
			fresh := func() *index.Index {
				t.Helper()
				again, err := index.Open(context.Background(), ix.Root, index.Options{CacheDir: ix.CacheDir()})
				if err != nil {
					t.Fatal(err)
				}
				return again
			}
			if err := prepare(context.Background(), m, fresh(), nil, 7); err != nil {
				t.Fatal(err)
			}
			want := takeStore(t, ix.CacheDir())
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			ctx = stageprogress.WithFunc(ctx, func(stage string, done, total int) {
				if stage == stageprogress.Summaries && done >= 40 {
					cancel()
				}
			})
			if err := prepare(ctx, m, fresh(), nil, 7); err == nil {
				t.Fatal("a cancelled Prepare returned no error")
			}
			if Stored(m, fresh()) {
				t.Fatal("a stopped Prepare left a store")
			}
			// The resumed Prepare starts after the windows kept: its
			// first report of files done counts them.
			first := -1
			resumed := stageprogress.WithFunc(context.Background(), func(stage string, done, total int) {
				if stage == stageprogress.Summaries && first < 0 && done > 0 {
					first = done
				}
			})
			if err := prepare(resumed, m, fresh(), nil, 7); err != nil {
				t.Fatal(err)
			}
			if first < 7 {
				t.Errorf("the resumed Prepare first reported %d files done, want a window (7) or more", first)
			}
			got := takeStore(t, ix.CacheDir())
			if len(got) != len(want) {
				t.Errorf("%d files after a resumed Prepare, want %d", len(got), len(want))
			}
			for name, w := range want {
				if !reflect.DeepEqual(got[name], w) {
					t.Errorf("%s differs after a resumed Prepare", name)
				}
			}
		})
	}
}
