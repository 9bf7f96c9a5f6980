package buildlog

import (
	"fmt"
	"strings"
	"testing"
)

func TestErrorLines(t *testing.T) {
	gccWithContext := strings.Join([]string{
		"  CC      fs/read_write.o",
		"/var/tmp/x/src/linux/fs/pipe.c: In function 'pipe_release':",
		"/var/tmp/x/src/linux/fs/pipe.c:732:9: error: 'not_a_variable' undeclared (first use in this function)",
		"  732 |         not_a_variable = 1;",
		"      |         ^~~~~~~~~~~~~~",
		"/var/tmp/x/src/linux/fs/pipe.c:732:9: note: each undeclared identifier is reported only once",
		"make[3]: *** [/var/tmp/x/src/linux/scripts/Makefile.build:250: fs/pipe.o] Error 1",
	}, "\n")
	tests := []struct {
		name string
		log  string
		dirs []string
		want []string
	}{
		{"gcc with context", gccWithContext, []string{"/var/tmp/x/src/linux", "/var/tmp/x/build/linux/"}, []string{
			"fs/pipe.c: In function 'pipe_release':",
			"fs/pipe.c:732:9: error: 'not_a_variable' undeclared (first use in this function)",
			"  732 |         not_a_variable = 1;",
			"      |         ^~~~~~~~~~~~~~",
		}},
		{"duplicates dropped", "  CC foo.o\n/w/foo.c:3:5: error: 'x' undeclared\n/w/foo.c:3:5: error: 'x' undeclared\nmake[1]: *** [foo.o] Error 1\n",
			[]string{"/w"}, []string{"foo.c:3:5: error: 'x' undeclared"}},
		{"colour and CRLF", "\x1b[01;31mfoo.c:1:2: error: bad\x1b[0m\r\n", nil, []string{"foo.c:1:2: error: bad"}},
		{"make only", "make: *** No rule to make target 'bar'.  Stop.\n", nil, []string{"make: *** No rule to make target 'bar'.  Stop."}},
		{"make failure first", "something odd\nmake[1]: *** [Makefile:2] Error 2\nlast line\n", nil, []string{"make[1]: *** [Makefile:2] Error 2"}},
		{"linker", "ld: foo.o: in function `f':\nfoo.c:(.text+0x5): undefined reference to `g'\n", nil, []string{"foo.c:(.text+0x5): undefined reference to `g'"}},
		{"no error line", "1\n2\n3\n", nil, []string{"1", "2", "3"}},
		{"modpost", "ERROR: modpost: \"sym\" [m.ko] undefined!\n", nil, []string{"ERROR: modpost: \"sym\" [m.ko] undefined!"}},
		{"empty dir prefix ignored", "a/b.c:1:1: error: e\n", []string{""}, []string{"a/b.c:1:1: error: e"}},
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
	got := ErrorLines([]byte(strings.Join(many, "\n")), 20)
	if len(got) != 20 || got[19] != "... (11 more error lines)" {
		t.Fatalf("%d lines, last %q", len(got), got[len(got)-1])
	}
	long := "f.c:1:1: error: " + strings.Repeat("x", 1000)
	if got := ErrorLines([]byte(long), 20); len(got) != 1 || len(got[0]) != maxLineLen+3 {
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
