package report

import (
	"bytes"
	"encoding/json"
	"flag"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite golden files and schema.json")

// fieldDocs reads the doc comments of the struct fields in this package's
// sources: docs["Report.Title"] = "Title is the series title ...".
func fieldDocs(t *testing.T) map[string]string {
	t.Helper()
	fset := token.NewFileSet()
	files, _ := filepath.Glob("*.go")
	docs := map[string]string{}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			ts, ok := n.(*ast.TypeSpec)
			if !ok {
				return true
			}
			st, ok := ts.Type.(*ast.StructType)
			if !ok {
				return true
			}
			var prev string
			for _, fl := range st.Fields.List {
				doc := strings.Join(strings.Fields(fl.Doc.Text()), " ")
				if doc == "" && len(fl.Names) > 0 {
					// "A, B are ..." documents the fields that follow it.
					doc = prev
				}
				prev = doc
				for _, id := range fl.Names {
					docs[ts.Name.Name+"."+id.Name] = doc
				}
			}
			return false
		})
	}
	return docs
}

var timeType = reflect.TypeOf(time.Time{})

// schemaOf builds a JSON Schema for t from its json tags and field docs.
func schemaOf(t reflect.Type, docs map[string]string, defs map[string]any) map[string]any {
	switch {
	case t == timeType:
		return map[string]any{"type": "string", "format": "date-time"}
	case t.Kind() == reflect.Pointer:
		return schemaOf(t.Elem(), docs, defs)
	case t.Kind() == reflect.Slice:
		return map[string]any{"type": "array", "items": schemaOf(t.Elem(), docs, defs)}
	case t.Kind() == reflect.String:
		return map[string]any{"type": "string"}
	case t.Kind() == reflect.Bool:
		return map[string]any{"type": "boolean"}
	case t.Kind() >= reflect.Int && t.Kind() <= reflect.Uint64:
		return map[string]any{"type": "integer"}
	case t.Kind() == reflect.Float32 || t.Kind() == reflect.Float64:
		return map[string]any{"type": "number"}
	case t.Kind() == reflect.Map:
		return map[string]any{"type": "object", "additionalProperties": schemaOf(t.Elem(), docs, defs)}
	case t.Kind() == reflect.Struct:
		name := t.Name()
		ref := map[string]any{"$ref": "#/$defs/" + name}
		if _, ok := defs[name]; ok {
			return ref
		}
		defs[name] = nil // break recursion
		props := map[string]any{}
		var required []string
		addFields(t, docs, defs, props, &required)
		sort.Strings(required)
		def := map[string]any{"type": "object", "properties": props}
		if len(required) > 0 {
			def["required"] = required
		}
		defs[name] = def
		return ref
	}
	return map[string]any{}
}

func addFields(t reflect.Type, docs map[string]string, defs map[string]any, props map[string]any, required *[]string) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" || !f.IsExported() {
			continue
		}
		if f.Anonymous && tag == "" {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			addFields(ft, docs, defs, props, required)
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if name == "" {
			name = f.Name
		}
		s := schemaOf(f.Type, docs, defs)
		if d := docs[t.Name()+"."+f.Name]; d != "" {
			if _, isRef := s["$ref"]; isRef {
				s = map[string]any{"allOf": []any{s}, "description": d}
			} else {
				s["description"] = d
			}
		}
		props[name] = s
		if !strings.Contains(opts, "omitempty") && f.Type.Kind() != reflect.Pointer {
			*required = append(*required, name)
		}
	}
}

func genSchema(t *testing.T) []byte {
	defs := map[string]any{}
	docs := fieldDocs(t)
	docs["jsonReport.Schema"] = "Schema names the format: \"" + SchemaID + "\"."
	root := schemaOf(reflect.TypeOf(jsonReport{}), docs, defs)
	_ = root
	top := defs["jsonReport"].(map[string]any)
	delete(defs, "jsonReport")
	top["$schema"] = "https://json-schema.org/draft/2020-12/schema"
	top["$id"] = "https://github.com/autosel-bot/autosel-bot/report/schema.json"
	top["title"] = "autosel-bot report (one JSON object per series, one per line)"
	top["$defs"] = defs
	b, err := json.MarshalIndent(top, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(b, '\n')
}

// TestSchema keeps schema.json in sync with the Go types: after changing a
// report type, run `go test ./report -update` and review the diff.
func TestSchema(t *testing.T) {
	got := genSchema(t)
	if *update {
		if err := os.WriteFile("schema.json", got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile("schema.json")
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(got, want) {
		return
	}
	// Field docs only feed descriptions: a reworded comment is not a format
	// change. Fields, types and required lists must match.
	if g, w := structure(t, got), structure(t, want); !reflect.DeepEqual(g, w) {
		t.Errorf("report/schema.json is out of date with the report types (the JSON format changed): run `go test ./report -run TestSchema -update` and review the diff")
	} else {
		t.Logf("report/schema.json descriptions are stale; refresh with -update")
	}
}

// structure decodes a schema and drops its descriptions.
func structure(t *testing.T, b []byte) any {
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	var strip func(any) any
	strip = func(v any) any {
		switch x := v.(type) {
		case map[string]any:
			delete(x, "description")
			for k, e := range x {
				x[k] = strip(e)
			}
		case []any:
			for i, e := range x {
				x[i] = strip(e)
			}
		}
		return v
	}
	return strip(v)
}
