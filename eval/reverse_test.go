package eval

import (
	"strings"
	"testing"
)

func TestReverse(t *testing.T) {
	tests := []struct {
		name, in, want, err string
	}{
		{
			name: "modify",
			in: `diff --git a/f.c b/f.c
index 1111111..2222222 100644
--- a/f.c
+++ b/f.c
@@ -1,4 +1,4 @@ int f(void)
 {
-	spin_lock(&l);
+	mutex_lock(&m);
 	return 0;
 }
`,
			want: `diff --git a/f.c b/f.c
index 2222222..1111111 100644
--- a/f.c
+++ b/f.c
@@ -1,4 +1,4 @@ int f(void)
 {
-	mutex_lock(&m);
+	spin_lock(&l);
 	return 0;
 }
`,
		},
		{
			name: "new file becomes deletion",
			in: `diff --git a/n.h b/n.h
new file mode 100644
index 0000000..3333333
--- /dev/null
+++ b/n.h
@@ -0,0 +1,2 @@
+#define A 1
+#define B 2
`,
			want: `diff --git a/n.h b/n.h
deleted file mode 100644
index 3333333..0000000
--- a/n.h
+++ /dev/null
@@ -1,2 +0,0 @@
-#define A 1
-#define B 2
`,
		},
		{
			name: "rename and mode",
			in: `diff --git a/old.c b/new.c
old mode 100644
new mode 100755
similarity index 90%
rename from old.c
rename to new.c
--- a/old.c
+++ b/new.c
@@ -3 +3 @@
-a
+b
`,
			want: `diff --git a/new.c b/old.c
new mode 100644
old mode 100755
similarity index 90%
rename to old.c
rename from new.c
--- a/new.c
+++ b/old.c
@@ -3 +3 @@
-b
+a
`,
		},
		{
			name: "interleaved change block keeps removals first",
			in: `--- a/x.c
+++ b/x.c
@@ -1,3 +1,4 @@
 a
-b
-c
+B
+C
+D
`,
			want: `--- a/x.c
+++ b/x.c
@@ -1,4 +1,3 @@
 a
-B
-C
-D
+b
+c
`,
		},
		{
			name: "no newline marker follows its line",
			in: `--- a/x
+++ b/x
@@ -1 +1 @@
-old
\ No newline at end of file
+new
`,
			want: `--- a/x
+++ b/x
@@ -1 +1 @@
-new
+old
\ No newline at end of file
`,
		},
		{
			name: "two hunks, plain diff timestamps",
			in:   "--- a/y.c\t2020-01-01 00:00:00\n+++ b/y.c\t2020-01-02 00:00:00\n@@ -1,2 +1,2 @@\n-x\n+y\n z\n@@ -10,1 +10,2 @@ f\n w\n+v\n",
			want: "--- a/y.c\n+++ b/y.c\n@@ -1,2 +1,2 @@\n-y\n+x\n z\n@@ -10,2 +10,1 @@ f\n w\n-v\n",
		},
		{
			name: "truncated hunk",
			in:   "--- a/x\n+++ b/x\n@@ -1,3 +1,3 @@\n a\n-b\n",
			err:  "hunk truncated",
		},
		{
			name: "binary",
			in:   "diff --git a/f.bin b/f.bin\nGIT binary patch\nliteral 1\n",
			err:  "binary",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Reverse(tc.in)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Fatalf("got:\n%s\nwant:\n%s", got, tc.want)
			}
			back, err := Reverse(got)
			if err != nil {
				t.Fatal(err)
			}
			again, err := Reverse(back)
			if err != nil || again != got {
				t.Fatalf("reverse is not an involution on its output: %v\n%s", err, again)
			}
		})
	}
}
