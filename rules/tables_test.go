package rules

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"testing/fstest"
)

type exampleTable struct {
	Names   []string       `yaml:"names"`
	Weights map[string]int `yaml:"weights"`
}

// builtin stands in for the embedded tables directory.
var builtin = fstest.MapFS{"tables/example.yaml": {Data: []byte("example:\n  names: [a, b]\n  weights:\n    a: 1\n")}}

func TestLoadTables(t *testing.T) {
	dir := t.TempDir()
	extra := filepath.Join(dir, "extra.yaml")
	os.WriteFile(extra, []byte("example:\n  names: [c]\n  weights: {b: 2}\nother: {x: 1}\n"), 0o644)
	unrelated := filepath.Join(dir, "unrelated.yaml")
	os.WriteFile(unrelated, []byte("other: {x: 1}\n"), 0o644)
	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(bad, []byte("example: [unclosed\n"), 0o644)

	tests := []struct {
		name    string
		extra   []string
		want    exampleTable
		wantErr string
	}{
		{"builtin", nil, exampleTable{[]string{"a", "b"}, map[string]int{"a": 1}}, ""},
		{"extended", []string{extra, unrelated}, exampleTable{[]string{"a", "b", "c"}, map[string]int{"a": 1, "b": 2}}, ""},
		{"malformed", []string{bad}, exampleTable{}, "bad.yaml"},
		{"missing", []string{filepath.Join(dir, "nope.yaml")}, exampleTable{}, "nope.yaml"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got exampleTable
			err := loadTables(builtin, "example", tc.extra, &got)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want mention of %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}
