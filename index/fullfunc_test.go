package index

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/autosel-bot/autosel-bot/internal/testtree"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/internal/testkernel"
)

// TestFullFunc: a function re-parsed alone (from the closing brace of the
// one before it) equals the function of its file parsed whole, on layouts
// that make the part's start tricky; alone lists the functions that must
// be re-parsed alone (the others may fall back on the whole file).
func TestFullFunc(t *testing.T) {
	tests := []struct {
		name  string
		src   string
		alone []string
	}{
		{"plain", "#include <x.h>\n\nstatic int a(void)\n{\n\treturn f(1);\n}\n\nvoid b(int x)\n{\n\tif (x)\n\t\tg(x);\n}\n",
			[]string{"a", "b"}},
		{"type on its own line", "static inline int\na(void) { return 0; }\nstatic\nvoid __init\nb(void)\n{\n\tspin_lock(&l);\n\tmsleep(1);\n\tspin_unlock(&l);\n}\n",
			[]string{"a", "b"}},
		{"declarations between", "int a(void)\n{\n\treturn 1;\n}\nstatic const struct ops o = {\n\t.f = a,\n};\nDEFINE_MUTEX(m);\n/* { not a brace */\nint b(void)\n{\n\tmutex_lock(&m);\n\treturn 0;\n}\n",
			[]string{"a", "b"}},
		{"two on a line", "int a(void) { return x(); } int b(void) { return y(); }\nint c(void)\n{\n\treturn z();\n}\n",
			[]string{"a", "c"}},
		{"comment after a brace", "int a(void)\n{\n\treturn 1;\n} /* the end of a\n}\nint fake(void) {\n*/\nint b(void)\n{\n\treturn w();\n}\n",
			[]string{"a"}},
		{"ifdef alternatives", "#ifdef CONFIG_X\nint a(void)\n{\n\treturn p();\n}\n#else\nint a(void)\n{\n\treturn q();\n}\n#endif\nint b(void)\n{\n\treturn r();\n}\n",
			[]string{"b"}},
		{"unbalanced ifdef", "int a(void)\n{\n#ifdef X\n\tif (x) {\n#else\n\tif (y) {\n#endif\n\t\tf();\n\t}\n\treturn 0;\n}\nint b(void)\n{\n\treturn g();\n}\n",
			[]string{"a", "b"}},
		{"else of a group opened before", "#ifdef X\nint a(void)\n{\n\treturn 1;\n}\nint c(void)\n{\n#else\nint c(int z)\n{\n\tz = f(z);\n#endif\n\treturn g(2);\n}\n",
			[]string{"a"}},
		{"string with a brace", "const char *a(void)\n{\n\treturn \"}\";\n}\nint b(void)\n{\n\treturn h(\"{\");\n}\n",
			[]string{"a", "b"}},
		{"no final newline", "int a(void)\n{\n\treturn 1;\n}\nint b(void)\n{\n\treturn k();\n}",
			[]string{"a", "b"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			testtree.Write(t, dir, map[string]string{"f.c": tt.src})
			ix, err := Open(context.Background(), dir, Options{CacheDir: "-"})
			if err != nil {
				t.Fatal(err)
			}
			whole := cscan.ParseFile("f.c", []byte(tt.src))
			fi := ix.File("f.c")
			if len(fi.Funcs) != len(whole.Funcs) {
				t.Fatalf("index has %d functions, the parse %d", len(fi.Funcs), len(whole.Funcs))
			}
			for j, fn := range fi.Funcs {
				got := ix.Full(fn)
				var want *cscan.Func
				for _, w := range whole.Funcs {
					if w.Name == fn.Name && w.Start == fn.Start {
						want = w
						break
					}
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("%s at %d: re-parse differs:\n got %+v\nwant %+v", fn.Name, fn.Start, got, want)
				}
				ix.mu.Lock()
				_, alone := ix.full.byKey["f.c\x00"+strconv.Itoa(j)]
				ix.mu.Unlock()
				for _, a := range tt.alone {
					if a == fn.Name && !alone {
						t.Errorf("%s at %d: not re-parsed alone", fn.Name, fn.Start)
					}
				}
			}
		})
	}
}

// TestFullFuncKernel: on a sample of Linux 6.1 (ext2, kernel/time, the
// ath9k driver, the n_gsm tty), every function re-parsed through Full
// equals the function of its file parsed whole, and almost all of them are
// re-parsed alone.
func TestFullFuncKernel(t *testing.T) {
	if testing.Short() {
		t.Skip("kernel tree")
	}
	dir := testkernel.Dir(t)
	ix, err := Open(context.Background(), dir, Options{CacheDir: filepath.Join(filepath.Dir(dir), "index-cache")})
	if err != nil {
		t.Fatal(err)
	}
	funcs, alone := 0, 0
	for _, p := range ix.Paths() {
		if !strings.HasPrefix(p, "fs/ext2/") && !strings.HasPrefix(p, "kernel/time/") &&
			!strings.HasPrefix(p, "drivers/net/wireless/ath/ath9k/") && p != "drivers/tty/n_gsm.c" {
			continue
		}
		src, err := os.ReadFile(filepath.Join(dir, p))
		if err != nil {
			t.Fatal(err)
		}
		whole := map[string]*cscan.Func{}
		for _, w := range cscan.ParseFile(p, src).Funcs {
			if k := w.Name + ":" + strconv.Itoa(w.Start); whole[k] == nil {
				whole[k] = w
			}
		}
		for j, fn := range ix.File(p).Funcs {
			funcs++
			if got, want := ix.Full(fn), whole[fn.Name+":"+strconv.Itoa(fn.Start)]; !reflect.DeepEqual(got, want) {
				t.Errorf("%s: %s at %d: re-parse differs", p, fn.Name, fn.Start)
			}
			ix.mu.Lock()
			if _, ok := ix.full.byKey[p+"\x00"+strconv.Itoa(j)]; ok {
				alone++
			}
			ix.mu.Unlock()
		}
	}
	t.Logf("%d functions, %d re-parsed alone", funcs, alone)
	if funcs < 1000 || alone < funcs*95/100 {
		t.Errorf("%d functions, %d re-parsed alone", funcs, alone)
	}
}

// TestLineIndex: the offsets of lines of a text by number.
func TestLineIndex(t *testing.T) {
	long := strings.Repeat("x\n", 5000)
	tests := []struct {
		src         string
		first, last int
		want        string
		ok          bool
	}{
		{"a\nb\nc\n", 1, 1, "a\n", true},
		{"a\nb\nc\n", 2, 3, "b\nc\n", true},
		{"a\nb\nc", 3, 3, "c", true},
		{"a\nb\nc", 2, 3, "b\nc", true},
		{"a\nb\nc\n", 3, 4, "", false},
		{"a\nb\nc\n", 4, 4, "", false},
		{"a\nb\n", 0, 1, "", false},
		{"a\nb\n", 2, 1, "", false},
		{"", 1, 1, "", false},
		{long + "y\n", 5001, 5001, "y\n", true},
		{long + "y", 4999, 5001, "x\nx\ny", true},
		{long, 2048, 2049, "x\nx\n", true},
		{long, 5000, 5001, "", false},
		{"\n\n", 2, 2, "\n", true},
		{"\n\n", 3, 3, "", false},
	}
	for _, tt := range tests {
		got := ""
		a, e, ok := newLineIndex([]byte(tt.src)).span(tt.first, tt.last)
		if ok {
			got = tt.src[a:e]
		}
		if ok != tt.ok || got != tt.want {
			t.Errorf("span(%.10q..., %d, %d) = %q, %v; want %q, %v", tt.src, tt.first, tt.last, got, ok, tt.want, tt.ok)
		}
	}
	// Every range of every text of up to 5 of "x", "\n", "yy\n": as the
	// lines split apart.
	texts, level := []string{""}, []string{""}
	for k := 0; k < 5; k++ {
		var next []string
		for _, t := range level {
			next = append(next, t+"x", t+"\n", t+"yy\n")
		}
		texts, level = append(texts, next...), next
	}
	for _, text := range texts {
		lines := strings.SplitAfter(text, "\n")
		if lines[len(lines)-1] == "" {
			lines = lines[:len(lines)-1]
		}
		li := newLineIndex([]byte(text))
		for first := 0; first <= len(lines)+1; first++ {
			for last := first - 1; last <= len(lines)+1; last++ {
				want, wok := "", first >= 1 && last >= first && last <= len(lines)
				if wok {
					want = strings.Join(lines[first-1:last], "")
				}
				a, e, ok := li.span(first, last)
				if ok != wok || ok && text[a:e] != want {
					t.Errorf("span(%q, %d, %d) = %d, %d, %v; want %q, %v", text, first, last, a, e, ok, want, wok)
				}
			}
		}
	}
}
