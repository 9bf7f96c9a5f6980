package index

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"sort"
	"testing"

	"github.com/autosel-bot/autosel-bot/internal/testtree"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/internal/testkernel"
)

var treeFiles = map[string]string{
	"kernel/a.c":  "#include \"a.h\"\nstatic void helper(int x)\n{\n\tmutex_lock(&m);\n}\n\nvoid api(int x)\n{\n\tspin_lock(&l);\n\tif (x)\n\t\thelper(x);\n\tspin_unlock(&l);\n}\n",
	"kernel/b.c":  "void user(void)\n{\n\tapi(1);\n\twake_up(&wq);\n}\n\nstatic void helper(int y)\n{\n}\n",
	"include/a.h": "static inline void lock_it(void)\n{\n\tspin_lock(&l);\n}\n",
	"README":      "not C\n",
}

func names(fns []*cscan.Func) []string {
	var out []string
	for _, f := range fns {
		out = append(out, f.File+":"+f.Name)
	}
	return out
}

func sites(cs []CallSite) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Func.Name+"->"+c.Call.Name)
	}
	return out
}

func TestOpenGitAndCache(t *testing.T) {
	dir := testtree.Repo(t, treeFiles)
	cache := t.TempDir()
	ctx := context.Background()

	ix, err := Open(ctx, dir, Options{CacheDir: cache})
	if err != nil {
		t.Fatal(err)
	}
	if ix.Stats.Files != 3 || ix.Stats.Scanned != 3 || ix.Stats.Cached != 0 {
		t.Fatalf("cold stats: %+v", ix.Stats)
	}
	check := func(ix *Index) {
		t.Helper()
		if got := names(ix.Funcs("helper")); !reflect.DeepEqual(got, []string{"kernel/a.c:helper", "kernel/b.c:helper"}) {
			t.Errorf("Funcs(helper) = %v", got)
		}
		if got := names(ix.Funcs("lock_it")); !reflect.DeepEqual(got, []string{"include/a.h:lock_it"}) {
			t.Errorf("Funcs(lock_it) = %v", got)
		}
		if got := sites(ix.Callers("api")); !reflect.DeepEqual(got, []string{"user->api"}) {
			t.Errorf("Callers(api) = %v", got)
		}
		cs := ix.CallsTo(func(n string) bool { return n == "spin_lock" || n == "wake_up" })
		if got := sites(cs); !reflect.DeepEqual(got, []string{"lock_it->spin_lock", "api->spin_lock", "user->wake_up"}) {
			t.Errorf("CallsTo = %v", got)
		}
		c := ix.Callers("helper")
		if len(c) != 1 || c[0].Call.Line != 11 || len(c[0].Call.Guards) != 1 || c[0].Call.Guards[0].Cond != "x" {
			t.Errorf("Callers(helper) = %+v", c)
		}
		full := ix.Full(ix.Funcs("api")[0])
		if full == nil || full.Body == nil || len(full.Body.Stmts) != 3 {
			t.Errorf("Full(api) = %+v", full)
		}
	}
	check(ix)

	// Warm: everything from the cache, same answers.
	ix2, err := Open(ctx, dir, Options{CacheDir: cache})
	if err != nil {
		t.Fatal(err)
	}
	if ix2.Stats.Scanned != 0 || ix2.Stats.Cached != 3 {
		t.Fatalf("warm stats: %+v", ix2.Stats)
	}
	check(ix2)

	// A file modified in the work tree is rescanned, the rest is not.
	testtree.Write(t, dir, map[string]string{"kernel/b.c": "void user(void)\n{\n\tapi(2);\n}\n"})
	ix3, err := Open(ctx, dir, Options{CacheDir: cache})
	if err != nil {
		t.Fatal(err)
	}
	if ix3.Stats.Scanned != 1 || ix3.Stats.Cached != 2 {
		t.Fatalf("dirty stats: %+v", ix3.Stats)
	}
	if got := names(ix3.Funcs("helper")); !reflect.DeepEqual(got, []string{"kernel/a.c:helper"}) {
		t.Errorf("after edit Funcs(helper) = %v", got)
	}

	// A corrupt cache is ignored, not fatal.
	if err := os.WriteFile(ix.Stats.CacheFile, []byte("autosel-bot index\x00garbage"), 0o644); err != nil {
		t.Fatal(err)
	}
	ix4, err := Open(ctx, dir, Options{CacheDir: cache})
	if err != nil || ix4.Stats.Scanned != 3 {
		t.Fatalf("corrupt cache: %v %+v", err, ix4.Stats)
	}
}

func TestOverlay(t *testing.T) {
	dir := t.TempDir()
	testtree.Write(t, dir, treeFiles)
	ix, err := Open(context.Background(), dir, Options{CacheDir: "-"})
	if err != nil {
		t.Fatal(err)
	}
	if ix.Stats.Files != 3 {
		t.Fatalf("walk fallback: %+v", ix.Stats)
	}
	o := ix.Overlay(map[string][]byte{
		"kernel/b.c":       nil, // deleted
		"kernel/new.c":     []byte("void fresh(void)\n{\n\tapi(3);\n}\n"),
		"../../etc/passwd": []byte("void evil(void) {}"),
		"Makefile":         []byte("all:\n"),
	})
	if got := sites(o.Callers("api")); !reflect.DeepEqual(got, []string{"fresh->api"}) {
		t.Errorf("overlay Callers(api) = %v", got)
	}
	if got := names(o.Funcs("helper")); !reflect.DeepEqual(got, []string{"kernel/a.c:helper"}) {
		t.Errorf("overlay Funcs(helper) = %v", got)
	}
	if len(o.Funcs("evil")) != 0 {
		t.Error("path outside the tree was indexed")
	}
	if o.Base() != ix || ix.Base() != ix {
		t.Error("Base() is not the pre-patch view")
	}
	// The base is unchanged.
	if got := sites(ix.Callers("api")); !reflect.DeepEqual(got, []string{"user->api"}) {
		t.Errorf("base Callers(api) = %v", got)
	}
	paths := o.Paths()
	if !sort.StringsAreSorted(paths) || !reflect.DeepEqual(paths, []string{"include/a.h", "kernel/a.c", "kernel/new.c"}) {
		t.Errorf("Paths = %v", paths)
	}
	o2 := o.Overlay(map[string][]byte{"kernel/a.c": []byte("void api(int x)\n{\n}\n")})
	if o2.Base() != o || len(o2.Funcs("helper")) != 0 || len(o2.Callers("api")) != 1 {
		t.Errorf("overlay of overlay: base %v helper %v api %v", o2.Base() == o, names(o2.Funcs("helper")), sites(o2.Callers("api")))
	}
	if b, err := o.ReadFile("kernel/new.c"); err != nil || len(b) == 0 {
		t.Errorf("ReadFile overlay: %v", err)
	}
	if _, err := o.ReadFile("kernel/b.c"); err == nil {
		t.Error("ReadFile of a deleted file succeeded")
	}
}

func TestOpenErrors(t *testing.T) {
	if _, err := Open(context.Background(), filepath.Join(t.TempDir(), "missing"), Options{}); err == nil {
		t.Error("missing dir: no error")
	}
	dir := t.TempDir()
	testtree.Write(t, dir, treeFiles)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Open(ctx, dir, Options{CacheDir: "-"}); err == nil {
		t.Error("cancelled context: no error")
	}
}

// Benchmarks on the shared Linux 6.1 tree (targets, issue 18: cold <= 60 s,
// warm open <= 0.2 s on 2 cores). Memory is reported as heap-MB after the
// index is opened.
func BenchmarkIndexCold(b *testing.B) {
	dir := testkernel.Dir(b)
	for i := 0; i < b.N; i++ {
		cache := b.TempDir()
		ix, err := Open(context.Background(), dir, Options{CacheDir: cache})
		if err != nil {
			b.Fatal(err)
		}
		reportMem(b, ix)
	}
}

func BenchmarkIndexWarm(b *testing.B) {
	dir := testkernel.Dir(b)
	// The shared store of TestKernelTree: built once, not per run.
	cache := filepath.Join(filepath.Dir(dir), "index-cache")
	if _, err := Open(context.Background(), dir, Options{CacheDir: cache}); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		ix, err := Open(context.Background(), dir, Options{CacheDir: cache})
		if err != nil {
			b.Fatal(err)
		}
		if ix.Stats.Scanned != 0 {
			b.Fatalf("warm run rescanned %d files", ix.Stats.Scanned)
		}
		reportMem(b, ix)
	}
}

func reportMem(b *testing.B, ix *Index) {
	b.StopTimer()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(ms.HeapAlloc)/(1<<20), "heap-MB")
	b.ReportMetric(float64(ix.Stats.Funcs), "funcs")
	runtime.KeepAlive(ix)
	b.StartTimer()
}

// TestKernelTree checks the scanner and index on the real Linux 6.1 tree:
// well-known definitions (plain, static inline in headers, SYSCALL_DEFINE)
// and call sites are found, and almost nothing is skipped.
func TestKernelTree(t *testing.T) {
	dir := testkernel.Dir(t)
	ix, err := Open(context.Background(), dir, Options{CacheDir: filepath.Join(filepath.Dir(dir), "index-cache")})
	if err != nil {
		t.Fatal(err)
	}
	if ix.Stats.Files < 50000 || ix.Stats.Funcs < 500000 {
		t.Errorf("too few files or functions: %+v", ix.Stats)
	}
	if ix.Stats.Skipped > 20 {
		t.Errorf("%d functions or files skipped", ix.Stats.Skipped)
	}
	for _, want := range []struct{ name, file string }{
		{"sys_read", "fs/read_write.c"},
		{"pipe_read", "fs/pipe.c"},
		{"__pipe_lock", "fs/pipe.c"},
		{"post_one_notification", "kernel/watch_queue.c"},
		{"netif_addr_lock_bh", "include/linux/netdevice.h"},
		{"kmalloc", "include/linux/slab.h"},
		{"do_msgsnd", "ipc/msg.c"},
	} {
		found := false
		for _, fn := range ix.Funcs(want.name) {
			if fn.File == want.file {
				found = true
			}
		}
		if !found {
			t.Errorf("%s not found in %s: %v", want.name, want.file, names(ix.Funcs(want.name)))
		}
	}
	var got []string
	for _, c := range ix.Callers("post_one_notification") {
		got = append(got, c.Func.Name)
	}
	if !reflect.DeepEqual(got, []string{"__post_watch_notification", "remove_watch_from_object"}) {
		t.Errorf("callers of post_one_notification: %v", got)
	}
}
