package buildlog

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// makeTree writes files (path -> content) under a new directory and
// returns it.
func makeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, data := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestErrorLines(t *testing.T) {
	pipe := strings.Repeat("\n", 731) + "\tnot_a_variable = 1;\n"
	linux := makeTree(t, map[string]string{"fs/pipe.c": pipe, "foo.c": "x\n", "a/b.c": "y\n"})
	gccWithContext := strings.Join([]string{
		"  CC      fs/read_write.o",
		linux + "/fs/pipe.c: In function 'pipe_release':",
		linux + "/fs/pipe.c:732:9: error: 'not_a_variable' undeclared (first use in this function)",
		"  732 |         not_a_variable = 1;",
		"      |         ^~~~~~~~~~~~~~",
		linux + "/fs/pipe.c:732:9: note: each undeclared identifier is reported only once",
		"make[3]: *** [" + linux + "/scripts/Makefile.build:250: fs/pipe.o] Error 1",
	}, "\n")
	tests := []struct {
		name string
		log  string
		dirs []string
		want []string
	}{
		{"gcc with context", gccWithContext, []string{linux, linux + "-build/"}, []string{
			"fs/pipe.c: In function 'pipe_release':",
			"fs/pipe.c:732:9: error: 'not_a_variable' undeclared (first use in this function)",
			"  732 |         not_a_variable = 1;",
			"      |         ^~~~~~~~~~~~~~",
		}},
		{"duplicates dropped", "  CC foo.o\n" + linux + "/foo.c:3:5: error: 'x' undeclared\n" + linux + "/foo.c:3:5: error: 'x' undeclared\nmake[1]: *** [foo.o] Error 1\n",
			[]string{linux}, []string{"foo.c:3:5: error: 'x' undeclared"}},
		{"colour and CRLF", "\x1b[01;31mfoo.c:1:2: error: bad\x1b[0m\r\n", []string{linux}, []string{"foo.c:1:2: error: bad"}},
		{"make only", "make: *** No rule to make target 'bar'.  Stop.\n", nil, []string{"make: *** No rule to make target 'bar'.  Stop."}},
		{"make failure first", "something odd\nmake[1]: *** [Makefile:2] Error 2\nlast line\n", nil, []string{"make[1]: *** [Makefile:2] Error 2"}},
		{"linker", "ld: foo.o: in function `f':\nfoo.c:(.text+0x5): undefined reference to `g'\n", []string{linux}, []string{"foo.c:(.text+0x5): undefined reference to `g'"}},
		{"no error line", "1\n2\n3\n", nil, []string{"1", "2", "3"}},
		{"modpost", "ERROR: modpost: \"sym\" [m.ko] undefined!\n", nil, []string{"ERROR: modpost: \"sym\" [m.ko] undefined!"}},
		{"empty dir prefix ignored", "a/b.c:1:1: error: e\n", []string{"", linux}, []string{"a/b.c:1:1: error: e"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ErrorLines([]byte(tt.log), 20, tt.dirs...)
			if strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestErrorLinesLimit(t *testing.T) {
	var many []string
	for i := 0; i < 30; i++ {
		many = append(many, fmt.Sprintf("f.c:%d:1: error: e", i))
	}
	dir := makeTree(t, map[string]string{"f.c": "x\n"})
	got := ErrorLines([]byte(strings.Join(many, "\n")), 20, dir)
	if len(got) != 20 || got[19] != "... (11 more error lines)" {
		t.Fatalf("%d lines, last %q", len(got), got[len(got)-1])
	}
	long := "f.c:1:1: error: " + strings.Repeat("x", 1000)
	if got := ErrorLines([]byte(long), 20, dir); len(got) != 1 || len(got[0]) != maxLineLen+3 {
		t.Fatalf("long line not capped: %d", len(got[0]))
	}
}

func FuzzErrorLines(f *testing.F) {
	f.Add("foo.c:1:2: error: bad\nmake: *** [x] Error 1\n", "/tmp/wt")
	f.Add("\x1b[31mfoo.c:1: error: x\x1b[0m\r\n", "")
	f.Add(strings.Repeat("a.c:1:1: error: y\n", 50), "/w")
	f.Add("", "/w")
	f.Fuzz(func(t *testing.T, log, dir string) {
		errs := ErrorLines([]byte(log), 20, dir)
		if len(errs) > 20 {
			t.Fatalf("%d lines", len(errs))
		}
		for _, e := range errs {
			if len(e) > maxLineLen+3 || strings.Contains(e, "\n") || e == "" {
				t.Fatalf("bad line %q", e)
			}
		}
	})
}
