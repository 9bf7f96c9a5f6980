package ctype

import (
	"maps"
	"regexp"
	"strings"
	"testing"
)

// declNamesRe is the unanchored pattern DeclNames stands for.
var declNamesRe = regexp.MustCompile(`(?:^|[;{(,])\s*(?:(?:const|volatile|static|unsigned|signed|struct|union|enum)\s+)*([A-Za-z_]\w*)[\s*]+([A-Za-z_]\w*)\s*(?:=[^=]|;|\[|,|\))`)

// declNamesByPattern is DeclNames with the unanchored pattern searched from
// each place the next search starts.
func declNamesByPattern(text string) map[string]bool {
	ls := map[string]bool{}
	for at := 0; at < len(text); {
		m := declNamesRe.FindStringSubmatchIndex(text[at:])
		if m == nil {
			break
		}
		if typ := text[at+m[2] : at+m[3]]; !notTypes[typ] {
			ls[text[at+m[4]:at+m[5]]] = true
		}
		end := at + m[1]
		if c := text[end-1]; c == ';' || c == ',' || c == ')' {
			at = end - 1
		} else if i := strings.IndexAny(text[end:], ";{(,"); i >= 0 {
			at = end + i
		} else {
			break
		}
	}
	return ls
}

// FuzzDeclNames checks DeclNames against the unanchored pattern.
func FuzzDeclNames(f *testing.F) {
	for _, s := range []string{"void f(int a, struct q *b)\n{\n\tint c = 1, d;\n\treturn c;\n}\n",
		";int a;", "(x, y) int z", "{ const struct s *p = q; }", "a = b == c; int d[3];", ",,; ;int\t*\te)"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		got := map[string]bool{}
		DeclNames(text, got)
		if want := declNamesByPattern(text); !maps.Equal(got, want) {
			t.Errorf("DeclNames(%q) = %v, pattern %v", text, got, want)
		}
	})
}
