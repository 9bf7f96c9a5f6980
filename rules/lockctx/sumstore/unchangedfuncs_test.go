package sumstore

import (
	"reflect"
	"testing"
)

func TestCommentLines(t *testing.T) {
	src := "int a;\n\n/* one\n two */\n// three\n  /* four */ x = 1;\nchar *s = \"/*\";\ny = 2; /* five\n*/\nc = '\\'';\n"
	want := []bool{false, true, true, true, true, false, false, false, true, false}
	if got := commentLines(splitLines([]byte(src))); !reflect.DeepEqual(got, want) {
		t.Errorf("commentLines = %v, want %v", got, want)
	}
}
