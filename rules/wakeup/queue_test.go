package wakeup

import (
	"github.com/autosel-bot/autosel-bot/rules/lockmodel"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/autosel-bot/autosel-bot/rules"
	"github.com/autosel-bot/autosel-bot/rules/rulestest"

	"github.com/autosel-bot/autosel-bot/diffcheck"
)

func TestWakeupQueueKey(t *testing.T) {
	vt := newVarTypes()
	vt.scan(`static ssize_t pipe_read(struct kiocb *iocb, struct iov_iter *to)
{
	struct pipe_inode_info *pipe = filp->private_data, *other;
	struct pipe_inode_info *pipes;
	const struct eventpoll *ep;
	wait_queue_head_t *wq = &ep->wq;
	wait_queue_head_t *head;
	struct sock *sk;
`)
	tests := []struct{ arg, want string }{
		{"&pipe->rd_wait", "pipe_inode_info.rd_wait"},
		{"pipe->rd_wait", "pipe_inode_info.rd_wait"},
		{" & ( pipe -> rd_wait ) ", "pipe_inode_info.rd_wait"},
		{"&other->wr_wait", "pipe_inode_info.wr_wait"},
		{"&ep->wq", "eventpoll.wq"},
		{"wq", "eventpoll.wq"},
		{"head", "local:f:head"},
		{"&unknown->poll_wait", "*.poll_wait"},
		{"&pipe->bufs[i].wait", "pipe_inode_info.bufs[].wait"},
		{"&pipes[i].rd_wait", "pipe_inode_info.rd_wait"},
		{"sk_sleep(sk)", "sk_sleep()"},
		{"&global_wq", "global_wq"},
		{"&ecryptfs_kthread_ctl.wait", "ecryptfs_kthread_ctl.wait"},
		{"", ""},
	}
	for _, tc := range tests {
		if got := queueKey(tc.arg, vt, "f"); got != tc.want {
			t.Errorf("queueKey(%q) = %q, want %q", tc.arg, got, tc.want)
		}
	}
}

func TestWakeupZeroCounters(t *testing.T) {
	rule, err := New(rules.Options{})
	if err != nil {
		t.Fatal(err)
	}
	_ = rule
	p := defaultPrims(t)
	tests := []struct {
		cond    string
		want    []string
		matched bool
	}{
		{"!--pipe->writers", []string{"writers"}, true},
		{"!pipe->writers", []string{"writers"}, true},
		{"--dev->users == 0", []string{"users"}, true},
		{"atomic_dec_and_test(&ctx->refs)", []string{"refs"}, true},
		{"refcount_dec_and_test(&q->ref)", []string{"ref"}, true},
		{"dev->count == 0", []string{"count"}, true},
		{"!pipe->readers != !pipe->writers", []string{"readers", "writers"}, true},
		{"wake_next_reader", nil, false},
		{"!list_empty(&q->head)", nil, false},
		{"ret > 0", nil, false},
	}
	for _, tc := range tests {
		got, ok := p.zeroCounters(tc.cond, nil)
		if ok != tc.matched {
			t.Errorf("zeroCounters(%q) matched = %v, want %v", tc.cond, ok, tc.matched)
			continue
		}
		for _, w := range tc.want {
			if !contains(got, w) {
				t.Errorf("zeroCounters(%q) = %q, want %q in it", tc.cond, got, w)
			}
		}
	}
}

// TestWakeupZeroOnPath: on a waker's path a plain member test counts only
// when the member was just decremented ("!fc->blocked" is a flag).
func TestWakeupZeroOnPath(t *testing.T) {
	p := defaultPrims(t)
	tests := []struct {
		cond string
		decs []string
		want bool
	}{
		{"!fc->blocked", []string{""}, false},
		{"!pipe->readers != !pipe->writers", []string{"", "writers"}, true},
		{"!--pipe->writers", []string{""}, true},
		{"atomic_dec_and_test(&nl_table_users)", []string{""}, true},
		{"dev->count == 0", []string{"count"}, true},
		{"dev->count == 0", []string{""}, false},
	}
	for _, tc := range tests {
		if _, ok := p.zeroCounters(tc.cond, tc.decs); ok != tc.want {
			t.Errorf("zeroCounters(%q, %q) = %v, want %v", tc.cond, tc.decs, ok, tc.want)
		}
	}
}

func TestWakeupSplitTop(t *testing.T) {
	tests := []struct {
		cond, op string
		want     []string
	}{
		{"!pipe->writers || wake_next_reader", "||", []string{"!pipe->writers", "wake_next_reader"}},
		{"(a || b)", "||", []string{"a", "b"}},
		{"f(a || b) || c", "||", []string{"f(a || b)", "c"}},
		{"a && (b || c)", "&&", []string{"a", "(b || c)"}},
		{"a", "||", []string{"a"}},
	}
	for _, tc := range tests {
		if got := splitTop(tc.cond, tc.op); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("splitTop(%q, %q) = %q, want %q", tc.cond, tc.op, got, tc.want)
		}
	}
}

// FuzzWakeup runs the rule over arbitrary diffs: it must never panic, and
// every finding must name a rule, a severity and a file.
func FuzzWakeup(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "cases", "*.txtar"))
	for _, p := range files {
		c, err := rulestest.ParseCase(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(c.Patch)
	}
	f.Add("diff --git a/a.c b/a.c\nindex 1111111..2222222 100644\n--- a/a.c\n+++ b/a.c\n@@ -1,4 +1,4 @@\n int f(void)\n {\n+\twake_up(&x->wq);\n-\twake_up_all(&x->wq);\n }\n")
	f.Add("diff --git a/x.c b/x.c\n--- a/x.c\n+++ b/x.c\n@@ -1,3 +1,3 @@ int f(\n {\n-\twait_event(\n+\twait_event_exclusive((((\n }\n")
	rule, err := New(rules.Options{})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, diff string) {
		cs, err := diffcheck.Parse(diff)
		if err != nil {
			return
		}
		fs, err := rules.NewPass(cs, nil, rules.Options{}, 1).Run(rule)
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range fs {
			if x.Rule == "" || x.Severity == "" || x.Message == "" {
				t.Fatalf("incomplete finding %+v", x)
			}
		}
	})
}

// defaultPrims compiles the built-in wakeup tables.
func defaultPrims(t *testing.T) *prims {
	t.Helper()
	var tab tables
	if err := rules.LoadTables("wakeup", nil, &tab); err != nil {
		t.Fatal(err)
	}
	var locks lockmodel.Table
	if err := rules.LoadTables("locks", nil, &locks); err != nil {
		t.Fatal(err)
	}
	p, err := compile(tab, &locks)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestStripAddr: an argument stripped to its object, and an entry and a
// queue's own lock read through the same stripping.
func TestStripAddr(t *testing.T) {
	for _, tc := range []struct {
		fn      func(string) string
		name    string
		in, out string
	}{
		{stripAddr, "stripAddr", "&x->q", "x->q"},
		{stripAddr, "stripAddr", " ( &(x->q) ) ", "x->q"},
		{stripAddr, "stripAddr", "&(&ctx->wqh)", "ctx->wqh"},
		{stripAddr, "stripAddr", "(a)->b", "(a)->b"},
		{stripAddr, "stripAddr", "&pipe->rd_wait", "pipe->rd_wait"},
		{stripAddr, "stripAddr", "", ""},
		{stripAddr, "stripAddr", "((&fc->bg_lock))", "fc->bg_lock"},
		{lockQueueArg, "lockQueueArg", "&(q->lock)", "q"},
		{lockQueueArg, "lockQueueArg", "&pipe->rd_wait.lock", "pipe->rd_wait"},
		{lockQueueArg, "lockQueueArg", "((&x->wq.lock))", "x->wq"},
		{lockQueueArg, "lockQueueArg", "&q->other", ""},
		{entryName, "entryName", "&(wait)", "wait"},
		{entryName, "entryName", "&(&ep->wait)", "ep->wait"},
		{entryName, "entryName", "& wq_entry", "wq_entry"},
	} {
		if got := tc.fn(tc.in); got != tc.out {
			t.Errorf("%s(%q) = %q, want %q", tc.name, tc.in, got, tc.out)
		}
	}
}
