package buildlog

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestErrorLinesHostile replays the logs of issue 37 point 4: a patch
// made the compiler or linker read host files, and the reply must quote
// none of their text nor name them. Each case is a log a hostile build
// can produce; secret strings must not come out, tree text must.
func TestErrorLinesHostile(t *testing.T) {
	work := t.TempDir()
	wt, build := filepath.Join(work, "src", "linux"), filepath.Join(work, "build", "linux")
	tree := map[string]string{
		filepath.Join(wt, "fs", "pipe.c"):        "#include \"evil.h\"\nint x;\n",
		filepath.Join(wt, "fs", "my file.c"):     "\tint y = z;\n",
		filepath.Join(wt, "fs", "a:1:b.c"):       "int w = v;\n",
		filepath.Join(wt, "a.c"):                 "a\n",
		filepath.Join(build, "include", "gen.h"): "#define G 1\n",
	}
	for f, data := range tree {
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	secret := filepath.Join(work, "host secret:1.txt")
	if err := os.WriteFile(secret, []byte("SECRET-TOKEN\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// A symlink the build left in the tree, pointing at a host file.
	if err := os.Symlink(secret, filepath.Join(wt, "fs", "evil.h")); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(wt, "a.c:1:1"), 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		log     []string
		want    []string
		notWant []string
	}{
		{"host path with a space and a colon", []string{
			"In file included from " + wt + "/fs/pipe.c:1:",
			secret + ":1:1: error: unknown type name 'SECRET'",
			"    1 | SECRET-TOKEN",
			"      | ^~~~~~",
		}, nil, []string{"SECRET", "host secret", work}},
		{"host path with a colon", []string{
			"/etc/ld.so.conf.d/x:y.conf:1:1: error: expected identifier before 'include'",
			"    1 | include /etc/ld.so.conf.d/*.conf",
		}, nil, []string{"ld.so.conf", "include /etc"}},
		{"ld cannot find host files", []string{
			"ld: cannot find /etc/ld.so.conf: file format not recognized",
			"ld.bfd: cannot find -lSECRET",
			"/usr/bin/ld: cannot open linker script file " + secret,
		}, nil, []string{"ld.so.conf", "SECRET", "secret"}},
		{"deep relative include from the -I search", []string{
			"In file included from fs/pipe.c:1:",
			strings.Repeat("../", 12) + "etc/ld.so.conf:1:1: error: unknown type name 'include'",
			"    1 | include /etc/ld.so.conf.d/*.conf",
		}, nil, []string{"ld.so.conf", "include /etc"}},
		{"tree symlink to a host file", []string{
			wt + "/fs/evil.h:1:1: error: unknown type name 'SECRET'",
			"    1 | SECRET-TOKEN",
		}, nil, []string{"SECRET", "evil.h"}},
		{"tree name that reads as a host path", []string{
			wt + "/a.c:1:1/../../../../" + filepath.Base(secret) + ":1:1: error: expected ';' before 'SECRET'",
		}, nil, []string{"SECRET"}},
		{"source line that is not the tree's text", []string{
			wt + "/fs/pipe.c:2:1: error: redefinition of 'x'",
			"    2 | SECRET-TOKEN",
			"      | ^",
		}, []string{"fs/pipe.c:2:1: error: redefinition of 'x'"}, []string{"SECRET"}},
		{"caret label text dropped", []string{
			wt + "/fs/pipe.c:2:5: error: conflicting types",
			"    2 | int x;",
			"      |     ^",
			"      |     |",
			"      |     SECRET",
		}, []string{"fs/pipe.c:2:5: error: conflicting types", "    2 | int x;", "      |     ^"}, []string{"SECRET"}},
		{"tree path with a space", []string{
			wt + "/fs/my file.c:1:10: error: 'z' undeclared",
			"    1 |         int y = z;",
		}, []string{"fs/my file.c:1:10: error: 'z' undeclared", "    1 |         int y = z;"}, []string{wt}},
		{"tree path with colons", []string{
			"../../src/linux/fs/a:1:b.c:1:9: error: 'v' undeclared",
			"    1 | int w = v;",
		}, []string{"fs/a:1:b.c:1:9: error: 'v' undeclared", "    1 | int w = v;"}, []string{".."}},
		{"tail fallback names no host file", []string{
			"make: Entering directory '" + build + "'",
			"cat: /etc/shadow: Permission denied",
			"Killed",
		}, []string{"make: Entering directory '.'", "Killed"}, []string{"shadow", work}},
		{"assembler input", []string{
			"{standard input}:12: Error: no such instruction: `foo'",
		}, []string{"{standard input}:12: Error: no such instruction: `foo'"}, nil},
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
