package sleep

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/autosel-bot/autosel-bot/index"
	"github.com/autosel-bot/autosel-bot/report"
)

// sleepCase is one snippet test: a.c before and after the patch, and the
// findings wanted as "severity func prim" (sorted), none for a near miss.
type sleepCase struct {
	name     string
	old, new string
	want     []string
	// treeOnly marks interprocedural cases patch-only mode cannot see.
	treeOnly bool
}

// body wraps statements in a function f() with the usual locals.
func body(stmts string) string {
	return "static spinlock_t l;\nstatic struct mutex m;\n\nstatic int f(struct dev *d, gfp_t gfp)\n{\n\tvoid *p;\n" + stmts + "\treturn 0;\n}\n"
}

func sleepCases() []sleepCase {
	region := func(enter, exit, call string) sleepCase {
		return sleepCase{
			name: enter + "/" + call,
			old:  body("\t" + enter + ";\n\td->x = 1;\n\t" + exit + ";\n"),
			new:  body("\t" + enter + ";\n\td->x = 1;\n\t" + call + ";\n\t" + exit + ";\n"),
		}
	}
	var cs []sleepCase
	// Every atomic-context entry with a sleeping call inside.
	for _, c := range []struct{ enter, exit, call, prim string }{
		{"spin_lock(&l)", "spin_unlock(&l)", "p = kmalloc(16, GFP_KERNEL)", "kmalloc"},
		{"spin_lock_irq(&l)", "spin_unlock_irq(&l)", "mutex_lock(&m)", "mutex_lock"},
		{"spin_lock_irqsave(&l, flags)", "spin_unlock_irqrestore(&l, flags)", "mutex_lock_nested(&m, 1)", "mutex_lock_nested"},
		{"spin_lock_bh(&l)", "spin_unlock_bh(&l)", "msleep(10)", "msleep"},
		{"spin_lock_nested(&l, 1)", "spin_unlock(&l)", "usleep_range(10, 20)", "usleep_range"},
		{"raw_spin_lock(&rl)", "raw_spin_unlock(&rl)", "schedule()", "schedule"},
		{"raw_spin_lock_irqsave(&rl, flags)", "raw_spin_unlock_irqrestore(&rl, flags)", "cond_resched()", "cond_resched"},
		{"read_lock(&rw)", "read_unlock(&rw)", "down_read(&sem)", "down_read"},
		{"write_lock_bh(&rw)", "write_unlock_bh(&rw)", "down(&sema)", "down"},
		{"write_lock_irq(&rw)", "write_unlock_irq(&rw)", "copy_to_user(u, k, 4)", "copy_to_user"},
		{"rcu_read_lock()", "rcu_read_unlock()", "synchronize_rcu()", "synchronize_rcu"},
		{"rcu_read_lock_bh()", "rcu_read_unlock_bh()", "copy_from_user(k, u, 4)", "copy_from_user"},
		{"rcu_read_lock_sched()", "rcu_read_unlock_sched()", "wait_for_completion(&done)", "wait_for_completion"},
		{"preempt_disable()", "preempt_enable()", "might_sleep()", "might_sleep"},
		{"cpu = get_cpu()", "put_cpu()", "wait_event(wq, d->x)", "wait_event"},
		{"local_irq_disable()", "local_irq_enable()", "synchronize_srcu(&ss)", "synchronize_srcu"},
		{"local_irq_save(flags)", "local_irq_restore(flags)", "rcu_barrier()", "rcu_barrier"},
		{"local_bh_disable()", "local_bh_enable()", "flush_work(&w)", "flush_work"},
		{"local_lock(&pcp.lock)", "local_unlock(&pcp.lock)", "cancel_work_sync(&w)", "cancel_work_sync"},
		{"local_lock_irqsave(&pcp.lock, flags)", "local_unlock_irqrestore(&pcp.lock, flags)", "del_timer_sync(&t)", "del_timer_sync"},
		{"bit_spin_lock(0, &word)", "bit_spin_unlock(0, &word)", "p = vmalloc(4096)", "vmalloc"},
		{"spin_lock(&l)", "spin_unlock(&l)", "vfree(p)", "vfree"},
		{"spin_lock(&l)", "spin_unlock(&l)", "get_user(v, up)", "get_user"},
		{"spin_lock(&l)", "spin_unlock(&l)", "put_user(v, up)", "put_user"},
		{"spin_lock(&l)", "spin_unlock(&l)", "request_firmware(&fw, name, dev)", "request_firmware"},
		{"spin_lock(&l)", "spin_unlock(&l)", "p = kzalloc(sizeof(*p), GFP_NOFS)", "kzalloc"},
		{"spin_lock(&l)", "spin_unlock(&l)", "p = kcalloc(n, 8, GFP_NOIO)", "kcalloc"},
		{"spin_lock(&l)", "spin_unlock(&l)", "p = kmem_cache_alloc(cache, GFP_KERNEL_ACCOUNT | __GFP_ZERO)", "kmem_cache_alloc"},
		{"spin_lock(&l)", "spin_unlock(&l)", "mutex_lock_interruptible(&m)", "mutex_lock_interruptible"},
		{"spin_lock(&l)", "spin_unlock(&l)", "msleep_interruptible(5)", "msleep_interruptible"},
		{"spin_lock(&l)", "spin_unlock(&l)", "schedule_timeout(HZ)", "schedule_timeout"},
		{"spin_lock(&l)", "spin_unlock(&l)", "cancel_delayed_work_sync(&dw)", "cancel_delayed_work_sync"},
		{"spin_lock(&l)", "spin_unlock(&l)", "wait_event_interruptible(wq, d->x)", "wait_event_interruptible"},
		{"spin_lock(&l)", "spin_unlock(&l)", "might_sleep_if(1)", "might_sleep_if"},
	} {
		tc := region(c.enter, c.exit, c.call)
		tc.want = []string{"risk f " + c.prim}
		cs = append(cs, tc)
	}
	cs = append(cs,
		sleepCase{name: "trylock success branch",
			old:  body("\tif (spin_trylock(&l)) {\n\t\td->x = 1;\n\t\tspin_unlock(&l);\n\t}\n"),
			new:  body("\tif (spin_trylock(&l)) {\n\t\td->x = 1;\n\t\tflush_work(&w);\n\t\tspin_unlock(&l);\n\t}\n"),
			want: []string{"risk f flush_work"}},
		sleepCase{name: "negated trylock",
			old:  body("\tif (!spin_trylock(&l))\n\t\treturn -EBUSY;\n\td->x = 1;\n\tspin_unlock(&l);\n"),
			new:  body("\tif (!spin_trylock(&l))\n\t\treturn -EBUSY;\n\tmsleep(1);\n\tspin_unlock(&l);\n"),
			want: []string{"risk f msleep"}},
		sleepCase{name: "atomic_dec_and_lock",
			old:  body("\tif (atomic_dec_and_lock(&d->ref, &l)) {\n\t\tlist_del(&d->node);\n\t\tspin_unlock(&l);\n\t}\n"),
			new:  body("\tif (atomic_dec_and_lock(&d->ref, &l)) {\n\t\tlist_del(&d->node);\n\t\tcancel_work_sync(&d->work);\n\t\tspin_unlock(&l);\n\t}\n"),
			want: []string{"risk f cancel_work_sync"}},
		sleepCase{name: "guard scope",
			old:  body("\tguard(spinlock)(&l);\n\td->x = 1;\n"),
			new:  body("\tguard(spinlock)(&l);\n\td->x = 1;\n\trequest_firmware(&fw, \"x\", dev);\n"),
			want: []string{"risk f request_firmware"}},
		sleepCase{name: "scoped_guard",
			old:  body("\tscoped_guard(spinlock_irqsave, &l) {\n\t\td->x = 1;\n\t}\n"),
			new:  body("\tscoped_guard(spinlock_irqsave, &l) {\n\t\td->x = 1;\n\t\tget_user(v, up);\n\t}\n"),
			want: []string{"risk f get_user"}},
		sleepCase{name: "some path only",
			old:  body("\tif (d->y)\n\t\tspin_lock(&l);\n\td->x = 1;\n"),
			new:  body("\tif (d->y)\n\t\tspin_lock(&l);\n\tp = kmalloc(8, GFP_KERNEL);\n"),
			want: []string{"note f kmalloc"}},
		sleepCase{name: "widened region",
			old:  body("\tspin_lock(&l);\n\td->x = 1;\n\tspin_unlock(&l);\n\tp = kmalloc(8, GFP_KERNEL);\n"),
			new:  body("\tspin_lock(&l);\n\td->x = 1;\n\tp = kmalloc(8, GFP_KERNEL);\n\tspin_unlock(&l);\n"),
			want: []string{"risk f kmalloc"}},
		sleepCase{name: "helper that sleeps", treeOnly: true,
			old:  "static void helper(struct dev *d)\n{\n\tmutex_lock(&d->m);\n\td->y = 2;\n\tmutex_unlock(&d->m);\n}\n\n" + body("\tspin_lock(&l);\n\td->x = 1;\n\tspin_unlock(&l);\n"),
			new:  "static void helper(struct dev *d)\n{\n\tmutex_lock(&d->m);\n\td->y = 2;\n\tmutex_unlock(&d->m);\n}\n\n" + body("\tspin_lock(&l);\n\td->x = 1;\n\thelper(d);\n\tspin_unlock(&l);\n"),
			want: []string{"risk f mutex_lock"}},
		sleepCase{name: "function returning with the lock held", treeOnly: true,
			old:  "static void lock_dev(struct dev *d)\n{\n\tspin_lock(&d->lock);\n}\n\nstatic void unlock_dev(struct dev *d)\n{\n\tspin_unlock(&d->lock);\n}\n\n" + body("\tlock_dev(d);\n\td->x = 1;\n\tunlock_dev(d);\n"),
			new:  "static void lock_dev(struct dev *d)\n{\n\tspin_lock(&d->lock);\n}\n\nstatic void unlock_dev(struct dev *d)\n{\n\tspin_unlock(&d->lock);\n}\n\n" + body("\tlock_dev(d);\n\tmsleep(1);\n\tunlock_dev(d);\n"),
			want: []string{"risk f msleep"}},
		sleepCase{name: "callee newly sleeps, caller holds a spinlock", treeOnly: true,
			old:  "static void helper(struct dev *d)\n{\n\td->y = 2;\n}\n\n" + body("\tspin_lock(&l);\n\thelper(d);\n\tspin_unlock(&l);\n"),
			new:  "static void helper(struct dev *d)\n{\n\td->y = 2;\n\tp = kmalloc(8, GFP_KERNEL);\n}\n\n" + body("\tspin_lock(&l);\n\thelper(d);\n\tspin_unlock(&l);\n"),
			want: []string{"risk helper kmalloc"}},

		sleepCase{name: "lock helper turned from a mutex into a spinlock", treeOnly: true,
			old:  "static void lock_dev(struct dev *d)\n{\n\tmutex_lock(&d->lock);\n}\n\n" + body("\tlock_dev(d);\n\tp = kmalloc(8, GFP_KERNEL);\n\tunlock_dev(d);\n"),
			new:  "static void lock_dev(struct dev *d)\n{\n\tspin_lock(&d->lock);\n}\n\n" + body("\tlock_dev(d);\n\tp = kmalloc(8, GFP_KERNEL);\n\tunlock_dev(d);\n"),
			want: []string{"risk f kmalloc"}},

		sleepCase{name: "lock type change spinlock -> mutex under an RCU caller", treeOnly: true,
			old:  "struct dev {\n\tspinlock_t lock;\n\tint x;\n};\n\nstatic void dev_update(struct dev *d)\n{\n\tspin_lock(&d->lock);\n\td->x++;\n\tspin_unlock(&d->lock);\n}\n\nstatic void poll_all(void)\n{\n\tstruct dev *d;\n\n\trcu_read_lock();\n\tlist_for_each_entry_rcu(d, &devs, node)\n\t\tdev_update(d);\n\trcu_read_unlock();\n}\n",
			new:  "struct dev {\n\tstruct mutex lock;\n\tint x;\n};\n\nstatic void dev_update(struct dev *d)\n{\n\tmutex_lock(&d->lock);\n\td->x++;\n\tmutex_unlock(&d->lock);\n}\n\nstatic void poll_all(void)\n{\n\tstruct dev *d;\n\n\trcu_read_lock();\n\tlist_for_each_entry_rcu(d, &devs, node)\n\t\tdev_update(d);\n\trcu_read_unlock();\n}\n",
			want: []string{"risk dev_update mutex_lock"}},
		sleepCase{name: "lock type change mutex -> spinlock with an allocation inside",
			old:  "struct dev {\n\tstruct mutex lock;\n};\n\nstatic int dev_grow(struct dev *d)\n{\n\tmutex_lock(&d->lock);\n\td->buf = kmalloc(d->size, GFP_KERNEL);\n\tmutex_unlock(&d->lock);\n\treturn 0;\n}\n",
			new:  "struct dev {\n\tspinlock_t lock;\n};\n\nstatic int dev_grow(struct dev *d)\n{\n\tspin_lock(&d->lock);\n\td->buf = kmalloc(d->size, GFP_KERNEL);\n\tspin_unlock(&d->lock);\n\treturn 0;\n}\n",
			want: []string{"risk dev_grow kmalloc"}},

		// Near misses: must stay quiet.
		sleepCase{name: "GFP_ATOMIC under a spinlock",
			old: body("\tspin_lock(&l);\n\td->x = 1;\n\tspin_unlock(&l);\n"),
			new: body("\tspin_lock(&l);\n\tp = kmalloc(8, GFP_ATOMIC);\n\tp = kzalloc(8, GFP_NOWAIT | __GFP_NOWARN);\n\tp = kmalloc(8, GFP_KERNEL & ~__GFP_DIRECT_RECLAIM);\n\tspin_unlock(&l);\n")},
		sleepCase{name: "unknown gfp variable under a spinlock",
			old: body("\tspin_lock(&l);\n\td->x = 1;\n\tspin_unlock(&l);\n"),
			new: body("\tspin_lock(&l);\n\tp = kmalloc(8, gfp);\n\tspin_unlock(&l);\n")},
		sleepCase{name: "mutex after spin_unlock",
			old: body("\tspin_lock(&l);\n\td->x = 1;\n\tspin_unlock(&l);\n"),
			new: body("\tspin_lock(&l);\n\td->x = 1;\n\tspin_unlock(&l);\n\tmutex_lock(&m);\n\tmutex_unlock(&m);\n")},
		sleepCase{name: "mutex_trylock under a spinlock",
			old: body("\tspin_lock(&l);\n\td->x = 1;\n\tspin_unlock(&l);\n"),
			new: body("\tspin_lock(&l);\n\tif (mutex_trylock(&m))\n\t\tmutex_unlock(&m);\n\tspin_unlock(&l);\n")},
		sleepCase{name: "sleep only in the unlocked branch of a trylock",
			old: body("\tif (spin_trylock(&l)) {\n\t\td->x = 1;\n\t\tspin_unlock(&l);\n\t}\n"),
			new: body("\tif (spin_trylock(&l)) {\n\t\td->x = 1;\n\t\tspin_unlock(&l);\n\t} else {\n\t\tmsleep(1);\n\t}\n")},
		sleepCase{name: "might_sleep_if(false-ish)",
			old: body("\tspin_lock(&l);\n\td->x = 1;\n\tspin_unlock(&l);\n"),
			new: body("\tspin_lock(&l);\n\tmight_sleep_if(0);\n\tmight_sleep_if(false);\n\tmight_sleep_if(gfpflags_allow_blocking(GFP_ATOMIC));\n\tmight_sleep_if(gfp & __GFP_DIRECT_RECLAIM);\n\tspin_unlock(&l);\n")},
		sleepCase{name: "spin_lock in one function, sleep in another never called under it", treeOnly: true,
			old: "static void g(struct dev *d)\n{\n\td->y = 1;\n}\n\n" + body("\tspin_lock(&l);\n\td->x = 1;\n\tspin_unlock(&l);\n\tg(d);\n"),
			new: "static void g(struct dev *d)\n{\n\tmsleep(1);\n\td->y = 1;\n}\n\n" + body("\tspin_lock(&l);\n\td->x = 1;\n\tspin_unlock(&l);\n\tg(d);\n")},
		sleepCase{name: "error path unlock before return",
			old: body("\tspin_lock(&l);\n\tif (d->y) {\n\t\tspin_unlock(&l);\n\t\treturn -EINVAL;\n\t}\n\tspin_unlock(&l);\n"),
			new: body("\tspin_lock(&l);\n\tif (d->y) {\n\t\tspin_unlock(&l);\n\t\tmsleep(1);\n\t\treturn -EINVAL;\n\t}\n\tspin_unlock(&l);\n\tmutex_lock(&m);\n")},
		sleepCase{name: "goto unlock then sleep",
			old: body("\tspin_lock(&l);\n\tif (d->y)\n\t\tgoto out;\n\td->x = 1;\nout:\n\tspin_unlock(&l);\n"),
			new: body("\tspin_lock(&l);\n\tif (d->y)\n\t\tgoto out;\n\td->x = 1;\nout:\n\tspin_unlock(&l);\n\tmsleep(1);\n")},
		sleepCase{name: "lock dropped around the sleep",
			old: body("\tspin_lock(&l);\n\td->x = 1;\n\tspin_unlock(&l);\n"),
			new: body("\tspin_lock(&l);\n\td->x = 1;\n\tspin_unlock(&l);\n\tschedule();\n\tspin_lock(&l);\n\tspin_unlock(&l);\n")},
		sleepCase{name: "bug already there before the patch",
			old: body("\tspin_lock(&l);\n\tp = kmalloc(8, GFP_KERNEL);\n\tspin_unlock(&l);\n"),
			new: body("\tspin_lock(&l);\n\tp = kmalloc(8, GFP_KERNEL);\n\td->x = 1;\n\tspin_unlock(&l);\n")},
		sleepCase{name: "preempt re-enabled before sleeping",
			old: body("\tpreempt_disable();\n\td->x = 1;\n\tpreempt_enable();\n"),
			new: body("\tpreempt_disable();\n\td->x = 1;\n\tpreempt_enable();\n\tcond_resched();\n")},
		sleepCase{name: "scoped_guard ends before the sleep",
			old: body("\tscoped_guard(spinlock, &l)\n\t\td->x = 1;\n"),
			new: body("\tscoped_guard(spinlock, &l)\n\t\td->x = 1;\n\tmsleep(1);\n")},
		sleepCase{name: "mutex guard is not atomic",
			old: body("\tguard(mutex)(&m);\n\td->x = 1;\n"),
			new: body("\tguard(mutex)(&m);\n\tmsleep(1);\n")},
	)
	return cs
}

func findingKeys(fs []report.Finding) []string {
	var out []string
	for _, f := range fs {
		prim := ""
		if n := len(f.Chain); n > 0 {
			prim = f.Chain[n-1].What
			if i := strings.Index(prim, "("); i > 0 {
				prim = prim[:i]
			}
		}
		out = append(out, fmt.Sprintf("%s %s %s", f.Severity, f.Func, prim))
	}
	sort.Strings(out)
	return out
}

func TestSleepTable(t *testing.T) {
	for _, tc := range sleepCases() {
		t.Run(tc.name, func(t *testing.T) {
			dir := snippetTree(t, map[string]string{"a.c": tc.old})
			patch := diffOf(t, dir, map[string]string{"a.c": tc.new})
			if patch == "" {
				t.Fatal("empty patch")
			}
			ix, err := index.Open(context.Background(), dir, index.Options{CacheDir: "-"})
			if err != nil {
				t.Fatal(err)
			}
			fs, _ := runSleepPatch(t, patch, dir, ix)
			if got := findingKeys(fs); strings.Join(got, ";") != strings.Join(tc.want, ";") {
				t.Errorf("tree mode: got %q, want %q\n%s", got, tc.want, describe(fs))
			}
			if tc.treeOnly {
				return
			}
			fs, _ = runSleepPatch(t, patch, "", nil)
			if got := findingKeys(fs); strings.Join(got, ";") != strings.Join(tc.want, ";") {
				t.Errorf("patch-only: got %q, want %q\n%s", got, tc.want, describe(fs))
			}
		})
	}
}

func describe(fs []report.Finding) string {
	var b strings.Builder
	for _, f := range fs {
		fmt.Fprintf(&b, "  %s %s:%d %s\n    %s\n", f.Severity, f.File, f.Line, f.Message, f.Explanation)
	}
	return b.String()
}
