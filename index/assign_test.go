package index

import (
	"context"
	"fmt"
	"testing"

	"github.com/autosel-bot/autosel-bot/internal/testkernel"
)

func TestScanAssigns(t *testing.T) {
	tests := []struct {
		name, src string
		want      []string // "struct.member=func@line base"
	}{
		{"ops table", "static const struct net_device_ops foo_ops = {\n\t.ndo_open = foo_open,\n\t.ndo_get_stats64 = foo_stats\n};\n",
			[]string{"net_device_ops.ndo_open=foo_open@2", "net_device_ops.ndo_get_stats64=foo_stats@3"}},
		{"array of structs", "static struct irq_chip chips[] = {\n\t{ .irq_mask = a_mask, },\n\t{\n\t\t.irq_mask = b_mask,\n\t},\n};\n",
			[]string{"irq_chip.irq_mask=a_mask@2", "irq_chip.irq_mask=b_mask@4"}},
		{"designated array elements", "static struct apei_exec_ins_type insts[] = {\n\t[LOAD] = {\n\t\t.run = load_fn,\n\t},\n\t[STORE ... LAST] = { .run = store_fn, },\n};\n",
			[]string{"apei_exec_ins_type.run=load_fn@3", "apei_exec_ins_type.run=store_fn@5"}},
		{"nested initializer has no tag", "static struct outer o = {\n\t.inner = {\n\t\t.cb = f,\n\t},\n\t.x = 1,\n};\n",
			[]string{".cb=f@3"}},
		{"compound literal", "void g(void) { h(&(struct notifier_block){ .notifier_call = nb_fn }); }\n",
			[]string{"notifier_block.notifier_call=nb_fn@1"}},
		{"plain assignments", "void g(struct t *t)\n{\n\tt->timer.function = tfn;\n\tt->nb.notifier_call = nfn;\n\tt->n = NULL;\n\tt->m = OTHER;\n\tif (a == b) x = y;\n}\n",
			[]string{".function=tfn@3 t->timer", ".notifier_call=nfn@4 t->nb"}},
		{"element of a member array", "void g(struct il *il)\n{\n\til->handlers[N_ALIVE] = alive_fn;\n\til->cfg.hdl[i + 1] = other_fn;\n\til->handlers[N_X] = tbl[2];\n\tx[3] = y;\n}\n",
			[]string{".handlers=alive_fn@3 il", ".hdl=other_fn@4 il->cfg"}},
		{"comments and strings ignored", "/* .a = b, */\nchar *s = \".c = d,\";\nstatic struct s x = { .e = f, };\n",
			[]string{"s.e=f@3"}},
		{"comparison is not assignment", "void g(void) { if (p->cb == fn) return; }\n", nil},
		{"member after a conditional directive", "static const struct net_device_ops o = {\n\t.ndo_open = a_open,\n#ifdef CONFIG_NET_POLL_CONTROLLER\n\t.ndo_poll_controller = a_poll,\n#endif /* a\n comment */\n\t.ndo_stop = a_stop,\n};\n",
			[]string{"net_device_ops.ndo_open=a_open@2", "net_device_ops.ndo_poll_controller=a_poll@4", "net_device_ops.ndo_stop=a_stop@7"}},
		{"continued directive", "static struct s x = {\n#if defined(A) && \\\n    defined(B)\n\t.cb = f,\n#endif\n};\n",
			[]string{"s.cb=f@4"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, a := range ScanAssigns("a.c", []byte(tc.src)) {
				s := fmt.Sprintf("%s.%s=%s@%d", a.Struct, a.Member, a.Func, a.Line)
				if a.Base != "" {
					s += " " + a.Base
				}
				got = append(got, s)
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
}

// BenchmarkAssignsCold builds the member-assignment table of Linux 6.1
// from scratch (a fresh cache directory; the function index is loaded
// warm first and not timed).
func BenchmarkAssignsCold(b *testing.B) {
	dir := testkernel.Dir(b)
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		cache := b.TempDir()
		ix, err := Open(context.Background(), dir, Options{CacheDir: cache})
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if len(ix.AssignsTo("ndo_start_xmit")) == 0 {
			b.Fatal("no ndo_start_xmit assignments")
		}
	}
}

// BenchmarkAssignsWarm loads the table from its cache file.
func BenchmarkAssignsWarm(b *testing.B) {
	dir := testkernel.Dir(b)
	cache := b.TempDir()
	ix, err := Open(context.Background(), dir, Options{CacheDir: cache})
	if err != nil {
		b.Fatal(err)
	}
	ix.AssignsTo("x")
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		ix, err := Open(context.Background(), dir, Options{CacheDir: cache})
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if len(ix.AssignsTo("ndo_start_xmit")) == 0 {
			b.Fatal("no ndo_start_xmit assignments")
		}
	}
}

// TestScanAssignsVar checks the variable a top-level initializer declares,
// past the annotations kernel code puts between the name and the "=".
func TestScanAssignsVar(t *testing.T) {
	tests := []struct{ name, src, want string }{
		{"plain", "static struct notifier_block foo_nb = { .notifier_call = f, };\n", "foo_nb"},
		{"annotation after the name", "static struct notifier_block foo_nb __read_mostly = { .notifier_call = f, };\n", "foo_nb"},
		{"annotation with arguments", "static struct notifier_block foo_nb __section(\".x\") __aligned(8) = { .notifier_call = f, };\n", "foo_nb"},
		{"const after the tag", "static const struct tty_operations const foo_ops __initconst = { .open = f, };\n", "foo_ops"},
		{"array element: no variable", "static struct irq_chip chips[2] __ro_after_init = { { .irq_mask = f, }, };\n", ""},
		{"name with underscores", "static struct notifier_block __foo_nb = { .notifier_call = f, };\n", "__foo_nb"},
		{"typedef'd type", "static foo_ops_t my_ops __read_mostly = { .cb = f, };\n", "my_ops"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			as := ScanAssigns("a.c", []byte(tc.src))
			if len(as) != 1 || as[0].Var != tc.want {
				t.Errorf("got %+v, want one assignment of variable %q", as, tc.want)
			}
		})
	}
}
