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
