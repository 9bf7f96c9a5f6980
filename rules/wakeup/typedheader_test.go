package wakeup

import "testing"

func TestTypedHeader(t *testing.T) {
	for _, tc := range []struct{ text, name, want string }{
		{"rwsem_down_write_slowpath(struct rw_semaphore *sem)\n{\n}\n", "rwsem_down_write_slowpath",
			"int rwsem_down_write_slowpath(struct rw_semaphore *sem)\n{\n}\n"},
		{"\nfoo (int a)\n{\n", "foo", "\nint foo (int a)\n{\n"},
		{"static int foo(int a)\n{\n", "foo", "static int foo(int a)\n{\n"},
		{"\tfoo(a);\n", "foo", "\tfoo(a);\n"},
		{"foobar(a)\n{\n", "foo", "foobar(a)\n{\n"},
	} {
		if got := typedHeader(tc.text, tc.name); got != tc.want {
			t.Errorf("typedHeader(%q, %q) = %q, want %q", tc.text, tc.name, got, tc.want)
		}
	}
}
