package cscan

import "testing"

// TestFuncAt: the function whose body holds a line, none between
// functions, before a body or for a nil file.
func TestFuncAt(t *testing.T) {
	src := "int a(void)\n{\n\treturn 1;\n}\n\nstatic int b(int x)\n{\n\tx++;\n\treturn x;\n}\n"
	f := ParseFile("t.c", []byte(src))
	for _, tc := range []struct {
		line int
		want string
	}{{3, "a"}, {2, "a"}, {5, ""}, {8, "b"}, {10, "b"}, {11, ""}} {
		got := ""
		if fn := f.FuncAt(tc.line); fn != nil {
			got = fn.Name
		}
		if got != tc.want {
			t.Errorf("line %d: got %q, want %q", tc.line, got, tc.want)
		}
	}
	var nilFile *File
	if nilFile.FuncAt(1) != nil {
		t.Error("a nil file has a function")
	}
}
