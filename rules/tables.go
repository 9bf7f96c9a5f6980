package rules

import (
	"bytes"
	"embed"
	"fmt"
	"io/fs"
	"os"
	"reflect"

	"go.yaml.in/yaml/v3"
)

// embedded holds the built-in primitive tables, one YAML file per rule
// family (tables/<section>.yaml), each with a top-level key naming its
// section.
//
//go:embed tables/*.yaml
var embedded embed.FS

// LoadTables decodes the built-in table tables/<section>.yaml into out,
// then each extra file's top-level <section> key over it: lists are
// appended to, maps merged key by key, other fields replaced when the extra
// file sets them. out must be a pointer to a struct. An extra file without
// the section is ignored; an unreadable or malformed one is an error naming
// it.
func LoadTables(section string, extra []string, out any) error {
	return loadTables(embedded, section, extra, out)
}

// loadTables is LoadTables over the built-in tables in fsys.
func loadTables(fsys fs.FS, section string, extra []string, out any) error {
	b, err := fs.ReadFile(fsys, "tables/"+section+".yaml")
	if err != nil {
		return fmt.Errorf("built-in table %s: %w", section, err)
	}
	if err := decodeSection(b, section, out); err != nil {
		return fmt.Errorf("built-in table %s.yaml: %w", section, err)
	}
	for _, f := range extra {
		b, err := os.ReadFile(f)
		if err != nil {
			return fmt.Errorf("table file: %w", err)
		}
		ext := reflect.New(reflect.TypeOf(out).Elem())
		if err := decodeSection(b, section, ext.Interface()); err != nil {
			return fmt.Errorf("table file %s: %w", f, err)
		}
		merge(reflect.ValueOf(out).Elem(), ext.Elem())
	}
	return nil
}

func decodeSection(b []byte, section string, out any) error {
	var doc map[string]yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&doc); err != nil {
		return err
	}
	node, ok := doc[section]
	if !ok {
		return nil
	}
	return node.Decode(out)
}

// merge folds src into dst: slices appended, maps merged, structs merged
// field by field, other non-zero values replaced.
func merge(dst, src reflect.Value) {
	switch dst.Kind() {
	case reflect.Struct:
		for i := 0; i < dst.NumField(); i++ {
			if dst.Type().Field(i).IsExported() {
				merge(dst.Field(i), src.Field(i))
			}
		}
	case reflect.Slice:
		if src.Len() > 0 {
			dst.Set(reflect.AppendSlice(dst, src))
		}
	case reflect.Map:
		if src.Len() == 0 {
			return
		}
		if dst.IsNil() {
			dst.Set(reflect.MakeMap(dst.Type()))
		}
		it := src.MapRange()
		for it.Next() {
			dst.SetMapIndex(it.Key(), it.Value())
		}
	default:
		if !src.IsZero() {
			dst.Set(src)
		}
	}
}
