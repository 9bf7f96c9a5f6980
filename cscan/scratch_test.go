package cscan

import (
	"fmt"
	"strings"
	"sync"
	"testing"
)

// TestScratchReuse scans files of different sizes in turn and from several
// goroutines at once: a scan must not see what the scratch memory held
// from an earlier, larger one.
func TestScratchReuse(t *testing.T) {
	small := "static int f(struct s *p)\n{\n\tif (g(p->a, h(1)))\n\t\treturn k(p);\n\treturn 0;\n}\n"
	var big strings.Builder
	for i := 0; i < 300; i++ {
		fmt.Fprintf(&big, "void fn%d(int x)\n{\n\tspin_lock(&l%d);\n\tswitch (x) {\n\tcase %d: a%d(x, y, z); break;\n\t}\n\tlist_for_each(p, q) {\n\t\tb(p, (c + d) * e[f]);\n\t}\n}\n", i, i, i, i)
	}
	fragment := "\tmutex_lock(&m);\n\tif (x)\n\t\tgoto out;\n}\n"
	dump := func(src string) string {
		var sb strings.Builder
		dumpFile(&sb, ParseFile("a.c", []byte(src)))
		dumpFile(&sb, ScanFile("a.c", []byte(src)))
		dumpFunc(&sb, ParseBody(src, nil))
		return sb.String()
	}
	want := map[string]string{}
	for _, src := range []string{small, fragment, big.String()} {
		want[src] = dump(src)
	}
	if !strings.Contains(want[small], `"g"(`) || !strings.Contains(want[big.String()], "fn299") {
		t.Fatalf("unexpected scan:\n%s", want[small])
	}
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			order := []string{big.String(), small, fragment, big.String(), fragment, small}
			for i := 0; i < 20; i++ {
				src := order[(i+g)%len(order)]
				if got := dump(src); got != want[src] {
					errs <- fmt.Sprintf("goroutine %d, round %d: scan differs:\n%s\nwant:\n%s", g, i, got, want[src])
					return
				}
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}
