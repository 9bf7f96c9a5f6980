package wakeup

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autosel-bot/autosel-bot/rules"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/diffcheck"
	"github.com/autosel-bot/autosel-bot/index"
	"github.com/autosel-bot/autosel-bot/internal/testkernel"
)

// pipeFiles are the files of Linux 6.1 that use the pipe wait queues.
var pipeFiles = []string{
	"fs/pipe.c",
	"fs/splice.c",
	"fs/coredump.c",
	"include/linux/pipe_fs_i.h",
	"kernel/watch_queue.c",
}

// pipeTree copies the pipe files of the shared 6.1 tree into a temporary
// directory, applying the replacements (old, new pairs) to fs/pipe.c.
func pipeTree(t *testing.T, pipeEdits ...string) string {
	t.Helper()
	src := testkernel.Dir(t)
	dir := t.TempDir()
	for _, f := range pipeFiles {
		b, err := os.ReadFile(filepath.Join(src, f))
		if err != nil {
			t.Fatal(err)
		}
		if f == "fs/pipe.c" {
			s := string(b)
			for i := 0; i+1 < len(pipeEdits); i += 2 {
				if !strings.Contains(s, pipeEdits[i]) {
					t.Fatalf("fs/pipe.c lacks %q", pipeEdits[i])
				}
				s = strings.Replace(s, pipeEdits[i], pipeEdits[i+1], 1)
			}
			b = []byte(s)
		}
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// treePass parses diff, applies it to the tree at dir in memory and returns
// a pass over the post-patch index.
func treePass(tb testing.TB, diff string, base *index.Index, dir string) *rules.Pass {
	tb.Helper()
	cs, err := diffcheck.Parse(diff)
	if err != nil {
		tb.Fatal(err)
	}
	if err := diffcheck.ApplyTree(cs, diffcheck.DirTree(dir)); err != nil {
		tb.Fatal(err)
	}
	if _, ok := cs.Tree.(*diffcheck.PatchedTree); !ok {
		tb.Fatalf("ApplyTree left tree %T", cs.Tree)
	}
	return rules.NewPass(cs, base, rules.Options{}, 1)
}

func openIndex(tb testing.TB, dir string) *index.Index {
	tb.Helper()
	idx, err := index.Open(context.Background(), dir, index.Options{CacheDir: tb.TempDir()})
	if err != nil {
		tb.Fatal(err)
	}
	return idx
}

func TestMayKey(t *testing.T) {
	dir := t.TempDir()
	for name, src := range map[string]string{"a.c": "\twq = &adapter->cmd_wait_q.wait;\n", "b.c": "\twake_up(wq);\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r := &checker{patchVT: newVarTypes(), pass: &rules.Pass{Index: openIndex(t, dir), Change: &diffcheck.ChangeSet{}}}
	r.patchVT.aliases["pq"] = "&adapter->cmd_wait_q.wait"
	tv := newTreeView(r)
	for _, tc := range []struct {
		key, file string
		args      []string
		want      bool
	}{
		{"mwifiex_adapter.cmd_wait_q.wait", "b.c", []string{"&adapter->cmd_wait_q.wait"}, true},
		{"mwifiex_adapter.cmd_wait_q.wait", "b.c", []string{"&priv->wait"}, false},
		{"mwifiex_adapter.cmd_wait_q.wait", "a.c", []string{"(&wq)"}, true}, // the file may alias the member
		{"mwifiex_adapter.cmd_wait_q.wait", "b.c", []string{"wq"}, false},   // it cannot
		{"mwifiex_adapter.cmd_wait_q.wait", "b.c", []string{"pq"}, true},    // the patch may
		{"mwifiex_adapter.cmd_wait_q.wait", "b.c", []string{"&x->q", "TASK_NORMAL"}, false},
		{"*.ring[].wait", "b.c", []string{"&dev->ring[i].wait", "1"}, true},
		{"*.ring[].wait", "b.c", []string{"&dev->wait", "1"}, false},
		{"local:f:wait", "b.c", []string{"&x->y"}, true},
		{"pipe_wait()", "b.c", []string{"&x->y"}, true},
		{"wait", "b.c", []string{"&x->y"}, true},
	} {
		c := treeCall{Func: &cscan.Func{Name: "f", File: tc.file}, Call: cscan.Call{Name: "wake_up", Args: tc.args}}
		if got := tv.mayKey(c, pathWords(tc.key)); got != tc.want {
			t.Errorf("mayKey(%s: %q, %q) = %v, want %v", tc.file, tc.args, tc.key, got, tc.want)
		}
	}
}
