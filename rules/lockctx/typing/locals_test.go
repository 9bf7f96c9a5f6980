package typing

import (
	"maps"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/autosel-bot/autosel-bot/index/indextest"
)

// TestLocals: every declarator of a run of declarations counts, and a
// struct tag in an expression, a cast, a product or a return does not.
func TestLocals(t *testing.T) {
	src := `void f(struct q *p, struct q *x, int n)
{
	struct q *a;
	struct q *b;
	struct q *c = p;
	struct r *dev = container_of(p, struct r, q);
	int size = sizeof(struct inode);

	(struct q *)x;
	n = n * width;
	size = c->len * height;
	return n;
}
`
	ix := indextest.Open(t, map[string]string{"a.c": src})
	ty := New(ix, nil)
	got := slices.Sorted(maps.Keys(ty.Locals(ix.Funcs("f")[0])))
	want := []string{"a", "b", "c", "dev", "n", "p", "size", "x"}
	if !slices.Equal(got, want) {
		t.Errorf("Locals = %q, want %q", got, want)
	}
}

// localsPatternRe is the unanchored pattern localNames stands for.
var localsPatternRe = regexp.MustCompile(`(?:^|[;{(,])\s*(?:(?:const|volatile|static|unsigned|signed|struct|union|enum)\s+)*([A-Za-z_]\w*)[\s*]+([A-Za-z_]\w*)\s*(?:=[^=]|;|\[|,|\))`)

// localsByPattern is localNames with the unanchored pattern searched from
// each place the next search starts.
func localsByPattern(text string) map[string]bool {
	ls := map[string]bool{}
	for at := 0; at < len(text); {
		m := localsPatternRe.FindStringSubmatchIndex(text[at:])
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

// FuzzLocalNames checks localNames against the unanchored pattern.
func FuzzLocalNames(f *testing.F) {
	for _, s := range []string{"void f(int a, struct q *b)\n{\n\tint c = 1, d;\n\treturn c;\n}\n",
		";int a;", "(x, y) int z", "{ const struct s *p = q; }", "a = b == c; int d[3];", ",,; ;int\t*\te)"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		got := map[string]bool{}
		localNames(text, got)
		if want := localsByPattern(text); !maps.Equal(got, want) {
			t.Errorf("localNames(%q) = %v, pattern %v", text, got, want)
		}
	})
}
