package cscan

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

func funcNames(f *File) []string {
	var out []string
	for _, fn := range f.Funcs {
		out = append(out, fmt.Sprintf("%s:%d-%d-%d", fn.Name, fn.Start, fn.BodyStart, fn.End))
	}
	return out
}

func TestParseFileFuncs(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []string
	}{
		{"plain", "int foo(int a)\n{\n\treturn a;\n}\n", []string{"foo:1-2-4"}},
		{"static inline header", "static inline void __pipe_lock(struct pipe_inode_info *pipe)\n{\n\tmutex_lock_nested(&pipe->mutex, I_MUTEX_PARENT);\n}\n",
			[]string{"__pipe_lock:1-2-4"}},
		{"syscall", "SYSCALL_DEFINE3(read, unsigned int, fd, char __user *, buf, size_t, count)\n{\n\treturn ksys_read(fd, buf, count);\n}\n",
			[]string{"sys_read:1-2-4"}},
		{"compat syscall", "COMPAT_SYSCALL_DEFINE2(foo, int, a, int, b) {\n}\n", []string{"compat_sys_foo:1-1-2"}},
		{"attributes after", "static void lock_it(spinlock_t *l) __acquires(l)\n{\n\tspin_lock(l);\n}\n", []string{"lock_it:1-2-4"}},
		{"attribute before", "static __attribute__((noinline)) int bar(void) { return 0; }\n", []string{"bar:1-1-1"}},
		{"macro before without semicolon", "DEFINE_FOO(x)\nstatic int baz(void)\n{\n}\n", []string{"baz:2-3-4"}},
		{"struct and initializer are not funcs", "struct s { int (*fn)(int); };\nstatic struct s x = { .fn = foo };\nint a[] = { f(1), 2 };\nvoid q(void) {}\n", []string{"q:4-4-4"}},
		{"comments and strings", "/* void no(void) { } */\n// void nope(void) {\nvoid yes(void)\n{\n\tprintk(\"}{ \\\" ;\");\n\tc = '}';\n}\n", []string{"yes:3-4-7"}},
		{"both sides of if", "#ifdef CONFIG_X\nvoid a(void) { }\n#else\nvoid b(void) { }\n#endif\n", []string{"a:2-2-2", "b:4-4-4"}},
		{"if 0", "#if 0\nvoid dead(void) { }\n#else\nvoid live(void) { }\n#endif\n", []string{"live:4-4-4"}},
		{"unbalanced if", "void f(void)\n{\n#ifdef X\n\tif (a) {\n#else\n\tif (b) {\n#endif\n\t\tg();\n\t}\n}\nvoid h(void) { }\n", []string{"f:1-2-10", "h:11-11-11"}},
		{"continuation", "#define FOO(x) \\\n\tdo { x; } while (0)\nvoid f(void) { FOO(1); }\n", []string{"f:3-3-3"}},
		{"prototype only", "int foo(int);\nextern void bar(void);\n", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := ParseFile("x.c", []byte(tc.src))
			got := funcNames(f)
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("funcs = %v, want %v (skipped %v)", got, tc.want, f.Skipped)
			}
		})
	}
}

func callString(c Call) string {
	var g []string
	for _, x := range c.Guards {
		g = append(g, x.Kind+"("+x.Cond+")")
	}
	s := fmt.Sprintf("%d %s(%s)", c.Line, c.Name, strings.Join(c.Args, "|"))
	if len(g) > 0 {
		s += " [" + strings.Join(g, " ") + "]"
	}
	return s
}

func TestParseFileCalls(t *testing.T) {
	src := `static int f(struct pipe_inode_info *pipe, int n)
{
	if (spin_trylock(&pipe->lock)) {
		kfree(kmalloc(n,
			      GFP_KERNEL));
	} else
		ops->release(pipe);
	for (i = 0; i < n; i++)
		do_it(i);
	list_for_each_entry(w, &head, node)
		wake_up(&w->wait);
	switch (n) {
	case 1:
		a();
		break;
	default:
		b();
	}
	scoped_guard(spinlock_irqsave, &pipe->lock)
		c();
	guard(mutex)(&pipe->mutex);
	do {
		d();
	} while (e());
	return g(n);
}
`
	want := []string{
		"3 spin_trylock(&pipe->lock)",
		"4 kfree(kmalloc(n, GFP_KERNEL)) [if(spin_trylock(&pipe->lock))]",
		"4 kmalloc(n|GFP_KERNEL) [if(spin_trylock(&pipe->lock))]",
		"7 ops->release(pipe) [else()]",
		"9 do_it(i) [loop(i = 0; i < n; i++)]",
		"10 list_for_each_entry(w|&head|node)",
		"11 wake_up(&w->wait) [loop(list_for_each_entry(w, &head, node))]",
		"14 a() [switch(n) case(1)]",
		"17 b() [switch(n) case(default)]",
		"19 scoped_guard(spinlock_irqsave|&pipe->lock)",
		"20 c() [scoped_guard(spinlock_irqsave, &pipe->lock)]",
		"21 guard(mutex|&pipe->mutex)",
		"23 d() [loop(e())]",
		"24 e() [loop(e())]",
		"25 g(n)",
	}
	f := ParseFile("x.c", []byte(src))
	if len(f.Funcs) != 1 {
		t.Fatalf("funcs: %v", funcNames(f))
	}
	var got []string
	for _, c := range f.Funcs[0].Calls {
		got = append(got, callString(c))
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("calls:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if r := f.Funcs[0].Returns; len(r) != 1 || r[0].Line != 25 || r[0].Expr != "g(n)" {
		t.Fatalf("returns = %+v", r)
	}
}

// dump renders a statement tree compactly for tests.
func dump(s Stmt) string {
	switch s := s.(type) {
	case nil:
		return "_"
	case *Block:
		var parts []string
		for _, x := range s.Stmts {
			parts = append(parts, dump(x))
		}
		return "{" + strings.Join(parts, " ") + "}"
	case *ExprStmt:
		return "e" + fmt.Sprint(s.Line)
	case *IfStmt:
		if s.Else != nil {
			return "if(" + s.Cond + ")" + dump(s.Then) + "else" + dump(s.Else)
		}
		return "if(" + s.Cond + ")" + dump(s.Then)
	case *LoopStmt:
		return s.Kind + "(" + s.Cond + ")" + dump(s.Body)
	case *SwitchStmt:
		return "switch(" + s.Cond + ")" + dump(s.Body)
	case *CaseStmt:
		return "case " + s.Label + ":"
	case *ReturnStmt:
		return "return " + s.Expr
	case *GotoStmt:
		return "goto " + s.Label
	case *LabelStmt:
		return s.Label + ":"
	case *BreakStmt:
		return "break"
	case *ContinueStmt:
		return "continue"
	case *ScopedGuardStmt:
		return "scoped_guard(" + strings.Join(s.Args, ",") + ")" + dump(s.Body)
	}
	return "?"
}

func TestStmtTree(t *testing.T) {
	tests := []struct {
		src, want string
	}{
		{"void f(void) { a(); if (x) b(); else { c(); goto out; } out: return; }",
			"{e1 if(x)e1else{e1 goto out} out: return }"},
		{"void f(void) { while (1) { if (y) break; continue; } }", "{while(1){if(y)break continue}}"},
		{"void f(void) { switch (x) { case A: case B ... C: f(); break; default: ; } }", "{switch(x){case A: case B ... C: e1 break case default:}}"},
		{"void f(void) { scoped_guard(rcu) { a(); } b(); }", "{scoped_guard(rcu){e1} e1}"},
		{"void f(void) { do x(); while (0); }", "{do(0)e1}"},
		{"void f(void) { struct a b = { .c = 1 }; int d = ({ int e = 1; e; }); }", "{e1 e1}"},
		{"void f(void) { for_each_cpu(cpu, m) { a(cpu); } }", "{macro(cpu, m){e1}}"},
		{"void f(void) { a() }", "{e1}"},
	}
	for _, tc := range tests {
		f := ParseFile("x.c", []byte(tc.src))
		if len(f.Funcs) != 1 {
			t.Fatalf("%q: funcs %v", tc.src, funcNames(f))
		}
		if got := dump(f.Funcs[0].Body); got != tc.want {
			t.Errorf("%q:\n got %s\nwant %s", tc.src, got, tc.want)
		}
	}
}

func TestParseBodyPartial(t *testing.T) {
	// The lines a hunk shows: the header, then a gap, then the tail with
	// one more '}' than it opened.
	text := "static bool post_one_notification(struct watch_queue *wqueue,\n" +
		"\t\t\t\t  struct watch_notification *n)\n" +
		"{\n" +
		"\trcu_read_unlock();\n" +
		"\n" +
		"\t__pipe_lock(pipe);\n" +
		"\t\tgoto out;\n" +
		"\t}\n" +
		"out:\n" +
		"\t__pipe_unlock(pipe);\n" +
		"\trcu_read_lock();\n" +
		"\treturn done;\n" +
		"}\n"
	lines := []int{98, 99, 100, 125, 126, 127, 150, 151, 160, 161, 162, 163, 164}
	fn := ParseBody(text, lines)
	if fn.Name != "post_one_notification" || fn.Start != 98 || fn.BodyStart != 100 {
		t.Fatalf("header: %+v", fn)
	}
	var got []string
	for _, c := range fn.Calls {
		got = append(got, callString(c))
	}
	want := []string{"125 rcu_read_unlock()", "127 __pipe_lock(pipe)"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("calls = %v, want %v", got, want)
	}
	// Without the header: statements only, stray braces tolerated.
	fn = ParseBody("\t\tfoo();\n\t}\n\tspin_unlock(&l);\n}\n", []int{10, 11, 12, 13})
	got = nil
	for _, c := range fn.Calls {
		got = append(got, callString(c))
	}
	want = []string{"10 foo()", "12 spin_unlock(&l)"}
	if fn.Name != "" || !reflect.DeepEqual(got, want) {
		t.Fatalf("headerless: name %q calls %v", fn.Name, got)
	}
}

func TestHugeInputSkipped(t *testing.T) {
	deep := "void f(void) " + strings.Repeat("{", 1000) + strings.Repeat("}", 1000) + "\nvoid g(void) { h(); }\n"
	f := ParseFile("deep.c", []byte(deep))
	if len(f.Skipped) != 1 || !strings.Contains(f.Skipped[0].Reason, "nested") || len(f.Funcs) != 1 || f.Funcs[0].Name != "g" {
		t.Fatalf("deep: funcs %v skipped %v", funcNames(f), f.Skipped)
	}
	big := make([]byte, MaxFileSize+1)
	f = ParseFile("big.c", big)
	if len(f.Skipped) != 1 || !strings.Contains(f.Skipped[0].Reason, "too large") || f.Skipped[0].Line != 1 {
		t.Fatalf("big: %v", f.Skipped)
	}
	// Text parsed from a line of its file is skipped at that line.
	f = ParseFileFrom("big.c", big, 120)
	if len(f.Skipped) != 1 || f.Skipped[0].Line != 120 {
		t.Fatalf("big from line 120: %v", f.Skipped)
	}
}

func FuzzParseFile(f *testing.F) {
	f.Add([]byte("static inline void f(void) { if (a) { b(c, d); } else e(); }"))
	f.Add([]byte("#if X\nvoid f(void) {\n#else\nvoid g(void) {\n#endif\n}"))
	f.Add([]byte("SYSCALL_DEFINE1(x, int, a) { switch (a) { case 1: return 0; } }"))
	f.Add([]byte("void f(void) { scoped_guard(spinlock, &l) guard(rcu)(); \"\\"))
	f.Fuzz(func(t *testing.T, src []byte) {
		file := ParseFile("fuzz.c", src)
		for _, fn := range file.Funcs {
			if fn.Name == "" || fn.Body == nil {
				t.Fatalf("func without name or body: %+v", fn)
			}
		}
		// ScanFile takes shortcuts without bodies; it must find exactly
		// what ParseFile finds.
		var full, scan strings.Builder
		bodiless := *file
		bodiless.Funcs = nil
		for _, fn := range file.Funcs {
			c := *fn
			c.Body = nil
			bodiless.Funcs = append(bodiless.Funcs, &c)
		}
		dumpFile(&full, &bodiless)
		dumpFile(&scan, ScanFile("fuzz.c", src))
		if full.String() != scan.String() {
			t.Fatalf("ScanFile differs from ParseFile:\n%s\nParseFile:\n%s", scan.String(), full.String())
		}
		fn := ParseBody(string(src), nil)
		if fn.Body == nil {
			t.Fatal("ParseBody returned no body")
		}
	})
}
