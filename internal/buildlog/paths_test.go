package buildlog

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestErrorLinesQuoteOnlyTheTree: diagnostics about files outside the
// worktree and build dir are dropped with their source lines; paths in
// the tree come out relative to it, however the compiler spelled them.
func TestErrorLinesQuoteOnlyTheTree(t *testing.T) {
	work := t.TempDir()
	wt, build := filepath.Join(work, "src", "linux-1234"), filepath.Join(work, "build", "linux-1234")
	pipe := strings.Repeat("\n", 19) + "foo;\n" + strings.Repeat("\n", 711) + "\tx = 1;\n"
	for f, data := range map[string]string{filepath.Join(wt, "fs", "pipe.c"): pipe, filepath.Join(build, "include", "generated", "autoconf.h"): "x\n"} {
		os.MkdirAll(filepath.Dir(f), 0o755)
		os.WriteFile(f, []byte(data), 0o644)
	}
	tests := []struct {
		name    string
		log     []string
		want    []string
		notWant []string
	}{
		{"host file included", []string{
			"In file included from " + wt + "/fs/pipe.c:10:",
			"/etc/passwd:1:5: error: expected '=', ',', ';', 'asm' or '__attribute__' before ':' token",
			"    1 | root:x:0:0:root:/root:/bin/bash",
			"      |     ^",
			wt + "/fs/pipe.c:20:1: error: 'foo' undeclared",
			"   20 | foo;",
		}, []string{"fs/pipe.c:20:1: error: 'foo' undeclared", "   20 | foo;"}, []string{"root:x", "/etc/passwd", "/bin/bash"}},
		{"host file only", []string{
			"/root/.ssh/id_rsa:1:1: error: stray '\\342' in program",
			"    1 | -----BEGIN OPENSSH PRIVATE KEY-----",
			"make[3]: *** [scripts/Makefile.build:250: fs/pipe.o] Error 1",
		}, []string{"make[3]: *** [scripts/Makefile.build:250: fs/pipe.o] Error 1"}, []string{"PRIVATE KEY", "id_rsa"}},
		{"ccache basedir relative path", []string{
			"../../src/linux-1234/fs/pipe.c: In function 'pipe_release':",
			"../../src/linux-1234/fs/pipe.c:732:9: error: 'x' undeclared",
			"  732 |         x = 1;",
		}, []string{"fs/pipe.c: In function 'pipe_release':", "fs/pipe.c:732:9: error: 'x' undeclared", "  732 |         x = 1;"}, []string{"..", "src/linux-1234"}},
		{"relative path escaping", []string{
			"../../../../etc/shadow:1:1: error: bad",
			"    1 | root:$6$salt$hash:19000:0:99999:7:::",
		}, nil, []string{"shadow", "$6$"}},
		{"generated header in the build dir", []string{
			build + "/include/generated/autoconf.h:3:9: error: macro redefined",
		}, []string{"include/generated/autoconf.h:3:9: error: macro redefined"}, []string{build}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ErrorLines([]byte(strings.Join(tt.log, "\n")), 20, wt, build)
			joined := strings.Join(got, "\n")
			for _, w := range tt.want {
				if !strings.Contains(joined+"\n", w+"\n") {
					t.Errorf("missing %q in\n%s", w, joined)
				}
			}
			for _, bad := range tt.notWant {
				if strings.Contains(joined, bad) {
					t.Errorf("quoted %q:\n%s", bad, joined)
				}
			}
		})
	}
}
