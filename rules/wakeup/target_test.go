package wakeup

import (
	"strings"
	"testing"

	"github.com/autosel-bot/autosel-bot/cscan"
)

func TestWakeObject(t *testing.T) {
	for _, tc := range []struct{ arg, obj, member string }{
		{"&peer->wait", "peer", "wait"},
		{"&tty->link->write_wait", "tty->link", "write_wait"},
		{"&dev->port.wq", "dev->port", "wq"},
		{"&foo_wq", "", "foo_wq"},
		{"& req -> wq", "req", "wq"},
	} {
		if got := wakeObject(tc.arg); got != tc.obj {
			t.Errorf("wakeObject(%q) = %q, want %q", tc.arg, got, tc.obj)
		}
		if got := wakeMember(tc.arg); got != tc.member {
			t.Errorf("wakeMember(%q) = %q, want %q", tc.arg, got, tc.member)
		}
	}
}

func TestStoreThrough(t *testing.T) {
	fields := map[string]bool{"done": true, "fl_blocked_member": true}
	for _, tc := range []struct {
		line, obj string
		want      bool
	}{
		{"\treq->done = 1;", "req", true},
		{"\tWRITE_ONCE(req->done, 1);", "req", true},
		{"\tatomic_set(&req->done, 0);", "req", true},
		{"\treq->other = 1;", "req", false},                 // not a field the waiters read
		{"\tx->done = req->done;", "req", false},            // a read of req
		{"\tnext->req->done = 1;", "req", false},            // another object's member
		{"\t__locks_delete_block(waiter);", "waiter", true}, // handed to a call
		{"\tpr_info(\"%p\", waiter);", "waiter", false},     // logging only
		{"\tif (req->done == 1)", "req", false},
		{"\terr = start_req(req);", "req", true},             // a status returned
		{"\tpc = req_arg(req);", "req", false},               // a value kept: a getter
		{"\tr->be = req_is_be(req);", "req", false},          // stored elsewhere: a read
		{"\tif (req_version(req) > 1)", "req", false},        // compared: a read
		{"\tif (test_and_set_bit(0, req))", "req", true},     // tested: may change it
		{"\tv = lookup(req_arg(req));", "req", false},        // handed on: a read
		{"\tunsigned long pc = req_arg(req);", "req", false}, // declared and kept: a read
		{"\tleft = req_put_ref(req);", "req", true},          // a mutator's value kept
		{"\tif (req_dec_pending(req) == 0)", "req", true},    // a mutator's value compared
		{"\tkfree(req_detach(req));", "req", true},           // a mutator's value handed on
		{"\tr = req_start(req);", "req", true},               // a status local
		{"\tWARN_ON(req_start(req));", "req", true},
	} {
		f := &wfunc{lines: map[int]string{1: tc.line}}
		if got := storeThrough(f, 2, tc.obj, fields) != ""; got != tc.want {
			t.Errorf("storeThrough(%q, %q) = %v, want %v", tc.line, tc.obj, got, tc.want)
		}
	}
}

func TestCondFields(t *testing.T) {
	w := &wsite{WKind: "wait", Arg: "fl->fl_wait"}
	w.Call.Args = []string{"fl->fl_wait", "list_empty(&fl->fl_blocked_member) && other->x"}
	got := condFields([]*wsite{w})
	if !got["fl_blocked_member"] || got["x"] || len(got) != 1 {
		t.Errorf("condFields = %v, want only fl_blocked_member (read through the queue's object)", got)
	}
}

func TestItemMemberAndTopArgs(t *testing.T) {
	for _, tc := range []struct{ arg, want string }{
		{"&rbwork->work", "work"},
		{"&cpu_buffer->irq_work.work", "work"},
		{"&foo_work", "foo_work"},
		{"this_cpu_ptr(&wake_up_klogd_work)", "wake_up_klogd_work"},
		{"", ""},
	} {
		if got := itemMember(tc.arg); got != tc.want {
			t.Errorf("itemMember(%q) = %q, want %q", tc.arg, got, tc.want)
		}
	}
	args := topArgs("&dev->w, foo(a, b), c) + 1")
	if len(args) != 3 || args[0] != "&dev->w" || args[1] != "foo(a, b)" || args[2] != "c" {
		t.Errorf("topArgs = %q", args)
	}
}

func TestIndirectTargets(t *testing.T) {
	c := cscan.Call{Name: "INDIRECT_CALL_2", Args: []string{"READ_ONCE(sk->sk_write_space)", "sk_stream_write_space", "tcp_write_space", "sk"}, Line: 7}
	var got []string
	for _, x := range indirectTargets(c) {
		got = append(got, x.Name+"("+strings.Join(x.Args, ",")+")")
	}
	want := []string{"sk_stream_write_space(sk)", "tcp_write_space(sk)", "sk->sk_write_space(sk)"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("indirectTargets = %q, want %q", got, want)
	}
	if indirectTargets(cscan.Call{Name: "foo", Args: []string{"a"}}) != nil {
		t.Errorf("a plain call has indirect targets")
	}
}

func TestWaiterObject(t *testing.T) {
	for _, tc := range []struct{ arg, q, line, want string }{
		{"&p->wq", "pipe.wq", "", "p"},
		{"vcpu_get_wait(v)", "vcpu.wait", "", "v"},
		{"wait", "vcpu.wait", "\tstruct rcuwait *wait = vcpu_get_wait(v);", "v"},
		{"*wq", "chan.wq", "\twait_queue_head_t *wq = chan_wq(c);", "c"},
		{"wait", "local:f:wait", "\tstruct rcuwait *wait = vcpu_get_wait(v);", ""}, // no struct's queue
		{"lookup(t, id)", "vcpu.wait", "", ""},                                     // two arguments: which object?
	} {
		f := &wfunc{Name: "f", lines: map[int]string{1: tc.line}, vt: newVarTypes()}
		f.vt.scan(tc.line)
		w := &wsite{Fn: f, Arg: tc.arg, Q: tc.q}
		w.Call.Line = 2
		if got := waiterObject(w); got != tc.want {
			t.Errorf("waiterObject(%q on %s) = %q, want %q", tc.arg, tc.q, got, tc.want)
		}
	}
}

func TestDerefQueue(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"*wq", "wq"},
		{"* wq", "wq"},
		{"*sk_sleep(sk)", "*sk_sleep(sk)"}, // a call's result: left as written
		{"wq", "wq"},
	} {
		if got := derefQueue(tc.in); got != tc.want {
			t.Errorf("derefQueue(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
