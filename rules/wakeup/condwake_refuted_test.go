package wakeup

import "testing"

func TestEvalStateTest(t *testing.T) {
	tests := []struct {
		test, v    string
		want, know bool
	}{
		{"d->done", "1", true, true},
		{"!d->done", "1", false, true},
		{"!d->done", "false", true, true},
		{"d->done", "true", true, true},
		{"d->p", "NULL", false, true},
		{"c->state == CMD_PENDING", "CMD_DONE", false, true},
		{"c->state != CMD_PENDING", "CMD_DONE", true, true},
		{"c->state == CMD_DONE", "CMD_DONE", true, true},
		{"c->state", "CMD_DONE", false, false},
		{"c->n == 2", "0x2", true, true},
		{"c->n == limit", "2", false, false},
		{"unlikely(!d->done)", "1", false, true},
	}
	for _, tt := range tests {
		neg, _, op, k, ok := parseStateTest(tt.test)
		if !ok {
			t.Errorf("parseStateTest(%q) failed", tt.test)
			continue
		}
		got, known := evalStateTest(neg, op, k, tt.v)
		if known != tt.know || known && got != tt.want {
			t.Errorf("%q with %s = %v, %v; want %v, %v", tt.test, tt.v, got, known, tt.want, tt.know)
		}
	}
}

func TestCondHoldsWith(t *testing.T) {
	tests := []struct {
		cond, field, v string
		want           bool
	}{
		{"d->done", "done", "1", true},
		{"d->done", "done", "0", false},
		{"d->done || kthread_should_stop()", "done", "0", false},
		{"!d->busy && d->done", "done", "true", true},
		{"d->state != ST_RUN", "state", "ST_STOP", true},
		{"d->state == ST_RUN", "state", "ST_STOP", false},
		{"d->other", "done", "1", false},
	}
	for _, tt := range tests {
		if got := condHoldsWith(tt.cond, tt.field, tt.v); got != tt.want {
			t.Errorf("condHoldsWith(%q, %s=%s) = %v, want %v", tt.cond, tt.field, tt.v, got, tt.want)
		}
	}
}

func TestAssigns(t *testing.T) {
	tests := []struct {
		line, lv string
		want     bool
	}{
		{"\td->done = 1;", "d->done", true},
		{"\td->done |= 1;", "d->done", true},
		{"\td->done++;", "d->done", true},
		{"\tif (d->done == 1)", "d->done", false},
		{"\tx->d->done = 1;", "d->done", false},
		{"\tdd->done = 1;", "d->done", false},
		{"\t/* d->done = 1; */", "d->done", false},
		{"\tWRITE_ONCE(d->done, 1);", "d->done", true},
		{"\tset_done(&d->done);", "d->done", true},
		{"\tset_done(&d->done_mask);", "d->done", false},
		{"\td->done <<= 1;", "d->done", true},
	}
	for _, tt := range tests {
		if got := assigns(tt.line, tt.lv); got != tt.want {
			t.Errorf("assigns(%q, %q) = %v, want %v", tt.line, tt.lv, got, tt.want)
		}
	}
}
