package mail

import (
	"strings"
	"testing"
)

const simpleDiff = "diff --git a/fs/pipe.c b/fs/pipe.c\n" +
	"index 1111111..2222222 100644\n" +
	"--- a/fs/pipe.c\n" +
	"+++ b/fs/pipe.c\n" +
	"@@ -10,3 +10,3 @@ pipe_read(struct kiocb *iocb, struct iov_iter *to)\n" +
	" \tint a;\n" +
	"-\tif (wake_next_reader)\n" +
	"+\tif (!pipe->writers || wake_next_reader)\n" +
	" \treturn ret;\n"

func TestExtractDiff(t *testing.T) {
	tests := []struct {
		name     string
		body     string
		wantDiff string
		wantLine int
	}{
		{"none", "Hello\n\nno diff here\n---\n text\n", "", 0},
		{"format-patch", "Subject line\n\nSigned-off-by: X <x@y>\n---\n fs/pipe.c | 2 +-\n\n" + simpleDiff + "-- \n2.20.1\n", simpleDiff, 7},
		{"plain ---/+++ diff", "text\n--- a/x.c\n+++ b/x.c\n@@ -1 +1 @@\n-a\n+b\nthanks\n", "--- a/x.c\n+++ b/x.c\n@@ -1 +1 @@\n-a\n+b\n", 2},
		{"--- without @@ is prose", "--- a/x\n+++ b/x\nnot a hunk\n", "", 0},
		{"quoted diff is not the reviewer's", "On x wrote:\n> diff --git a/a b/a\n> --- a/a\n> +++ b/a\n> @@ -1 +1 @@\n> -x\n> +y\nLooks fine.\n", "", 0},
		{"own diff above the quoted patch",
			"The quick fix:\n\n" + simpleDiff + "\nThanks,\nAndrei\n\nOn Fri wrote:\n> " + strings.ReplaceAll(strings.TrimSuffix(simpleDiff, "\n"), "\n", "\n> ") + "\n",
			simpleDiff, 3},
		{"multi-file with rename and mode",
			"diff --git a/a b/b\nsimilarity index 90%\nrename from a\nrename to b\n" +
				"diff --git a/c b/c\nold mode 100644\nnew mode 100755\n" +
				"diff --git a/d b/d\nnew file mode 100644\nindex 0000000..1111111\n--- /dev/null\n+++ b/d\n@@ -0,0 +1,2 @@\n+x\n+y\n" +
				"\\ No newline at end of file\n\nbase-commit: abc\n",
			"diff --git a/a b/b\nsimilarity index 90%\nrename from a\nrename to b\n" +
				"diff --git a/c b/c\nold mode 100644\nnew mode 100755\n" +
				"diff --git a/d b/d\nnew file mode 100644\nindex 0000000..1111111\n--- /dev/null\n+++ b/d\n@@ -0,0 +1,2 @@\n+x\n+y\n" +
				"\\ No newline at end of file\n", 1},
		{"empty context line without its space",
			"diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1,3 +1,3 @@\n a\n\n-b\n+c\n-- \n2.1\n",
			"diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1,3 +1,3 @@\n a\n\n-b\n+c\n", 1},
		{"hunk removing a line that starts with '-- '",
			"diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1,2 +1,1 @@\n a\n--- \n-- \n2.1\n",
			"diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1,2 +1,1 @@\n a\n--- \n", 1},
		{"line-wrapped hunk is kept when its counts come out exact",
			"diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1,3 +1,3 @@\n a\n-b(x,\nEPOLLIN);\n+c\n d\n",
			"diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1,3 +1,3 @@\n a\n-b(x,\nEPOLLIN);\n+c\n d\n", 1},
		{"damaged hunk whose counts do not come out is cut where the damage is",
			"diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1,4 +1,4 @@\n a\n-b(x,\nEPOLLIN);\n+c\n d\nThanks\n",
			"diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1,4 +1,4 @@\n a\n-b(x,\n", 1},
		{"more wrapped lines in a row than a mail client makes",
			"diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n-b(x,\nw\nx\ny\nz\n+c\n d\n",
			"diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n-b(x,\n", 1},
		{"CRLF lines", "diff --git a/x b/x\r\n--- a/x\r\n+++ b/x\r\n@@ -1 +1 @@\r\n-a\r\n+b\r\nbye\r\n",
			"diff --git a/x b/x\r\n--- a/x\r\n+++ b/x\r\n@@ -1 +1 @@\r\n-a\r\n+b\r\n", 1},
		{"non-git diff -u", "diff -urN a/x b/x\n--- a/x\t2020\n+++ b/x\t2020\n@@ -1 +1 @@\n-a\n+b\n",
			"diff -urN a/x b/x\n--- a/x\t2020\n+++ b/x\t2020\n@@ -1 +1 @@\n-a\n+b\n", 1},
		// A bad or cut hunk header ends the diff but stays in it, so that
		// diffcheck reports it instead of the hunk vanishing silently.
		{"bad hunk header", "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -a +b @@\n-a\n", "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -a +b @@\n", 1},
		{"truncated final hunk header", "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n@@", "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n@@", 1},
		{"no trailing newline", "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b", "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, line := ExtractDiff(tt.body)
			if d != tt.wantDiff || line != tt.wantLine {
				t.Errorf("ExtractDiff:\n got line %d %q\nwant line %d %q", line, d, tt.wantLine, tt.wantDiff)
			}
		})
	}
}

func FuzzExtractDiff(f *testing.F) {
	f.Add("Subject\n\n---\n x | 1 +\n\n" + simpleDiff + "-- \n2.20.1\n")
	f.Add("> diff --git a/a b/a\n" + simpleDiff)
	f.Add("--- a/x\n+++ b/x\n@@ -1,99999999999 +1 @@\n")
	f.Add("diff --git a/x b/x\nGIT binary patch\nliteral 5\nabc\n\nliteral 0\n\n")
	f.Add("@@ -1 +1 @@\n--- \n+++ \n@@ @@")
	f.Fuzz(func(t *testing.T, body string) {
		d, line := ExtractDiff(body)
		if d == "" {
			if line != 0 {
				t.Fatalf("empty diff with line %d", line)
			}
			return
		}
		lines := strings.SplitAfter(body, "\n")
		if line < 1 || line > len(lines) {
			t.Fatalf("line %d out of range (%d lines)", line, len(lines))
		}
		// The diff is a verbatim slice of the body starting at that line.
		off := len(strings.Join(lines[:line-1], ""))
		if !strings.HasPrefix(body[off:], d) {
			t.Fatalf("diff is not the body from line %d", line)
		}
		if !strings.HasPrefix(d, "diff ") && !strings.HasPrefix(d, "--- ") && !strings.HasPrefix(d, "Index: ") {
			t.Fatalf("diff starts with %q", d[:min(len(d), 20)])
		}
	})
}
