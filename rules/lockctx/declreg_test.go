package lockctx

import (
	"reflect"
	"testing"
)

func TestMacroArgs(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
		ok   bool
	}{
		{"mytimer, mytimer_handler);", []string{"mytimer", "mytimer_handler"}, true},
		{"t, (void (*)(struct timer_list *))fn, f(a, b));", []string{"t", "(void (*)(struct timer_list *))fn", "f(a, b)"}, true},
		{"x, {1, 2});", []string{"x", "{1, 2}"}, true},
		{"unterminated, a", nil, false},
		{"a, b};", nil, false},
	} {
		got, ok := macroArgs(tc.in)
		if ok != tc.ok || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("macroArgs(%q) = %q, %v; want %q, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}
