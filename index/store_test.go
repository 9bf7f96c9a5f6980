package index

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/autosel-bot/autosel-bot/internal/testtree"

	"github.com/autosel-bot/autosel-bot/cscan"
)

var storeTree = map[string]string{
	"drivers/a.c": "static int a_open(struct inode *i, struct file *f)\n{\n\tmutex_lock(&m);\n\treturn 0;\n}\n\n" +
		"static const struct file_operations a_fops = {\n\t.open = a_open,\n};\n\n" +
		"void a_timer(struct timer_list *t)\n{\n\tt->function = a_fire;\n\tdev->ops->open(i, f);\n}\n",
	"drivers/b.c": "static int b_open(struct inode *i, struct file *f)\n{\n\treturn 0;\n}\n\n" +
		"static const struct file_operations b_fops = {\n\t.open = b_open,\n};\n\n" +
		"void caller(void)\n{\n\tfile->f_op->open(i, f);\n\ta_timer(t);\n}\n",
	// The same content under two paths shares one record.
	"drivers/c.c": "void dup(void)\n{\n\tspin_lock(&l);\n}\n",
	"drivers/d.c": "void dup(void)\n{\n\tspin_lock(&l);\n}\n",
}

// TestStoreQueries: the member tables, shared records and pointer identity
// of a store-backed index, cold (built in memory) and warm (read from the
// file it wrote).
func TestStoreQueries(t *testing.T) {
	dir := t.TempDir()
	testtree.Write(t, dir, storeTree)
	cache := t.TempDir()
	for _, warm := range []bool{false, true} {
		ix, err := Open(context.Background(), dir, Options{CacheDir: cache})
		if err != nil {
			t.Fatal(err)
		}
		if warm != (ix.Stats.Cached == 4) || ix.Stats.Funcs != 6 || ix.Stats.Files != 4 {
			t.Fatalf("warm %v: stats %+v", warm, ix.Stats)
		}
		if got := sites(ix.MemberCallers("open")); !reflect.DeepEqual(got, []string{"a_timer->dev->ops->open", "caller->file->f_op->open"}) {
			t.Errorf("MemberCallers(open) = %v", got)
		}
		var to []string
		for _, a := range ix.AssignsTo("open") {
			to = append(to, a.File+":"+a.Struct+"."+a.Member+"="+a.Func)
		}
		if !reflect.DeepEqual(to, []string{"drivers/a.c:file_operations.open=a_open", "drivers/b.c:file_operations.open=b_open"}) {
			t.Errorf("AssignsTo(open) = %v", to)
		}
		if as := ix.AssignsOf("a_fire"); len(as) != 1 || as[0].Member != "function" || as[0].Base != "t" || as[0].Line != 13 {
			t.Errorf("AssignsOf(a_fire) = %+v", as)
		}
		if got := names(ix.Funcs("dup")); !reflect.DeepEqual(got, []string{"drivers/c.c:dup", "drivers/d.c:dup"}) {
			t.Errorf("Funcs(dup) = %v", got)
		}
		// One function, one pointer: from Funcs, Callers and File alike.
		fn := ix.Funcs("a_timer")[0]
		if c := ix.Callers("mutex_lock"); len(c) != 1 || c[0].Func != ix.Funcs("a_open")[0] {
			t.Errorf("Callers(mutex_lock) = %+v", c)
		}
		if f := ix.File("drivers/a.c"); f == nil || len(f.Funcs) != 2 || f.Funcs[1] != fn || f.Funcs[0] != ix.Funcs("a_open")[0] {
			t.Errorf("File(drivers/a.c) does not share the functions of Funcs")
		}
		if ix.File("drivers/none.c") != nil {
			t.Error("File of a missing path")
		}
		// b_open was never asked for: it stays on disk.
		if n, _ := ix.Warm(); n != 5 {
			t.Errorf("Warm = %d functions, want 5", n)
		}
		ix.Release()
		if n, _ := ix.Warm(); n != 0 {
			t.Errorf("Warm after Release = %d", n)
		}
		if again := ix.Funcs("a_timer")[0]; again == fn || !reflect.DeepEqual(again, fn) {
			t.Errorf("after Release: same pointer %v, equal %v", again == fn, reflect.DeepEqual(again, fn))
		}
	}
}

// TestStoreRebuild: a store whose tree changed is rewritten from its old
// records and the rescanned files; what is read back equals a cold scan.
func TestStoreRebuild(t *testing.T) {
	dir := t.TempDir()
	testtree.Write(t, dir, storeTree)
	cache := t.TempDir()
	if _, err := Open(context.Background(), dir, Options{CacheDir: cache}); err != nil {
		t.Fatal(err)
	}
	testtree.Write(t, dir, map[string]string{"drivers/e.c": "void e(void)\n{\n\tdup();\n}\n"})
	if err := os.Remove(filepath.Join(dir, "drivers/d.c")); err != nil {
		t.Fatal(err)
	}
	ix, err := Open(context.Background(), dir, Options{CacheDir: cache})
	if err != nil {
		t.Fatal(err)
	}
	if ix.Stats.Scanned != 1 || ix.Stats.Cached != 3 {
		t.Fatalf("rebuild stats %+v", ix.Stats)
	}
	cold, err := Open(context.Background(), dir, Options{CacheDir: "-"})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(ix.Paths(), cold.Paths()) {
		t.Fatalf("paths %v, cold %v", ix.Paths(), cold.Paths())
	}
	for _, p := range cold.Paths() {
		if !reflect.DeepEqual(ix.File(p), cold.File(p)) {
			t.Errorf("%s: rebuilt %+v, cold %+v", p, ix.File(p), cold.File(p))
		}
	}
	if !reflect.DeepEqual(ix.AssignsTo("open"), cold.AssignsTo("open")) {
		t.Errorf("assignments differ after the rebuild")
	}
}

// FuzzStore: a damaged store is an error or answers something, never a
// panic.
func FuzzStore(f *testing.F) {
	var in storeInput
	for _, p := range []string{"drivers/a.c", "drivers/b.c"} {
		src := []byte(storeTree[p])
		in.entries = append(in.entries, fileEntry{path: p, key: "g" + p})
		in.files = append(in.files, cscan.ScanFile(p, src))
		in.assigns = append(in.assigns, ScanAssigns("", src))
	}
	seed, err := buildStore(in)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed)
	f.Add(seed[:len(seed)/2])
	f.Add([]byte(storeMagic))
	f.Fuzz(func(t *testing.T, b []byte) {
		st, err := openStoreBytes(b)
		if err != nil {
			return
		}
		ix := &Index{}
		ix.setStore(st)
		for _, p := range ix.Paths() {
			ix.File(p)
		}
		for i := 0; i < st.nFiles; i++ {
			decodeRecord(st.record(i), &st.strs, "x.c", true)
		}
		ix.Funcs("a_open")
		ix.Callers("mutex_lock")
		ix.CallsTo(func(string) bool { return true })
		ix.MemberCallers("open")
		ix.AssignsTo("open")
		ix.AssignsOf("b_open")
	})
}
