package wakeup

import (
	"reflect"
	"regexp"
	"testing"

	"github.com/autosel-bot/autosel-bot/internal/testkernel"
)

// findAllRegexps are the regexps findAllStmts runs, with the test of the
// texts that may hold a match of each.
var findAllRegexps = []struct {
	name string
	re   *regexp.Regexp
	may  func(string) bool
}{
	{"structDecl", structDeclRe, mayStructDecl},
	{"typedefDecl", typedefDeclRe, mayTypedefDecl},
	{"queueCallAlias", queueCallAliasRe, mayCallAlias},
	{"alias", aliasRe, mayAlias},
}

// TestFindAllStmts: findAllStmts finds what FindAllStringSubmatch finds on
// the whole text, on texts whose matches touch the statement breaks, and
// (the indexes) on kernel/ of Linux 6.1.
func TestFindAllStmts(t *testing.T) {
	texts := []string{
		"",
		";",
		"wq = &p->rd_wait;",
		"a=b->c;d=e->f;{g=h.i;}",
		"wait_queue_head_t *wq;wait_queue_head_t q=x;{spinlock_t l;}",
		"x = f(a); y = g (b) ; z=&s->q;",
		"static int foo(struct pipe_inode_info *pipe) {\n\twait_queue_head_t *wq = &pipe->rd_wait;\n\twq = sk_sleep(sk);\n}",
		"f(x_t y, z_t\n*w) { u = v->w\n;}",
		"= ; _t ; = {} =;=",
		"struct a *b; struct\nc d, *e;{struct f g;}",
	}
	small := len(texts)
	if !testing.Short() {
		files, _ := testkernel.ReadSources(t, testkernel.Dir(t), "kernel")
		for _, f := range files {
			texts = append(texts, string(f.Src))
		}
	}
	matches := 0
	for _, r := range findAllRegexps {
		for i, text := range texts {
			if i < small {
				want := r.re.FindAllStringSubmatch(text, -1)
				if got := findAllStmts(r.re, text, r.may); !reflect.DeepEqual(got, want) {
					t.Errorf("%s, text %d: got %d matches %q, want %d %q", r.name, i, len(got), got, len(want), want)
				}
			}
			wantIndex := r.re.FindAllStringSubmatchIndex(text, -1)
			if got := findAllStmtsIndex(r.re, text, r.may); !reflect.DeepEqual(got, wantIndex) {
				t.Errorf("%s, text %d: got indexes %v, want %v", r.name, i, got, wantIndex)
			}
			matches += len(wantIndex)
		}
	}
	t.Logf("%d texts, %d matches", len(texts), matches)
}

// BenchmarkVarTypesScan is the declarations scan of a whole file, over
// fs/ of Linux 6.1.
func BenchmarkVarTypesScan(b *testing.B) {
	files, size := testkernel.ReadSources(b, testkernel.Dir(b), "fs")
	texts := make([]string, len(files))
	for i, f := range files {
		texts[i] = string(f.Src)
	}
	b.SetBytes(size)
	for b.Loop() {
		for _, text := range texts {
			newVarTypes().scan(text)
		}
	}
}
