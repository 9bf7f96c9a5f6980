package index

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/autosel-bot/autosel-bot/cscan"
)

// TestRecordRoundTrip: what is written is read back identically (bodies
// aside), with shared guard lists, and the assignments after it.
func TestRecordRoundTrip(t *testing.T) {
	src := "static inline int f(int a)\n{\n\tif (a) {\n\t\tg(a, b);\n\t\th();\n\t}\n\treturn k(a);\n}\nSYSCALL_DEFINE1(x, int, a)\n{\n\tswitch (a) {\n\tcase 1:\n\t\treturn y();\n\t}\n\treturn 0;\n}\n" +
		"static const struct file_operations fops = {\n\t.read = f,\n};\n"
	f := cscan.ScanFile("a.c", []byte(src))
	as := ScanAssigns("", []byte(src))
	if len(as) == 0 {
		t.Fatal("no assignments scanned")
	}
	data, err := buildStore(storeInput{
		entries: []fileEntry{{path: "a.c", key: "gabc"}},
		files:   []*cscan.File{f},
		assigns: [][]Assign{as},
	})
	if err != nil {
		t.Fatal(err)
	}
	st, err := openStoreBytes(data)
	if err != nil {
		t.Fatal(err)
	}
	got, gotAs := decodeRecord(st.record(0), &st.strs, "a.c", true)
	if got == nil {
		t.Fatal("record damaged")
	}
	// Compare printed forms: empty and nil slices are the same here.
	if len(got.Funcs) != len(f.Funcs) {
		t.Fatalf("round trip: %d funcs, want %d", len(got.Funcs), len(f.Funcs))
	}
	for i := range f.Funcs {
		if g, w := fmt.Sprintf("%+v", *got.Funcs[i]), fmt.Sprintf("%+v", *f.Funcs[i]); g != w {
			t.Fatalf("round trip:\n got %s\nwant %s", g, w)
		}
	}
	if !reflect.DeepEqual(gotAs, as) {
		t.Errorf("assignments: got %+v, want %+v", gotAs, as)
	}
	fn := got.Funcs[0]
	if len(fn.Calls) < 2 || &fn.Calls[0].Guards[0] != &fn.Calls[1].Guards[0] {
		t.Errorf("guard lists of g and h not shared: %+v", fn.Calls)
	}
}
