package runner

import (
	"reflect"
	"strings"
	"testing"
)

func TestBuildErrors(t *testing.T) {
	log := strings.Join([]string{
		"  CC      fs/read_write.o",
		"/var/tmp/x/src/linux/fs/pipe.c: In function 'pipe_release':",
		"/var/tmp/x/src/linux/fs/pipe.c:732:9: error: 'not_a_variable' undeclared (first use in this function)",
		"  732 |         not_a_variable = 1;",
		"      |         ^~~~~~~~~~~~~~",
		"/var/tmp/x/src/linux/fs/pipe.c:732:9: note: each undeclared identifier is reported only once",
		"make[3]: *** [/var/tmp/x/src/linux/scripts/Makefile.build:250: fs/pipe.o] Error 1",
		"make[2]: *** [/var/tmp/x/src/linux/scripts/Makefile.build:500: fs] Error 2",
	}, "\n")
	got := buildErrors([]byte(log), "/var/tmp/x/src/linux", "/var/tmp/x/build/linux")
	want := []string{
		"fs/pipe.c: In function 'pipe_release':",
		"fs/pipe.c:732:9: error: 'not_a_variable' undeclared (first use in this function)",
		"  732 |         not_a_variable = 1;",
		"      |         ^~~~~~~~~~~~~~",
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestBuildErrorsLinkerAndFallback(t *testing.T) {
	got := buildErrors([]byte("  LD      vmlinux\nld: fs/pipe.o: in function `pipe_read':\npipe.c:(.text+0x1): undefined reference to `nope'\nmake: *** [Makefile:1] Error 1\n"))
	if len(got) == 0 || !strings.Contains(strings.Join(got, "\n"), "undefined reference to `nope'") {
		t.Fatalf("linker error not found: %q", got)
	}
	got = buildErrors([]byte("something odd\nmake[1]: *** [Makefile:2] Error 2\nlast line\n"))
	if len(got) == 0 || !strings.HasPrefix(got[0], "make[1]: ***") {
		t.Fatalf("fallback: %q", got)
	}
	var many []string
	for i := 0; i < 100; i++ {
		many = append(many, "f.c:1:1: error: e"+strings.Repeat("x", i))
	}
	if got := buildErrors([]byte(strings.Join(many, "\n"))); len(got) != maxBuildErrorLines {
		t.Fatalf("cap: %d lines", len(got))
	}
}
