package ctype

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"testing"

	"github.com/autosel-bot/autosel-bot/internal/testkernel"
)

// The patterns the scanners stand for (scan.go).
var (
	structOpenRe = regexp.MustCompile(`\bstruct\s+(\w+)\s*\{`)
	includeRe    = regexp.MustCompile(`(?m)^\s*#\s*include\s*([<"])([^>"]+)[>"]`)
	aliasRe      = regexp.MustCompile(`(?m)^[ \t]*#[ \t]*define[ \t]+(\w+)[ \t]+(\w+)\.(\w+)[ \t]*$`)
)

// sameAsPatterns checks both scanners against their patterns on src.
func sameAsPatterns(t *testing.T, name, src string) {
	t.Helper()
	var want [][3]int
	for _, m := range structOpenRe.FindAllStringSubmatchIndex(src, -1) {
		want = append(want, [3]int{m[2], m[3], m[1]})
	}
	if got := structOpenings(src); !reflect.DeepEqual(got, want) {
		t.Errorf("%s: structOpenings %v, pattern %v", name, got, want)
	}
	var wantD []byte
	var wantN []string
	for _, m := range includeRe.FindAllStringSubmatch(src, -1) {
		wantD = append(wantD, m[1][0])
		wantN = append(wantN, m[2])
	}
	if d, n := IncludeDirectives(src); !reflect.DeepEqual(d, wantD) || !reflect.DeepEqual(n, wantN) {
		t.Errorf("%s: IncludeDirectives %q %q, pattern %q %q", name, d, n, wantD, wantN)
	}
	if got, want := memberAliases(src), aliasRe.FindAllStringSubmatch(src, -1); !reflect.DeepEqual(got, want) {
		t.Errorf("%s: memberAliases %q, pattern %q", name, got, want)
	}
}

func TestScannersMatchPatterns(t *testing.T) {
	for i, src := range []string{
		"", "struct", "struct x{", "struct  x \n {", "mystruct x {", "struct x y {", "struct\tx{}struct y{",
		"structure x {", "struct {", "(struct x){", "_struct x {", "struct x", "struct x ;",
		"#include <a.h>\n", "  #  include \"b.h\"\n", "x #include <c.h>\n", "\n\t#include<d.h>",
		"#include <>\n", "#include <e.h", "#include <f.h\"", "#\ninclude <g.h>", "#include <h\ni.h>",
		"#define X\n#include \"j.h\"\n#include <k.h>\n", "\r\n#include <l.h>", "a\n  \n #include <m.h>",
		"#include \"n.h\" #include <o.h>\n#include <p.h>",
		"#define sk_prot __sk_common.skc_prot\n", " # define a b.c \t\n#define d e.f", "#define a b.c.d\n",
		"#define a b.c\r\n", "x #define a b.c\n", "#define a b.c /* x */\n", "#undefine a b.c\n#define\ta\tb.c",
		"#define a\nb.c\n", "define a b.c\n#define a b.c define\n#define g h.i",
	} {
		sameAsPatterns(t, string(rune('a'+i)), src)
	}
}

// FuzzScanners checks the scanners against their patterns on any input.
func FuzzScanners(f *testing.F) {
	for _, s := range []string{"struct x {", "#include <a.h>\n", "  #include \"b\"", "struct  y\n{\n#include <c>", "#define a b.c\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) { sameAsPatterns(t, "fuzz", src) })
}

// TestScannersOnKernel compares the scanners with their patterns on every
// header under include/ of Linux 6.1.
func TestScannersOnKernel(t *testing.T) {
	dir := testkernel.Dir(t)
	for _, p := range testkernel.Sources(t, filepath.Join(dir, "include")) {
		b, err := os.ReadFile(filepath.Join(dir, "include", p))
		if err != nil {
			t.Fatal(err)
		}
		sameAsPatterns(t, p, string(b))
	}
}
