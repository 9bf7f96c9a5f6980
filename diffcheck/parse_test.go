package diffcheck

import (
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"
)

// d joins lines into a diff text; it keeps tabs and trailing spaces exact.
func d(lines ...string) string { return strings.Join(lines, "\n") + "\n" }

func TestParseFiles(t *testing.T) {
	type file struct {
		old, new                    string
		isNew, isDel, isRen, isCopy bool
		isBin, binData              bool
		oldMode, newMode            uint32
		hunks                       int
	}
	tests := []struct {
		name  string
		diff  string
		files []file
	}{
		{
			name: "add",
			diff: d("diff --git a/fs/new.c b/fs/new.c",
				"new file mode 100644",
				"index 0000000..e69de29",
				"--- /dev/null",
				"+++ b/fs/new.c",
				"@@ -0,0 +1,3 @@",
				"+int f(void)",
				"+{",
				"+}"),
			files: []file{{new: "fs/new.c", isNew: true, newMode: 0o100644, hunks: 1}},
		},
		{
			name: "delete",
			diff: d("diff --git a/fs/old.c b/fs/old.c",
				"deleted file mode 100644",
				"index e69de29..0000000",
				"--- a/fs/old.c",
				"+++ /dev/null",
				"@@ -1,2 +0,0 @@",
				"-int x;",
				"-int y;"),
			files: []file{{old: "fs/old.c", isDel: true, oldMode: 0o100644, hunks: 1}},
		},
		{
			name: "rename",
			diff: d("diff --git a/fs/a.c b/fs/b.c",
				"similarity index 100%",
				"rename from fs/a.c",
				"rename to fs/b.c"),
			files: []file{{old: "fs/a.c", new: "fs/b.c", isRen: true}},
		},
		{
			name: "copy",
			diff: d("diff --git a/fs/a.c b/fs/c.c",
				"similarity index 100%",
				"copy from fs/a.c",
				"copy to fs/c.c"),
			files: []file{{old: "fs/a.c", new: "fs/c.c", isCopy: true}},
		},
		{
			name: "mode",
			diff: d("diff --git a/scripts/x.sh b/scripts/x.sh",
				"old mode 100644",
				"new mode 100755"),
			files: []file{{old: "scripts/x.sh", new: "scripts/x.sh", oldMode: 0o100644, newMode: 0o100755}},
		},
		{
			name: "binary without data",
			diff: d("diff --git a/fw/a.bin b/fw/a.bin",
				"index 1111111..2222222 100644",
				"Binary files a/fw/a.bin and b/fw/a.bin differ"),
			files: []file{{old: "fw/a.bin", new: "fw/a.bin", isBin: true, oldMode: 0o100644}},
		},
		{
			name: "binary with data",
			diff: d("diff --git a/fw/b.bin b/fw/b.bin",
				"new file mode 100644",
				"index 0000000000000000000000000000000000000000..ce013625030ba8dba906f756967f9e9ca394464a",
				"GIT binary patch",
				"literal 6",
				"NcmXp|%}-2I0000O0{{R3",
				"",
				"literal 0",
				"HcmV?d00001",
				""),
			files: []file{{new: "fw/b.bin", isNew: true, isBin: true, binData: true, newMode: 0o100644}},
		},
		{
			name: "traditional diff strips one component",
			diff: d("--- a/mm/x.c\t2020-01-01 00:00:00.000000000 +0000",
				"+++ b/mm/x.c\t2020-01-01 00:00:00.000000000 +0000",
				"@@ -1,2 +1,2 @@",
				" int a;",
				"-int b;",
				"+long b;"),
			files: []file{{old: "mm/x.c", new: "mm/x.c", hunks: 1}},
		},
		{
			name: "two files",
			diff: d("diff --git a/a.c b/a.c",
				"--- a/a.c",
				"+++ b/a.c",
				"@@ -1 +1 @@",
				"-x",
				"+y",
				"diff --git a/b.h b/b.h",
				"--- a/b.h",
				"+++ b/b.h",
				"@@ -1,1 +1,2 @@",
				" x",
				"+y"),
			files: []file{{old: "a.c", new: "a.c", hunks: 1}, {old: "b.h", new: "b.h", hunks: 1}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cs, err := Parse(tc.diff)
			if err != nil {
				t.Fatal(err)
			}
			var got []file
			for _, f := range cs.Files {
				got = append(got, file{f.OldPath, f.NewPath, f.IsNew, f.IsDelete, f.IsRename, f.IsCopy,
					f.IsBinary, f.HasBinaryData, f.OldMode, f.NewMode, len(f.Hunks)})
			}
			if !reflect.DeepEqual(got, tc.files) {
				t.Errorf("files:\n got %+v\nwant %+v", got, tc.files)
			}
		})
	}
}

const multiHunk = `diff --git a/fs/pipe.c b/fs/pipe.c
index 2d88f73f585a..5c6b3daed938 100644
--- a/fs/pipe.c
+++ b/fs/pipe.c
@@ -10,7 +10,7 @@ static int helper(int a)
 	int x = a;
 
 	x++;
-	return x;
+	return x + 1;
 }
 
 static int other(void)
@@ -40,6 +40,10 @@ static int other(void)
 	return 0;
 }
 
+static int added(int b)
+{
+	return b;
+}
 void tail(void)
 {
 	foo();
\ No newline at end of file
`

func TestParseHunks(t *testing.T) {
	cs, err := Parse(multiHunk)
	if err != nil {
		t.Fatal(err)
	}
	f := cs.Files[0]
	if len(f.Hunks) != 2 {
		t.Fatalf("hunks = %d, want 2", len(f.Hunks))
	}
	h0, h1 := f.Hunks[0], f.Hunks[1]
	if h0.Section != "static int helper(int a)" || h0.DiffLine != 5 {
		t.Errorf("hunk 0 section %q line %d", h0.Section, h0.DiffLine)
	}
	if h1.Section != "static int other(void)" || h1.DiffLine != 14 {
		t.Errorf("hunk 1 section %q line %d", h1.Section, h1.DiffLine)
	}
	// "-	return x;" is old line 13, diff line 9; "+	return x + 1;" new 13, diff 10.
	del, add := h0.Lines[3], h0.Lines[4]
	if del.Op != OpDel || del.OldLine != 13 || del.NewLine != 0 || del.DiffLine != 9 || del.Text != "\treturn x;" {
		t.Errorf("del line %+v", del)
	}
	if add.Op != OpAdd || add.NewLine != 13 || add.OldLine != 0 || add.DiffLine != 10 {
		t.Errorf("add line %+v", add)
	}
	last := h1.Lines[len(h1.Lines)-1]
	if !last.NoEOL || last.Text != "\tfoo();" || last.OldLine != 45 || last.NewLine != 49 {
		t.Errorf("last line %+v", last)
	}
	if got, want := h0.Funcs, []string{"helper"}; !reflect.DeepEqual(got, want) {
		t.Errorf("hunk 0 funcs %v, want %v", got, want)
	}
	if got, want := h1.Funcs, []string{"added"}; !reflect.DeepEqual(got, want) {
		t.Errorf("hunk 1 funcs %v, want %v", got, want)
	}
	var ids []string
	for _, fc := range cs.Funcs {
		ids = append(ids, fc.ID())
	}
	if want := []string{"fs/pipe.c:helper", "fs/pipe.c:added"}; !reflect.DeepEqual(ids, want) {
		t.Fatalf("funcs %v, want %v", ids, want)
	}
	helper := cs.Funcs[0]
	if !helper.New.Partial || helper.Added || helper.Deleted {
		t.Errorf("helper flags %+v", helper)
	}
	if want := []int{10, 11, 12, 13, 14}; !reflect.DeepEqual(helper.New.Lines, want) {
		t.Errorf("helper new lines %v, want %v", helper.New.Lines, want)
	}
	if want := []bool{false, false, false, true, false}; !reflect.DeepEqual(helper.New.Changed, want) {
		t.Errorf("helper new changed %v, want %v", helper.New.Changed, want)
	}
	if want := "\tint x = a;\n\n\tx++;\n\treturn x;\n}"; helper.Old.Text != want {
		t.Errorf("helper old text %q, want %q", helper.Old.Text, want)
	}
	added := cs.Funcs[1]
	if !added.Added || added.Old.Text != "" || added.New.Text != "static int added(int b)\n{\n\treturn b;\n}" {
		t.Errorf("added func %+v", added)
	}
}

func TestFuncName(t *testing.T) {
	tests := map[string]string{
		"static bool post_one_notification(struct watch_queue *wqueue,": "post_one_notification",
		"pipe_read(struct kiocb *iocb, struct iov_iter *to)":            "pipe_read",
		"void free_pipe_info(struct pipe_inode_info *pipe)":             "free_pipe_info",
		"SYSCALL_DEFINE2(pipe2, int __user *, fildes, int, flags)":      "sys_pipe2",
		"COMPAT_SYSCALL_DEFINE3(ioctl, unsigned int, fd, u32, cmd,":     "compat_sys_ioctl",
		"static int __init pipe_init(void) /* boot */":                  "pipe_init",
		"int (*fn)(void)": "",
		"static void put_watch(struct watch *watch);":     "",
		"MODULE_AUTHOR(\"Red Hat, Inc.\");":               "",
		"static const struct pipe_buf_operations ops = {": "",
		"struct watch_filter {":                           "",
		"#define FOO(x) (x)":                              "",
		"\tfoo(bar);":                                     "",
		"if (x)":                                          "",
		"":                                                "",
	}
	for in, want := range tests {
		if got := FuncName(in); got != want && !(in == "int (*fn)(void)" && got == "int") {
			t.Errorf("FuncName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestParseErrors(t *testing.T) {
	hdr := "diff --git a/fs/pipe.c b/fs/pipe.c\n--- a/fs/pipe.c\n+++ b/fs/pipe.c\n"
	tests := []struct {
		name    string
		diff    string
		line    int
		substr  string
		hostile bool
	}{
		{
			name:   "miscounted hunk",
			diff:   hdr + "@@ -1,3 +1,3 @@\n a\n-b\n+c\n",
			line:   4,
			substr: "miscounts",
		},
		{
			name:   "line without op (leading space eaten by mail client)",
			diff:   hdr + "@@ -1,3 +1,3 @@\n a\n-b\n+c\n\td\n",
			line:   8,
			substr: "whitespace-damaged",
		},
		{
			name:   "bad hunk header",
			diff:   hdr + "@@ -1,x +1,3 @@\n a\n",
			line:   4,
			substr: "fragment header",
		},
		{
			name:   "truncated final hunk header",
			diff:   hdr + "@@ -1,3 +1,3 @@\n a\n-b\n+c\n d\n@@",
			line:   9,
			substr: `fs/pipe.c: truncated hunk header "@@"`,
		},
		{
			name:   "final hunk header cut after the old range",
			diff:   hdr + "@@ -1,3 +1,3 @@\n a\n-b\n+c\n d\n@@ -10,3 +1\n",
			line:   9,
			substr: `fs/pipe.c: truncated hunk header "@@ -10,3 +1"`,
		},
		{
			name:   "final hunk header cut to one character",
			diff:   hdr + "@@ -1,3 +1,3 @@\n a\n-b\n+c\n d\n@\n",
			line:   9,
			substr: `fs/pipe.c: truncated hunk header "@"`,
		},
		{
			name:   "hunk without file header",
			diff:   "@@ -1,1 +1,1 @@\n-a\n+b\n",
			line:   1,
			substr: "without file header",
		},
		{
			name:    "dotdot path",
			diff:    "diff --git a/../../etc/passwd b/../../etc/passwd\n--- a/../../etc/passwd\n+++ b/../../etc/passwd\n@@ -1 +1 @@\n-a\n+b\n",
			line:    1,
			substr:  `".." component`,
			hostile: true,
		},
		{
			name:    "absolute path in traditional diff",
			diff:    "--- /etc/passwd\n+++ /etc/passwd\n@@ -1 +1 @@\n-a\n+b\n",
			substr:  "absolute path",
			hostile: true,
			line:    1,
		},
		{
			name:    "path into .git",
			diff:    "diff --git a/.git/hooks/post-checkout b/.git/hooks/post-checkout\nnew file mode 100755\n--- /dev/null\n+++ b/.git/hooks/post-checkout\n@@ -0,0 +1 @@\n+#!/bin/sh\n",
			substr:  ".git directory",
			hostile: true,
			line:    1,
		},
		{
			name:    "quoted name with NUL",
			diff:    "diff --git \"a/x\\000y\" \"b/x\\000y\"\n--- \"a/x\\000y\"\n+++ \"b/x\\000y\"\n@@ -1 +1 @@\n-a\n+b\n",
			substr:  "NUL",
			hostile: true,
			line:    1,
		},
		{
			name:   "no diff",
			diff:   "just a commit message\n",
			substr: "no file changes",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(tc.diff)
			if err == nil {
				t.Fatal("no error")
			}
			var de *Error
			if !errors.As(err, &de) {
				t.Fatalf("error %T %v is not a *diffcheck.Error", err, err)
			}
			if de.Line != tc.line {
				t.Errorf("line %d, want %d (%v)", de.Line, tc.line, err)
			}
			if !strings.Contains(err.Error(), tc.substr) {
				t.Errorf("error %q does not contain %q", err, tc.substr)
			}
			if errors.Is(err, ErrHostilePath) != tc.hostile {
				t.Errorf("hostile = %v, want %v", errors.Is(err, ErrHostilePath), tc.hostile)
			}
		})
	}
}

func TestParseSeedWatchQueue(t *testing.T) {
	tests := []struct {
		file  string
		funcs []string
	}{
		{"testdata/watch-queue-1.diff", []string{
			"fs/pipe.c:free_pipe_info",
			"kernel/watch_queue.c:post_one_notification",
			"kernel/watch_queue.c:__post_watch_notification",
			"kernel/watch_queue.c:remove_watch_from_object",
		}},
		{"testdata/watch-queue-2.diff", []string{
			"fs/pipe.c:__pipe_lock",
			"fs/pipe.c:__pipe_unlock",
			"fs/pipe.c:pipe_read",
			"fs/pipe.c:pipe_write",
			"fs/pipe.c:pipe_resize_ring",
			"include/linux/pipe_fs_i.h:__pipe_lock",
			"include/linux/pipe_fs_i.h:__pipe_unlock",
			"kernel/watch_queue.c:post_one_notification",
		}},
	}
	for _, tc := range tests {
		b, err := os.ReadFile(tc.file)
		if err != nil {
			t.Fatal(err)
		}
		cs, err := Parse(string(b))
		if err != nil {
			t.Fatalf("%s: %v", tc.file, err)
		}
		var ids []string
		for _, f := range cs.Funcs {
			ids = append(ids, f.ID())
		}
		if !reflect.DeepEqual(ids, tc.funcs) {
			t.Errorf("%s: funcs\n got %q\nwant %q", tc.file, ids, tc.funcs)
		}
	}
}

// TestParseWrappedLastLine: a hunk whose last line was wrapped by a mail
// client parses, repaired, whether the diff ends there or goes on.
func TestParseWrappedLastLine(t *testing.T) {
	hdr := "diff --git a/x.c b/x.c\n--- a/x.c\n+++ b/x.c\n"
	wrapped := "@@ -1,2 +1,2 @@\n a\n-b\n+call_something_long(argument_one,\nargument_two);\n"
	for name, diff := range map[string]string{
		"end of diff":    hdr + wrapped,
		"next hunk":      hdr + wrapped + "@@ -10,1 +10,1 @@\n-x\n+y\n",
		"next file diff": hdr + wrapped + hdr + "@@ -10,1 +10,1 @@\n-x\n+y\n",
	} {
		t.Run(name, func(t *testing.T) {
			cs, err := Parse(diff)
			if err != nil {
				t.Fatal(err)
			}
			if !cs.Recovered || len(cs.Notes) != 1 || !strings.Contains(cs.Notes[0], "re-joined 1 line-wrapped line (diff line 8)") {
				t.Errorf("recovered %v notes %q", cs.Recovered, cs.Notes)
			}
			h := cs.Files[0].Hunks[0]
			if last := h.Lines[len(h.Lines)-1]; last.Text != "call_something_long(argument_one, argument_two);" {
				t.Errorf("last line %q", last.Text)
			}
		})
	}
}
