package autoselbot

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// aptCall matches a command line that runs apt-get or apt (not apt-cache,
// apt-key, ...).
var aptCall = regexp.MustCompile(`(^|[;&|({]\s*|\s)apt(-get)?\s`)

// TestCIScriptsWaitForDpkgLock checks that every apt command of the CI
// set-up scripts waits for the dpkg lock (apt's DPkg::Lock::Timeout)
// instead of failing at once when another apt (unattended-upgrades on a
// fresh machine) holds it.
func TestCIScriptsWaitForDpkgLock(t *testing.T) {
	scripts, err := filepath.Glob(filepath.Join(".ci", "setup.d", "*.sh"))
	if err != nil {
		t.Fatal(err)
	}
	scripts = append(scripts, filepath.Join(".ci", "setup.sh"), filepath.Join(".ci", "run"))
	calls := 0
	for _, path := range scripts {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(data), "\n") {
			code, _, _ := strings.Cut(line, "#")
			for _, cmd := range splitCommands(code) {
				if !aptCall.MatchString(" " + cmd) {
					continue
				}
				calls++
				if !strings.Contains(cmd, "-o DPkg::Lock::Timeout=") {
					t.Errorf("%s:%d: apt runs without -o DPkg::Lock::Timeout=N (fails when another apt holds the lock): %s",
						path, i+1, strings.TrimSpace(cmd))
				}
			}
		}
	}
	if calls == 0 {
		t.Fatal("no apt command found in the CI scripts: the check reads the wrong files")
	}
}

// commandSep separates the commands of a shell line: ;, && and || (enough
// for the CI scripts, which quote no such characters in apt command lines).
var commandSep = regexp.MustCompile(`;|&&|\|\|`)

// splitCommands splits a shell line into its commands.
func splitCommands(line string) []string {
	return commandSep.Split(line, -1)
}

// TestMakeTestRunsStaticcheck: `make test` (what CI runs) runs
// staticcheck after vet, and deadcode, as go.mod tools so that they need
// nothing beyond the module proxy.
func TestMakeTestRunsStaticcheck(t *testing.T) {
	mk, err := os.ReadFile("Makefile")
	if err != nil {
		t.Fatal(err)
	}
	_, recipe, ok := strings.Cut(string(mk), "\ntest:\n")
	if !ok {
		t.Fatal("Makefile has no test target")
	}
	if end := strings.Index(recipe, "\n\n"); end >= 0 {
		recipe = recipe[:end]
	}
	vet := strings.Index(recipe, "$(GO) vet ./...")
	sc := strings.Index(recipe, "$(GO) tool staticcheck ./...")
	if vet < 0 || sc < vet {
		t.Errorf("make test does not run `$(GO) tool staticcheck ./...` after vet:\n%s", recipe)
	}
	mod, err := os.ReadFile("go.mod")
	if err != nil {
		t.Fatal(err)
	}
	tools := goModTools(string(mod))
	if !tools["honnef.co/go/tools/cmd/staticcheck"] {
		t.Error("go.mod does not pin staticcheck as a tool (go get -tool honnef.co/go/tools/cmd/staticcheck@v0.8.2)")
	}
	if !strings.Contains(recipe, "$(GO) tool deadcode -test ./...") || !tools["golang.org/x/tools/cmd/deadcode"] {
		t.Error("make test does not run `$(GO) tool deadcode -test ./...` with deadcode pinned as a go.mod tool")
	}
}

// goModTools returns the tool directives of a go.mod: single `tool X`
// lines and the lines of `tool ( ... )` blocks.
func goModTools(mod string) map[string]bool {
	out := map[string]bool{}
	block := false
	for _, l := range strings.Split(mod, "\n") {
		l = strings.TrimSpace(l)
		switch {
		case block && l == ")":
			block = false
		case block && l != "":
			out[l] = true
		case l == "tool (":
			block = true
		case strings.HasPrefix(l, "tool "):
			out[strings.TrimSpace(strings.TrimPrefix(l, "tool "))] = true
		}
	}
	return out
}
