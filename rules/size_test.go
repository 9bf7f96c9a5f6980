package rules

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Size limits of the rules/ tree's non-test Go files: a file a newcomer
// can read in one go, a function that fits on a couple of screens.
const (
	maxFileLines = 600
	maxFuncLines = 120
)

// sizeExceptions are the functions allowed over maxFuncLines, by
// "dir/file.go:name", each with why. There are none.
var sizeExceptions = map[string]string{}

// TestSizes: no non-test file in rules/ is over maxFileLines lines and no
// function over maxFuncLines, except the documented sizeExceptions.
func TestSizes(t *testing.T) {
	over, err := oversized(".")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, o := range over {
		if _, ok := sizeExceptions[o.key]; ok && o.fn {
			seen[o.key] = true
			continue
		}
		t.Errorf("%s: %d lines (limit %d)", o.key, o.lines, o.limit)
	}
	for k := range sizeExceptions {
		if !seen[k] {
			t.Errorf("sizeExceptions: %s is within the limit now (or gone): remove the exception", k)
		}
	}
}

// TestSizesCatch: the check finds an over-long file and function, and
// leaves test files, short files and testdata alone. The fixtures are
// written here: kept under rules/testdata they would be over the limit.
func TestSizesCatch(t *testing.T) {
	root := t.TempDir()
	long := "package sizes\n\n// long is over the function limit.\nfunc long() int {\n\tx := 0\n" +
		strings.Repeat("\tx++\n", maxFuncLines) + "\treturn x\n}\n" +
		strings.Repeat("\n// padding\n", maxFileLines/2)
	files := map[string]string{
		"long.go":          long,
		"short.go":         "package sizes\n\nfunc short() {}\n",
		"big_test.go":      long, // test files are not checked
		"testdata/long.go": long, // nor testdata below the root
	}
	for name, text := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	over, err := oversized(root)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, o := range over {
		got = append(got, o.key)
	}
	want := "long.go long.go:long"
	if strings.Join(got, " ") != want {
		t.Errorf("oversized = %q, want %q", got, want)
	}
}

// size is a file or function over its limit.
type size struct {
	// key is "file" or "file:func", relative to the root.
	key          string
	lines, limit int
	fn           bool
}

// oversized parses the non-test Go files under root (testdata left out)
// and returns those over maxFileLines and the functions over
// maxFuncLines.
func oversized(root string) ([]size, error) {
	fset := token.NewFileSet()
	var out []size
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == "testdata" && path != root {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if n := fset.File(f.Pos()).LineCount(); n > maxFileLines {
			out = append(out, size{key: rel, lines: n, limit: maxFileLines})
		}
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok {
				continue
			}
			n := fset.Position(fd.End()).Line - fset.Position(fd.Pos()).Line + 1
			if n > maxFuncLines {
				out = append(out, size{key: rel + ":" + fd.Name.Name, lines: n, limit: maxFuncLines, fn: true})
			}
		}
		return nil
	})
	return out, err
}
