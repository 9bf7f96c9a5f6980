package diffcheck

import (
	"strings"
	"testing"
)

// andreiFix is the quick fix of seed 000 with real tabs (as the repaired
// seed has it) and andreiDamaged is the same hunk as the list delivered it:
// Gmail expanded the tabs and wrapped two long lines.
const andreiFix = `diff --git a/fs/pipe.c b/fs/pipe.c
index 5a34d6c22d4c..deaf67239a18 100644
--- a/fs/pipe.c
+++ b/fs/pipe.c
@@ -412,7 +412,7 @@ pipe_read(struct kiocb *iocb, struct iov_iter *to)
 		wake_up_interruptible_sync_poll(&pipe->wr_wait, EPOLLOUT | EPOLLWRNORM);
 		kill_fasync(&pipe->fasync_writers, SIGIO, POLL_OUT);
 	}
-	if (wake_next_reader)
+	if (!pipe->writers || wake_next_reader)
 		wake_up_interruptible_sync_poll(&pipe->rd_wait, EPOLLIN | EPOLLRDNORM);
 	if (ret > 0)
 		file_accessed(filp);
`

const andreiDamaged = `diff --git a/fs/pipe.c b/fs/pipe.c
index 5a34d6c22d4c..deaf67239a18 100644
--- a/fs/pipe.c
+++ b/fs/pipe.c
@@ -412,7 +412,7 @@ pipe_read(struct kiocb *iocb, struct iov_iter *to)
                wake_up_interruptible_sync_poll(&pipe->wr_wait,
EPOLLOUT | EPOLLWRNORM);
                kill_fasync(&pipe->fasync_writers, SIGIO, POLL_OUT);
        }
-       if (wake_next_reader)
+       if (!pipe->writers || wake_next_reader)
                wake_up_interruptible_sync_poll(&pipe->rd_wait,
EPOLLIN | EPOLLRDNORM);
        if (ret > 0)
                file_accessed(filp);
`

func TestRecoverDiff(t *testing.T) {
	hdr := "diff --git a/x.c b/x.c\n--- a/x.c\n+++ b/x.c\n"
	tests := []struct {
		name     string
		diff     string
		want     string
		joined   []int
		retabbed int
	}{
		{"Andrei's fix as Gmail sent it", andreiDamaged, andreiFix, []int{7, 13}, 8},
		{"intact diff", andreiFix, andreiFix, nil, 0},
		{"wrapped line, spaces kept when the file has tabs",
			hdr + "@@ -1,3 +1,3 @@\n a\n-b\n+call_something_long(argument_one,\nargument_two);\n \tc\n",
			hdr + "@@ -1,3 +1,3 @@\n a\n-b\n+call_something_long(argument_one, argument_two);\n \tc\n", []int{8}, 0},
		{"not a tab-indented file",
			"--- a/x.py\n+++ b/x.py\n@@ -1,2 +1,2 @@\n-        a = 1\n+        a = 2\n",
			"--- a/x.py\n+++ b/x.py\n@@ -1,2 +1,2 @@\n-        a = 1\n+        a = 2\n", nil, 0},
		{"alignment spaces after the tabs",
			hdr + "@@ -1,2 +1,2 @@\n-       f(a,\n+       g(a,\n                   b);\n",
			hdr + "@@ -1,2 +1,2 @@\n-\tf(a,\n+\tg(a,\n \t\t   b);\n", nil, 3},
		{"wrapped last line of the diff",
			hdr + "@@ -1,2 +1,2 @@\n a\n-b\n+call_something_long(argument_one,\nargument_two);\n",
			hdr + "@@ -1,2 +1,2 @@\n a\n-b\n+call_something_long(argument_one, argument_two);\n", []int{8}, 0},
		{"wrapped last line of a hunk before the next hunk",
			hdr + "@@ -1,2 +1,2 @@\n a\n-b\n+c(d,\ne);\n@@ -9,1 +9,1 @@\n-x\n+y\n",
			hdr + "@@ -1,2 +1,2 @@\n a\n-b\n+c(d, e);\n@@ -9,1 +9,1 @@\n-x\n+y\n", []int{8}, 0},
		{"a trailer after the last hunk is not a wrapped rest",
			hdr + "@@ -1,2 +1,2 @@\n a\n-b\n+c\nbase-commit: 0123456789abcdef\n",
			hdr + "@@ -1,2 +1,2 @@\n a\n-b\n+c\nbase-commit: 0123456789abcdef\n", nil, 0},
		{"prose after the last hunk, followed by more prose, is left alone",
			hdr + "@@ -1,2 +1,2 @@\n a\n-b\n+c\nthanks\nmore words\n",
			hdr + "@@ -1,2 +1,2 @@\n a\n-b\n+c\nthanks\nmore words\n", nil, 0},
		{"a line without op that does not make the counts exact is left alone",
			hdr + "@@ -1,3 +1,3 @@\n a\n-b\n+c\n\td\n",
			hdr + "@@ -1,3 +1,3 @@\n a\n-b\n+c\n\td\n", nil, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := recoverDiff(tc.diff)
			if r.text != tc.want {
				t.Errorf("recovered:\n%s\nwant:\n%s", r.text, tc.want)
			}
			if joinInts(r.joined) != joinInts(tc.joined) || r.retabbed != tc.retabbed {
				t.Errorf("joined %v retabbed %d, want %v %d", r.joined, r.retabbed, tc.joined, tc.retabbed)
			}
		})
	}
}

// TestParseRecovered: Parse repairs the damage, keeps the diff lines of
// the text as given, and says so in a note.
func TestParseRecovered(t *testing.T) {
	cs, err := Parse(andreiDamaged)
	if err != nil {
		t.Fatal(err)
	}
	want, err := Parse(andreiFix)
	if err != nil {
		t.Fatal(err)
	}
	if !cs.Recovered || len(cs.Notes) != 1 || !strings.Contains(cs.Notes[0], "re-joined 2 line-wrapped lines (diff lines 7, 13)") ||
		!strings.Contains(cs.Notes[0], "tabs in 8 lines of fs/pipe.c") {
		t.Errorf("recovered %v notes %q", cs.Recovered, cs.Notes)
	}
	h, wh := cs.Files[0].Hunks[0], want.Files[0].Hunks[0]
	for i := range h.Lines {
		if h.Lines[i].Text != wh.Lines[i].Text || h.Lines[i].NewLine != wh.Lines[i].NewLine {
			t.Errorf("line %d: %q, want %q", i, h.Lines[i].Text, wh.Lines[i].Text)
		}
	}
	// "+\tif (!pipe->writers ..." is line 11 of the damaged text (10 of
	// the intact one).
	if l := h.Lines[4]; l.Op != OpAdd || l.DiffLine != 11 {
		t.Errorf("added line %+v, want diff line 11", l)
	}
	if cs.Funcs[0].Name != "pipe_read" {
		t.Errorf("funcs %v", cs.Funcs)
	}
}

func TestRepair(t *testing.T) {
	if got, note := Repair(andreiDamaged); got != andreiFix || !strings.HasPrefix(note, "recovered a mail-damaged diff") {
		t.Errorf("Repair: %q, %q", got, note)
	}
	if got, note := Repair(andreiFix); got != andreiFix || note != "" {
		t.Errorf("Repair of an intact diff: %q, %q", got, note)
	}
}
