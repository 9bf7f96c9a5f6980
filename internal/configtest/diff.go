package configtest

import (
	"fmt"
	"reflect"
	"strings"
	"time"
)

// Diff lists the configuration keys (fields with a mapstructure tag other
// than "-", dotted under prefix) whose values differ between a and b, two
// values of the same struct type. An empty and a nil list are equal.
func Diff(prefix string, a, b any) []string {
	return diff(prefix, reflect.ValueOf(a), reflect.ValueOf(b), false)
}

// Unfilled lists the keys that defaults sets (non-zero) and filled, the
// zero options with the package's defaults filled in, does not hold: a
// default that config.yaml documents but the code does not apply to an
// unset (0, "") setting. Booleans and lists are skipped: their zero value
// is a setting of its own (false, none), not "unset".
func Unfilled(prefix string, filled, defaults any) []string {
	return diff(prefix, reflect.ValueOf(filled), reflect.ValueOf(defaults), true)
}

func diff(prefix string, a, b reflect.Value, onlySet bool) []string {
	var out []string
	t := a.Type()
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("mapstructure"), ",")
		if !f.IsExported() || name == "-" {
			continue
		}
		key := strings.TrimPrefix(prefix+"."+name, ".")
		if strings.Contains(opts, "squash") {
			key = prefix
		}
		fa, fb := a.Field(i), b.Field(i)
		switch {
		case f.Type.Kind() == reflect.Struct && f.Type != reflect.TypeFor[time.Time]():
			out = append(out, diff(key, fa, fb, onlySet)...)
			continue
		case onlySet && (fb.IsZero() || f.Type.Kind() == reflect.Bool || f.Type.Kind() == reflect.Slice):
			continue
		case f.Type.Kind() == reflect.Slice && fa.Len() == 0 && fb.Len() == 0:
			continue
		}
		// %v prints a nil and an empty list alike (lists in structs in
		// lists: watch.commands.trust).
		if va, vb := fa.Interface(), fb.Interface(); !reflect.DeepEqual(va, vb) && fmt.Sprint(va) != fmt.Sprint(vb) {
			out = append(out, fmt.Sprintf("%s: %v, want %v", key, va, vb))
		}
	}
	return out
}
