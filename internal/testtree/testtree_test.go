package testtree

import (
	"os"
	"path/filepath"
	"reflect"
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
