package cscan

import "testing"

func TestGuardsEnclose(t *testing.T) {
	ifA := Guard{Kind: "if", Cond: "a", Line: 3}
	ifB := Guard{Kind: "if", Cond: "b", Line: 5}
	loop := Guard{Kind: "loop", Cond: "i < n", Line: 4}
	tests := []struct {
		name         string
		outer, inner []Guard
		want         bool
	}{
		{"function body encloses everything", nil, []Guard{ifA, ifB}, true},
		{"same block", []Guard{ifA}, []Guard{ifA}, true},
		{"outer block of a nested one", []Guard{ifA}, []Guard{ifA, ifB}, true},
		{"a branch does not enclose the code after it", []Guard{ifA}, nil, false},
		{"sibling blocks", []Guard{ifA, ifB}, []Guard{ifA, loop}, false},
		{"same condition text on another line", []Guard{{Kind: "if", Cond: "a", Line: 9}}, []Guard{ifA}, false},
	}
	for _, tt := range tests {
		if got := GuardsEnclose(tt.outer, tt.inner); got != tt.want {
			t.Errorf("%s: got %v", tt.name, got)
		}
	}
}
