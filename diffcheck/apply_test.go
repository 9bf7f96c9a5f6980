package diffcheck

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/autosel-bot/autosel-bot/internal/testtree"

	"github.com/autosel-bot/autosel-bot/internal/testkernel"
)

const treeC = `#include <linux/spinlock.h>

static DEFINE_SPINLOCK(lock);

static int helper(int a)
{
	int x = a;

	x++;
	return x;
}

static int other(void)
{
	spin_lock(&lock);
	helper(1);
	spin_unlock(&lock);
	return 0;
}
`

// The hunk says line 7, the tree has it at 6: it applies at offset -1.
const offsetPatch = `diff --git a/lib/x.c b/lib/x.c
--- a/lib/x.c
+++ b/lib/x.c
@@ -7,7 +7,7 @@ static int helper(int a)
 {
 	int x = a;
 
-	x++;
+	x += 2;
 	return x;
 }
 
@@ -17,5 +17,6 @@ static int other(void)
 	spin_lock(&lock);
 	helper(1);
 	spin_unlock(&lock);
+	might_sleep();
 	return 0;
 }
`

func TestApplyTreeOffset(t *testing.T) {
	dir := testtree.Dir(t, map[string]string{"lib/x.c": treeC})
	cs, err := Parse(offsetPatch)
	if err != nil {
		t.Fatal(err)
	}
	if err := ApplyTree(cs, DirTree(dir)); err != nil {
		t.Fatal(err)
	}
	if cs.ApplyError != "" {
		t.Fatalf("apply error: %s", cs.ApplyError)
	}
	got, err := cs.Tree.ReadFile("lib/x.c")
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Replace(strings.Replace(treeC, "\tx++;", "\tx += 2;", 1),
		"\tspin_unlock(&lock);\n", "\tspin_unlock(&lock);\n\tmight_sleep();\n", 1)
	if string(got) != want {
		t.Errorf("patched file:\n%s\nwant:\n%s", got, want)
	}
	// The tree on disk is untouched.
	if b, _ := os.ReadFile(filepath.Join(dir, "lib/x.c")); string(b) != treeC {
		t.Error("ApplyTree wrote to the tree")
	}
	h := cs.Files[0].Hunks[0]
	if !h.Applied || h.Offset != -1 || h.OldStart != 6 {
		t.Errorf("hunk 0 applied=%v offset=%d oldstart=%d", h.Applied, h.Offset, h.OldStart)
	}
	if l := h.Lines[4]; l.Op != OpAdd || l.NewLine != 9 || l.Text != "\tx += 2;" {
		t.Errorf("renumbered add line %+v", l)
	}
	var ids []string
	for _, f := range cs.Funcs {
		ids = append(ids, f.ID())
	}
	if want := []string{"lib/x.c:helper", "lib/x.c:other"}; !reflect.DeepEqual(ids, want) {
		t.Fatalf("funcs %v, want %v", ids, want)
	}
	helper := cs.Funcs[0]
	if helper.New.Partial || helper.Old.Partial {
		t.Error("tree sides must not be partial")
	}
	if want := "static int helper(int a)\n{\n\tint x = a;\n\n\tx += 2;\n\treturn x;\n}"; helper.New.Text != want {
		t.Errorf("helper new text %q, want %q", helper.New.Text, want)
	}
	if want := []int{5, 6, 7, 8, 9, 10, 11}; !reflect.DeepEqual(helper.New.Lines, want) {
		t.Errorf("helper new lines %v", helper.New.Lines)
	}
	if want := []bool{false, false, false, false, true, false, false}; !reflect.DeepEqual(helper.New.Changed, want) {
		t.Errorf("helper new changed %v", helper.New.Changed)
	}
	other := cs.Funcs[1]
	if !strings.Contains(other.New.Text, "might_sleep();") || strings.Contains(other.Old.Text, "might_sleep") {
		t.Errorf("other sides old=%q new=%q", other.Old.Text, other.New.Text)
	}
	if other.New.Lines[0] != 13 || other.New.Lines[len(other.New.Lines)-1] != 20 {
		t.Errorf("other new lines %v", other.New.Lines)
	}
	pt := cs.Tree.(*PatchedTree)
	if want := []string{"lib/x.c"}; !reflect.DeepEqual(pt.Paths(), want) {
		t.Errorf("patched paths %v", pt.Paths())
	}
}

// TestApplyTreeRestoresWhitespace: a hunk whose context a mail client
// turned into spaces applies like "git apply --ignore-whitespace", with
// the tree's text, and the change set says so.
func TestApplyTreeRestoresWhitespace(t *testing.T) {
	spaces := strings.Replace(offsetPatch, " \tint x = a;", "         int x = a;", 1)
	dir := testtree.Dir(t, map[string]string{"lib/x.c": treeC})
	cs, err := Parse(spaces)
	if err != nil {
		t.Fatal(err)
	}
	if err := ApplyTree(cs, DirTree(dir)); err != nil {
		t.Fatal(err)
	}
	if cs.ApplyError != "" || !cs.Recovered || len(cs.Notes) != 1 || !strings.HasPrefix(cs.Notes[0], RecoveredNote+": lib/x.c: white space of hunk @@") {
		t.Fatalf("apply error %q, recovered %v, notes %q", cs.ApplyError, cs.Recovered, cs.Notes)
	}
	clean, _ := Parse(offsetPatch)
	if err := ApplyTree(clean, DirTree(dir)); err != nil {
		t.Fatal(err)
	}
	got, _ := cs.Tree.ReadFile("lib/x.c")
	want, _ := clean.Tree.ReadFile("lib/x.c")
	if string(got) != string(want) {
		t.Errorf("patched file differs from the clean patch's:\n%s\nvs\n%s", got, want)
	}
	for _, l := range cs.Files[0].Hunks[0].Lines {
		if strings.HasPrefix(l.Text, "         ") {
			t.Errorf("damaged line kept: %q", l.Text)
		}
	}
}

func TestApplyTreeConflicts(t *testing.T) {
	tests := []struct {
		name     string
		patch    string
		line     int
		substr   string
		partial  bool // the touched function's New side is the hunks' post-image
		funcName string
	}{
		{
			name:     "context not in tree",
			patch:    strings.Replace(offsetPatch, "-\tx++;", "-\tx--;", 1),
			line:     8,
			substr:   `context "\tx--;" not found`,
			partial:  true,
			funcName: "helper",
		},
		{
			name:   "file missing",
			patch:  strings.ReplaceAll(offsetPatch, "lib/x.c", "lib/y.c"),
			line:   4,
			substr: "not in the tree",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := testtree.Dir(t, map[string]string{"lib/x.c": treeC})
			cs, err := Parse(tc.patch)
			if err != nil {
				t.Fatal(err)
			}
			if err := ApplyTree(cs, DirTree(dir)); err != nil {
				t.Fatal(err)
			}
			if cs.ApplyError == "" || len(cs.ApplyErrors) != 1 {
				t.Fatalf("want one apply error, got %q %v", cs.ApplyError, cs.ApplyErrors)
			}
			// Reports leave the machine: they name the tree, not where it lies.
			if strings.Contains(cs.ApplyError, dir) || !strings.Contains(cs.ApplyError, "to "+filepath.Base(dir)+" ") {
				t.Errorf("apply error names the tree by its path on this machine: %q", cs.ApplyError)
			}
			e := cs.ApplyErrors[0]
			if e.Line != tc.line || !strings.Contains(e.Error(), tc.substr) {
				t.Errorf("apply error line %d %q; want line %d containing %q", e.Line, e, tc.line, tc.substr)
			}
			// The tree view keeps the unpatched file.
			if b, err := cs.Tree.ReadFile("lib/x.c"); err != nil || string(b) != treeC {
				t.Errorf("tree view changed: %v", err)
			}
			if tc.funcName == "" {
				return
			}
			var fc *FuncChange
			for _, f := range cs.Funcs {
				if f.Name == tc.funcName {
					fc = f
				}
			}
			if fc == nil {
				t.Fatalf("no FuncChange for %s in %v", tc.funcName, cs.Funcs)
			}
			if fc.New.Partial != tc.partial || !strings.Contains(fc.New.Text, "x += 2;") {
				t.Errorf("new side partial=%v text %q", fc.New.Partial, fc.New.Text)
			}
			// Old comes from the tree: the full function.
			if !strings.HasPrefix(fc.Old.Text, "static int helper(int a)\n{") || fc.Old.Partial {
				t.Errorf("old side %q partial=%v", fc.Old.Text, fc.Old.Partial)
			}
			// The hunks' pre-image is kept beside it: New's counterpart.
			if !fc.Preimage.Partial || !strings.Contains(fc.Preimage.Text, "x--;") || strings.Contains(fc.Preimage.Text, "x += 2;") ||
				len(fc.Preimage.Lines) != strings.Count(fc.Preimage.Text, "\n")+1 {
				t.Errorf("pre-image %q partial=%v lines %v", fc.Preimage.Text, fc.Preimage.Partial, fc.Preimage.Lines)
			}
		})
	}
}

func TestApplyTreeFiles(t *testing.T) {
	dir := testtree.Dir(t, map[string]string{"lib/x.c": treeC, "lib/gone.c": "int gone;\n", "lib/mv.c": "int mv;\n"})
	patch := `diff --git a/lib/gone.c b/lib/gone.c
deleted file mode 100644
--- a/lib/gone.c
+++ /dev/null
@@ -1 +0,0 @@
-int gone;
diff --git a/lib/mv.c b/lib/moved.c
similarity index 100%
rename from lib/mv.c
rename to lib/moved.c
diff --git a/lib/new.c b/lib/new.c
new file mode 100644
--- /dev/null
+++ b/lib/new.c
@@ -0,0 +1,4 @@
+void fresh(void)
+{
+	msleep(1);
+}
`
	cs, err := Parse(patch)
	if err != nil {
		t.Fatal(err)
	}
	if err := ApplyTree(cs, DirTree(dir)); err != nil {
		t.Fatal(err)
	}
	if cs.ApplyError != "" {
		t.Fatal(cs.ApplyError)
	}
	if _, err := cs.Tree.ReadFile("lib/gone.c"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("deleted file still readable: %v", err)
	}
	if _, err := cs.Tree.ReadFile("lib/mv.c"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("renamed-away file still readable: %v", err)
	}
	if b, err := cs.Tree.ReadFile("lib/moved.c"); err != nil || string(b) != "int mv;\n" {
		t.Errorf("renamed file %q %v", b, err)
	}
	if b, err := cs.Tree.ReadFile("lib/x.c"); err != nil || string(b) != treeC {
		t.Errorf("untouched file from disk %v", err)
	}
	if len(cs.Funcs) != 1 || cs.Funcs[0].ID() != "lib/new.c:fresh" || !cs.Funcs[0].Added || cs.Funcs[0].Old.Text != "" {
		t.Fatalf("funcs %+v", cs.Funcs)
	}
	files := cs.Tree.(*PatchedTree).Files()
	if v, ok := files["lib/gone.c"]; !ok || v != nil {
		t.Errorf("Files() must map deleted files to nil")
	}
	// A second patch stacks on the first one's view.
	cs2, err := Parse("diff --git a/lib/new.c b/lib/new.c\n--- a/lib/new.c\n+++ b/lib/new.c\n@@ -1,4 +1,4 @@\n void fresh(void)\n {\n-\tmsleep(1);\n+\tudelay(1);\n }\n")
	if err != nil {
		t.Fatal(err)
	}
	if err := ApplyTree(cs2, cs.Tree); err != nil || cs2.ApplyError != "" {
		t.Fatalf("stacked apply: %v %s", err, cs2.ApplyError)
	}
	if b, _ := cs2.Tree.ReadFile("lib/new.c"); !strings.Contains(string(b), "udelay(1)") {
		t.Errorf("stacked file %q", b)
	}
}

func TestDirTreeRefuses(t *testing.T) {
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret"), []byte("s"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := testtree.Dir(t, map[string]string{"a/ok.c": "ok\n"})
	if err := os.Symlink(filepath.Join(outside, "secret"), filepath.Join(dir, "a/link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("ok.c", filepath.Join(dir, "a/inside")); err != nil {
		t.Fatal(err)
	}
	tr := DirTree(dir)
	if b, err := tr.ReadFile("a/ok.c"); err != nil || string(b) != "ok\n" {
		t.Fatalf("ok file: %q %v", b, err)
	}
	if b, err := tr.ReadFile("a/inside"); err != nil || string(b) != "ok\n" {
		t.Errorf("symlink inside the tree: %q %v", b, err)
	}
	for _, p := range []string{"a/link", "../x", "/etc/passwd", "a/../../x", "a/./ok.c", "a\x00b", "a"} {
		if b, err := tr.ReadFile(p); err == nil {
			t.Errorf("ReadFile(%q) = %q, want an error", p, b)
		}
	}
}

// TestApplyTreeKernel applies a small real patch to Linux 6.1's fs/pipe.c in
// memory (pipe_release's last-close wakeup made a single sync wakeup).
func TestApplyTreeKernel(t *testing.T) {
	dir := testkernel.Dir(t)
	patch := `diff --git a/fs/pipe.c b/fs/pipe.c
--- a/fs/pipe.c
+++ b/fs/pipe.c
@@ -729,7 +729,7 @@ pipe_release(struct inode *inode, struct file *file)
 
 	/* Was that the last reader or writer, but not the other side? */
 	if (!pipe->readers != !pipe->writers) {
-		wake_up_interruptible_all(&pipe->rd_wait);
+		wake_up_interruptible_sync_poll(&pipe->rd_wait, EPOLLIN | EPOLLRDNORM | EPOLLERR | EPOLLHUP);
 		wake_up_interruptible_all(&pipe->wr_wait);
 		kill_fasync(&pipe->fasync_readers, SIGIO, POLL_IN);
 		kill_fasync(&pipe->fasync_writers, SIGIO, POLL_OUT);
@@ -243,7 +243,7 @@ pipe_read(struct kiocb *iocb, struct iov_iter *to)
 	ret = 0;
 	__pipe_lock(pipe);
 
-	/*
+	/**
 	 * We only wake up writers if the pipe was full when we started
 	 * reading in order to avoid unnecessary wakeups.
 	 *
`
	cs, err := Parse(patch)
	if err != nil {
		t.Fatal(err)
	}
	if err := ApplyTree(cs, DirTree(dir)); err != nil {
		t.Fatal(err)
	}
	if cs.ApplyError != "" {
		t.Fatal(cs.ApplyError)
	}
	var ids []string
	for _, f := range cs.Funcs {
		ids = append(ids, f.ID())
	}
	// Patch order (hunks out of line order still apply, like git apply).
	if want := []string{"fs/pipe.c:pipe_release", "fs/pipe.c:pipe_read"}; !reflect.DeepEqual(ids, want) {
		t.Fatalf("funcs %v, want %v", ids, want)
	}
	rel := cs.Funcs[0]
	if rel.New.Lines[0] != 720 || !strings.HasPrefix(rel.New.Text, "pipe_release(struct inode *inode, struct file *file)\n{") ||
		!strings.HasSuffix(rel.New.Text, "\treturn 0;\n}") {
		t.Errorf("pipe_release new side starts %d: %q", rel.New.Lines[0], rel.New.Text)
	}
	if !strings.Contains(rel.New.Text, "wake_up_interruptible_sync_poll(&pipe->rd_wait") ||
		strings.Contains(rel.New.Text, "wake_up_interruptible_all(&pipe->rd_wait)") {
		t.Error("pipe_release new side not patched")
	}
	if !strings.Contains(rel.Old.Text, "wake_up_interruptible_all(&pipe->rd_wait)") {
		t.Error("pipe_release old side lacks the original wakeup")
	}
	n := 0
	for i, c := range rel.New.Changed {
		if c {
			n++
			if rel.New.Lines[i] != 732 {
				t.Errorf("changed line %d, want 732", rel.New.Lines[i])
			}
		}
	}
	if n != 1 {
		t.Errorf("%d changed lines in pipe_release, want 1", n)
	}
	if !strings.Contains(cs.Funcs[1].New.Text, "for (;;) {") {
		t.Error("pipe_read new side is not the whole function")
	}
	if _, err := cs.Tree.ReadFile("kernel/watch_queue.c"); err != nil {
		t.Errorf("untouched file not readable through the view: %v", err)
	}
}

// A hunk header naming a line far beyond the file must not make the offset
// search loop for ever.
func TestApplyTreeHugeLineNumber(t *testing.T) {
	dir := testtree.Dir(t, map[string]string{"lib/x.c": treeC})
	cs, err := Parse("diff --git a/lib/x.c b/lib/x.c\n--- a/lib/x.c\n+++ b/lib/x.c\n@@ -4611686018427387904,2 +4611686018427387904,2 @@\n {\n-\tint x = a;\n+\tint x = -a;\n")
	if err != nil {
		t.Fatal(err)
	}
	if err := ApplyTree(cs, DirTree(dir)); err != nil {
		t.Fatal(err)
	}
	if cs.ApplyError != "" {
		t.Fatalf("did not apply at an offset: %s", cs.ApplyError)
	}
	if b, _ := cs.Tree.ReadFile("lib/x.c"); !strings.Contains(string(b), "int x = -a;") {
		t.Error("not patched")
	}
}

// BenchmarkApplyTreeKernel applies a two-hunk patch to Linux 6.1's
// fs/pipe.c in memory and rebuilds the touched functions from the scanned
// old and new file (the per-patch cost of tree mode before the rules).
func BenchmarkApplyTreeKernel(b *testing.B) {
	dir := testkernel.Dir(b)
	patch := "diff --git a/fs/pipe.c b/fs/pipe.c\n--- a/fs/pipe.c\n+++ b/fs/pipe.c\n" +
		"@@ -729,7 +729,7 @@ pipe_release(struct inode *inode, struct file *file)\n \n \t/* Was that the last reader or writer, but not the other side? */\n \tif (!pipe->readers != !pipe->writers) {\n-\t\twake_up_interruptible_all(&pipe->rd_wait);\n+\t\twake_up_interruptible(&pipe->rd_wait);\n \t\twake_up_interruptible_all(&pipe->wr_wait);\n \t\tkill_fasync(&pipe->fasync_readers, SIGIO, POLL_IN);\n \t\tkill_fasync(&pipe->fasync_writers, SIGIO, POLL_OUT);\n"
	tree := DirTree(dir)
	b.ReportAllocs()
	for b.Loop() {
		cs, err := Parse(patch)
		if err != nil {
			b.Fatal(err)
		}
		if err := ApplyTree(cs, tree); err != nil || cs.ApplyError != "" || len(cs.Funcs) != 1 {
			b.Fatalf("%v %s %d", err, cs.ApplyError, len(cs.Funcs))
		}
	}
}
