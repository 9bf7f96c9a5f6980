package testtree

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestPatched(t *testing.T) {
	over, files := Patched(map[string]string{"a.c": "a", "b.c": "b"}, map[string]string{"a.c": "", "b.c": "B", "c.c": "c"})
	if want := map[string][]byte{"a.c": nil, "b.c": []byte("B"), "c.c": []byte("c")}; !reflect.DeepEqual(over, want) {
		t.Errorf("overlay %q, want %q", over, want)
	}
	if want := map[string]string{"b.c": "B", "c.c": "c"}; !reflect.DeepEqual(files, want) {
		t.Errorf("files %q, want %q", files, want)
	}
}

func TestDir(t *testing.T) {
	files := map[string]string{"a.c": "a", "x/y/b.h": "b"}
	dir := Dir(t, files)
	for p, want := range files {
		got, err := os.ReadFile(filepath.Join(dir, p))
		if err != nil || string(got) != want {
			t.Errorf("%s: %q, %v; want %q", p, got, err, want)
		}
	}
}

// TestRepo: a repository with the files committed and tagged base, by the
// fixed author, whatever the user's git configuration says.
func TestRepo(t *testing.T) {
	t.Setenv("GIT_AUTHOR_DATE", "2024-01-02T03:04:05Z")
	dir := Repo(t, map[string]string{"a.c": "int a;\n"})
	if got := Git(t, dir, "show", "base:a.c"); got != "int a;\n" {
		t.Errorf("base:a.c = %q", got)
	}
	if got := Git(t, dir, "log", "-1", "--format=%an <%ae> %aI %s"); got != "A U Thor <author@example.org> 2024-01-02T03:04:05+00:00 base\n" {
		t.Errorf("commit: %q", got)
	}
	if got := GitInput(t, dir, "int b;\n", "hash-object", "--stdin"); len(strings.TrimSpace(got)) != 40 {
		t.Errorf("hash-object: %q", got)
	}
	empty := Repo(t, nil)
	if got := Git(t, empty, "rev-list", "--count", "HEAD"); got != "1\n" {
		t.Errorf("empty repository: %s commits", got)
	}
}
