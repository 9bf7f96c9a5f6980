package ctype

import (
	"maps"
	"testing"
)

func TestTypedefDecls(t *testing.T) {
	for _, tc := range []struct {
		text string
		want map[string]string
	}{
		{"static m_addr_t ___dma_getp(m_pool_s *mp)\n{\n\tm_vtob_s *vbp;\n", map[string]string{"mp": "m_pool_s", "vbp": "m_vtob_s"}},
		{"void f(kdbtab_t *tp, const lnk_t *const l, int n)", map[string]string{"tp": "kdbtab_t", "l": "lnk_t"}},
		{"\tfoo_t *a = NULL, *b;\n", map[string]string{"a": "foo_t"}},
		// Expressions and keywords are not declarations.
		{"\treturn *p;\n\tx = a * b;\n\tn = sizeof *q;\n", nil},
		// A product in a call's arguments reads like a parameter: it is
		// a candidate only, which no struct typedef named "a" confirms.
		{"\tcall(a * b);\n", map[string]string{"b": "a"}},
		{"\tint *p;\n\tchar *s;\n", nil},
		// The same name declared with two types decides nothing.
		{"\ta_t *x;\n\t{ b_t *x; }\n", nil},
	} {
		got := TypedefDecls(tc.text)
		if len(got) == 0 && len(tc.want) == 0 {
			continue
		}
		if !maps.Equal(got, tc.want) {
			t.Errorf("TypedefDecls(%q) = %v, want %v", tc.text, got, tc.want)
		}
	}
}
