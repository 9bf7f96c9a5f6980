package ctype

import (
	"fmt"
	"strings"
	"testing"
)

func TestWords(t *testing.T) {
	for _, tc := range []struct {
		src, name string
		want      bool
	}{
		{"foo(bar);", "bar", true},
		{"foo(&bar);", "bar", true},
		{"foo(bar_x);", "bar", false},
		{"foo(xbar);", "bar", false},
		{"xbar bar", "bar", true},
		{"bar", "bar", true},
		{"", "bar", false},
		{"1bar", "bar", false},
		{"$bar bar$", "bar", false},
		{"$bar bar$", "$bar", true},
		{"a b c d e f g h i j k l m n o p q r s t u v w x y z aa", "aa", true},
	} {
		if got := Words([]byte(tc.src)).Has(tc.name); got != tc.want {
			t.Errorf("Words(%q).Has(%q) = %v, want %v", tc.src, tc.name, got, tc.want)
		}
	}
	if (WordSet{}).Read() || !Words(nil).Read() {
		t.Error("Read: the zero WordSet holds no text, Words(nil) an empty one")
	}
}

// BenchmarkWords reads the identifiers of a driver-sized source file.
func BenchmarkWords(b *testing.B) {
	var sb strings.Builder
	for i := 0; sb.Len() < 100<<10; i++ {
		fmt.Fprintf(&sb, "static int drv_fn%d(struct drv_priv *priv)\n{\n\treturn priv->field%d + helper(priv, %d);\n}\n\n", i, i%50, i)
	}
	src := []byte(sb.String())
	b.ReportAllocs()
	for b.Loop() {
		Words(src)
	}
}
