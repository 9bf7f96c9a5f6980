package github

import "testing"

const diffmapSample = `diff --git a/f.c b/f.c
index 1..2 100644
--- a/f.c
+++ b/f.c
@@ -3,4 +3,5 @@ int f(void)
 a
-b
+B
+B2
 c

@@ -20,0 +22,2 @@
+x
+y
@@ -30,2 +33,1 @@
-p
 q
diff --git a/g.c b/g.c
deleted file mode 100644
--- a/g.c
+++ /dev/null
@@ -1,1 +0,0 @@
-gone
`

func TestTranslate(t *testing.T) {
	hs := fileHunks(diffmapSample, "")
	if len(hs["f.c"]) != 3 || len(hs["g.c"]) != 1 {
		t.Fatalf("hunks: %+v", hs)
	}
	for _, tt := range []struct {
		in, want int
		ok       bool
	}{
		{1, 1, true},   // before every hunk
		{3, 3, true},   // context
		{4, 0, false},  // removed
		{5, 6, true},   // context after a +1 change
		{6, 7, true},   // blank context line
		{10, 11, true}, // between hunks
		{20, 21, true}, // insertion goes after old line 20
		{21, 24, true},
		{30, 0, false},
		{31, 33, true},
		{40, 42, true},
	} {
		got, ok := translate(hs["f.c"], tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("translate(%d) = %d, %v; want %d, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
	right := rightLines(hs["f.c"])
	for _, l := range []int{3, 4, 5, 6, 7, 22, 23, 33} {
		if !right[l] {
			t.Errorf("line %d not commentable", l)
		}
	}
	for _, l := range []int{1, 8, 21, 24, 34} {
		if right[l] {
			t.Errorf("line %d commentable", l)
		}
	}
	// GitHub's per-file patch has no file headers.
	one := fileHunks("@@ -1,2 +1,3 @@\n a\n+b\n c", "x.c")
	if r := rightLines(one["x.c"]); !r[2] || len(r) != 3 {
		t.Errorf("per-file patch: %v", r)
	}
}
