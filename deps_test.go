package autoselbot

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// goDirective is go.mod's go line.
var goDirective = regexp.MustCompile(`(?m)^go (\S+)$`)

// languageVersion is a Go language version ("1.26", or "1.26.0" as go mod
// tidy writes it when a dependency names that): no patch release.
var languageVersion = regexp.MustCompile(`^1\.\d+(\.0)?$`)

// TestGoDirective: go.mod's go directive names the language version the
// code and its dependencies need, not the patch release a developer
// happened to use (that would refuse every older 1.N.x toolchain).
func TestGoDirective(t *testing.T) {
	data, err := os.ReadFile("go.mod")
	if err != nil {
		t.Fatal(err)
	}
	m := goDirective.FindSubmatch(data)
	if m == nil {
		t.Fatal("go.mod has no go directive")
	}
	if !languageVersion.Match(m[1]) {
		t.Errorf("go.mod: go %s is a patch release; name the language version (go 1.N, or 1.N.0 if go mod tidy asks)", m[1])
	}
}

// bannedImports are packages with a maintained replacement already in the
// module graph: one library per job.
var bannedImports = map[string]string{
	"gopkg.in/yaml.v3": "go.yaml.in/yaml/v3 (the maintained fork viper uses; gopkg.in/yaml.v3 is archived)",
}

// TestOneYAMLLibrary: no package of the module imports the archived
// gopkg.in/yaml.v3, and go.mod does not require it.
func TestOneYAMLLibrary(t *testing.T) {
	files := 0
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != "." && (name == "testdata" || strings.HasPrefix(name, ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		files++
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if use, ok := bannedImports[p]; ok {
				t.Errorf("%s imports %s: use %s", path, p, use)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 100 {
		t.Fatalf("only %d Go files found: the walk misses the module", files)
	}
	data, err := os.ReadFile("go.mod")
	if err != nil {
		t.Fatal(err)
	}
	for p := range bannedImports {
		if strings.Contains(string(data), p+" ") {
			t.Errorf("go.mod requires %s", p)
		}
	}
}
