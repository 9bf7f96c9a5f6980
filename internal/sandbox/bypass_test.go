package sandbox

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// includeBypass is one way a source file makes gcc, gas or ld read a file
// named by path, past the patch guard's textual checks (issue 37 point 5).
type includeBypass struct {
	name string
	// files are the sources written into the build directory; SECRET
	// stands for the host file's absolute path.
	files map[string]string
	// cmds run in order in the build directory (a failure stops the row).
	cmds [][]string
	// marker is in the outputs only when the host file was read ("" = the
	// secret's own text).
	marker string
	// denied is in the sandboxed run's output: the tool ran and could not
	// find the file ("" = the sandboxed run succeeds without the marker).
	denied string
}

// includeBypasses are the bypasses of issue 37 point 5, one row each.
var includeBypasses = []includeBypass{
	{name: "include macro",
		files: map[string]string{"a.c": "#define F \"SECRET\"\n#include F\n"},
		cmds:  [][]string{{"gcc", "-E", "a.c", "-o", "a.i"}}, denied: "No such file"},
	{name: "include with a comment",
		files: map[string]string{"a.c": "#/**/include \"SECRET\"\n"},
		cmds:  [][]string{{"gcc", "-E", "a.c", "-o", "a.i"}}, denied: "No such file"},
	{name: "digraph include",
		files: map[string]string{"a.c": "%:include \"SECRET\"\n"},
		cmds:  [][]string{{"gcc", "-E", "a.c", "-o", "a.i"}}, denied: "No such file"},
	{name: "continued include",
		files: map[string]string{"a.c": "#inc\\\nlude \"SECRET\"\n"},
		cmds:  [][]string{{"gcc", "-E", "a.c", "-o", "a.i"}}, denied: "No such file"},
	{name: "import",
		files: map[string]string{"a.c": "#import \"SECRET\"\n"},
		cmds:  [][]string{{"gcc", "-E", "a.c", "-o", "a.i"}}, denied: "No such file"},
	{name: "has_include macro",
		files: map[string]string{"a.c": "#define S(x) #x\n#define CAT(a, b) a##b\n#if __has_include(S(SECRET))\nCAT(found_, host_file)\n#endif\n"},
		cmds:  [][]string{{"gcc", "-E", "a.c", "-o", "a.i"}}, marker: "found_host_file"},
	{name: "pragma GCC dependency",
		files: map[string]string{"a.c": "#pragma GCC dependency \"SECRET\"\nint x;\n"},
		cmds:  [][]string{{"gcc", "-c", "a.c", "-o", "a.o"}}, marker: "is older than", denied: "No such file"},
	{name: "asm incbin",
		files: map[string]string{"a.c": "asm(\".incbin \\\"SECRET\\\"\");\n"},
		cmds:  [][]string{{"gcc", "-c", "a.c", "-o", "a.o"}}, denied: "file not found"},
	{name: "asm incbin concatenated",
		files: map[string]string{"a.c": "asm(\".inc\" \"bin \\\"SECRET\\\"\");\n"},
		cmds:  [][]string{{"gcc", "-c", "a.c", "-o", "a.o"}}, denied: "file not found"},
	{name: "gas macro incbin",
		files: map[string]string{"a.S": ".macro m a, b\n.\\a\\b \"SECRET\"\n.endm\nm inc, bin\n"},
		cmds:  [][]string{{"gcc", "-c", "a.S", "-o", "a.o"}}, denied: "file not found"},
	{name: "linker script INCLUDE",
		files: map[string]string{"m.c": "int m;\n", "s.lds": "INCLUDE SECRET\n"},
		cmds:  [][]string{{"gcc", "-c", "m.c", "-o", "m.o"}, {"ld", "-r", "-T", "s.lds", "m.o", "-o", "out.o"}}, denied: "cannot"},
	{name: "linker script INPUT",
		files: map[string]string{"m.c": "int m;\n", "s.lds": "INPUT(SECRET)\n"},
		cmds:  [][]string{{"gcc", "-c", "m.c", "-o", "m.o"}, {"ld", "-r", "-T", "s.lds", "m.o", "-o", "out.o"}}, denied: "cannot find"},
}

// TestIncludeBypassesContained: every guard bypass of issue 37 point 5
// reads a host file when the same commands run unsandboxed (the bypass is
// real), and in the sandbox the tool cannot see the file: neither its
// text nor its existence reaches the outputs.
func TestIncludeBypassesContained(t *testing.T) {
	s, _, _ := needBwrap(t, Options{})
	for _, tool := range []string{"gcc", "as", "ld"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("%s: %v", tool, err)
			}
			t.Skipf("%s: %v", tool, err)
		}
	}
	unsandboxed := New(Options{Bwrap: "/nonexistent/bwrap", AllowUnsandboxed: true}, nil)
	token := fmt.Sprintf("leaked_host_secret_%d", os.Getpid())
	// The secret is a line that C, GAS (as bytes) and ld (as a linker
	// script) all accept; its directory is not bound into the sandbox.
	secret := filepath.Join(t.TempDir(), "secret.lds")
	if err := os.WriteFile(secret, []byte(token+" = 0x1;\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, row := range includeBypasses {
		t.Run(row.name, func(t *testing.T) {
			marker := row.marker
			if marker == "" {
				marker = token
			}
			out, err := runBypass(t, unsandboxed, row, secret)
			if !strings.Contains(out, marker) {
				t.Fatalf("unsandboxed, the bypass did not read the host file (%v); want %q in:\n%s", err, marker, out)
			}
			out, err = runBypass(t, s, row, secret)
			if strings.Contains(out, marker) || strings.Contains(out, token) {
				t.Fatalf("the sandboxed build read the host file (%v):\n%s", err, out)
			}
			switch {
			case row.denied == "" && err != nil:
				t.Fatalf("sandboxed: the tool failed: %v:\n%s", err, out)
			case row.denied != "" && (err == nil || !strings.Contains(out, row.denied)):
				t.Fatalf("sandboxed: err %v, want a failure with %q:\n%s", err, row.denied, out)
			}
		})
	}
}

// runBypass writes row's files into a fresh build directory, runs its
// commands in s and returns their output followed by every file they
// wrote, with the first error.
func runBypass(t *testing.T, s *Sandbox, row includeBypass, secret string) (string, error) {
	t.Helper()
	dir := t.TempDir()
	old := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	for name, text := range row.files {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(strings.ReplaceAll(text, "SECRET", secret)), 0o644); err != nil {
			t.Fatal(err)
		}
		// Older than the secret, for #pragma GCC dependency.
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var out bytes.Buffer
	var runErr error
	for _, args := range row.cmds {
		runErr = s.Run(ctx, Spec{Args: args, Dir: dir, Writable: []string{dir}, Home: dir, Stdout: &out, Stderr: &out})
		if runErr != nil {
			break
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if _, src := row.files[e.Name()]; src || e.IsDir() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&out, "\n== %s ==\n%s", e.Name(), b)
	}
	return out.String(), runErr
}
