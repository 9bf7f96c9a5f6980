package cscan

import "testing"

func TestCondOf(t *testing.T) {
	for _, tc := range []struct {
		s    Stmt
		cond string
		ok   bool
	}{
		{&IfStmt{Cond: "a && b"}, "a && b", true},
		{&LoopStmt{Cond: "i < n"}, "i < n", true},
		{&SwitchStmt{Cond: "type"}, "type", true},
		{&ReturnStmt{Expr: "x ? 1 : 0"}, "", false},
		{&ExprStmt{Text: "f();"}, "", false},
	} {
		if c, ok := CondOf(tc.s); c != tc.cond || ok != tc.ok {
			t.Errorf("CondOf(%T) = %q, %v; want %q, %v", tc.s, c, ok, tc.cond, tc.ok)
		}
	}
}
