package testtree

import (
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
