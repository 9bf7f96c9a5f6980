package sleep

import (
	"testing"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/rules"
)

// tableSleeper compiles the sleeping primitives of the built-in table.
func tableSleeper(t *testing.T) *sleeper {
	t.Helper()
	var tb tables
	if err := rules.LoadTables("sleep", nil, &tb); err != nil {
		t.Fatal(err)
	}
	sl, err := newSleeper(&tb)
	if err != nil {
		t.Fatal(err)
	}
	return sl
}

// TestGuardArg: a guard that only tests a GFP mask for direct reclaim
// names that mask; a negation, an else, another context check or two
// different masks do not.
func TestGuardArg(t *testing.T) {
	sl := tableSleeper(t)
	for _, tc := range []struct {
		gs   []cscan.Guard
		want string
	}{
		{[]cscan.Guard{{Kind: "if", Cond: "gfpflags_allow_blocking(gfp)"}}, "gfp"},
		{[]cscan.Guard{{Kind: "if", Cond: "gfp_mask & __GFP_DIRECT_RECLAIM"}}, "gfp_mask"},
		{[]cscan.Guard{{Kind: "if", Cond: "len <= SKB_WITH_OVERHEAD(1024) || len > SKB_WITH_OVERHEAD(PAGE_SIZE) || (gfp_mask & (__GFP_DIRECT_RECLAIM | GFP_DMA))"}}, "gfp_mask"},
		{[]cscan.Guard{{Kind: "loop", Cond: "i < n"}, {Kind: "if", Cond: "gfpflags_allow_blocking(ctx->gfp)"}}, "ctx->gfp"},
		{[]cscan.Guard{{Kind: "if", Cond: "gfpflags_allow_blocking(gfp)"}, {Kind: "if", Cond: "gfp & __GFP_DIRECT_RECLAIM"}}, "gfp"},
		{[]cscan.Guard{{Kind: "if", Cond: "!gfpflags_allow_blocking(gfp)"}}, ""},
		{[]cscan.Guard{{Kind: "if", Cond: "(gfp & __GFP_DIRECT_RECLAIM) == 0"}}, ""},
		{[]cscan.Guard{{Kind: "if", Cond: "gfpflags_allow_blocking(gfp) && !in_interrupt()"}}, ""},
		{[]cscan.Guard{{Kind: "if", Cond: "gfpflags_allow_blocking(gfp)"}, {Kind: "if", Cond: "can_sleep"}}, ""},
		{[]cscan.Guard{{Kind: "if", Cond: "gfpflags_allow_blocking(a)"}, {Kind: "if", Cond: "gfpflags_allow_blocking(b)"}}, ""},
		{[]cscan.Guard{{Kind: "if", Cond: "in_atomic()"}}, ""},
		{[]cscan.Guard{{Kind: "if", Cond: "x > 0"}}, ""},
	} {
		got, ok := sl.GuardArg(tc.gs)
		if got != tc.want || ok != (tc.want != "") {
			t.Errorf("GuardArg(%+v) = %q, %v; want %q", tc.gs, got, ok, tc.want)
		}
	}
}

// TestMaskSleep: a mask_sleep primitive sleeps with its flag set as a
// constant, depends on a variable flags argument, and neither with a
// conditional expression, 0 or other flags.
func TestMaskSleep(t *testing.T) {
	sl := tableSleeper(t)
	call := func(flags string) cscan.Call {
		return cscan.Call{Name: "skcipher_request_set_callback", Args: []string{"req", flags, "done", "ctx"}}
	}
	for _, tc := range []struct {
		flags          string
		reaches, isArg bool
		with           string
		withReaches    bool
	}{
		{"CRYPTO_TFM_REQ_MAY_SLEEP", true, false, "", false},
		{"CRYPTO_TFM_REQ_MAY_BACKLOG | CRYPTO_TFM_REQ_MAY_SLEEP", true, false, "", false},
		{"0", false, false, "", false},
		{"CRYPTO_TFM_REQ_MAY_BACKLOG", false, false, "", false},
		{"may_sleep ? CRYPTO_TFM_REQ_MAY_SLEEP : 0", false, true, "", false},
		{"flags", false, true, "CRYPTO_TFM_REQ_MAY_SLEEP", true},
		{"flags", false, true, "0", false},
		{"flags", false, true, "GFP_KERNEL", false},
		{"req->base.flags & ~CRYPTO_TFM_REQ_MAY_SLEEP", false, true, "", false},
		{"aead_request_flags(req)", true, false, "", false},
		{"req->base.flags", true, false, "", false},
		{"flags", false, true, "skcipher_request_flags(req)", true},
		{"flags", false, true, "skcipher_request_flags(req) & ~CRYPTO_TFM_REQ_MAY_SLEEP", false},
	} {
		c := call(tc.flags)
		if _, ok := sl.Reaches(c); ok != tc.reaches {
			t.Errorf("Reaches(%q) = %v, want %v", tc.flags, ok, tc.reaches)
		}
		i, ok := sl.ArgDependent(c)
		if ok != tc.isArg || (ok && i != 1) {
			t.Errorf("ArgDependent(%q) = %d, %v; want %v", tc.flags, i, ok, tc.isArg)
		}
		if tc.with != "" {
			if _, ok := sl.ReachesWith(c, tc.with); ok != tc.withReaches {
				t.Errorf("ReachesWith(%q, %q) = %v, want %v", tc.flags, tc.with, ok, tc.withReaches)
			}
		}
	}
	// A GFP mask reaching a call under a reclaim test: the reason names
	// the call, not an allocation.
	why, ok := sl.ReachesWith(cscan.Call{Name: "mutex_lock", Args: []string{"&m"}}, "GFP_KERNEL")
	if !ok || why == "" || why[:len("mutex_lock()")] != "mutex_lock()" {
		t.Errorf("ReachesWith(mutex_lock, GFP_KERNEL) = %q, %v", why, ok)
	}
}

// TestPassThrough: a mask or-ed with flags, or with a non-deciding flag
// cleared, hands its variable on; clearing reclaim or MAY_SLEEP, a
// logical operator, a call or two variables do not.
func TestPassThrough(t *testing.T) {
	sl := tableSleeper(t)
	for _, tc := range []struct {
		expr, want string
	}{
		{"gfp | __GFP_ZERO", "gfp"},
		{"(gfp | __GFP_NOWARN)", "gfp"},
		{"__GFP_NOWARN | gfp_mask", "gfp_mask"},
		{"gfp & ~__GFP_ZERO", "gfp"},
		{"priority & ~(__GFP_ZERO | __GFP_NOWARN)", "priority"},
		{"flags | CRYPTO_TFM_REQ_MAY_BACKLOG", "flags"},
		{"gfp", "gfp"},
		{"(gfp_mask) | GFP_DMA", "gfp_mask"},
		{"(gfp) & ~__GFP_DIRECT_RECLAIM", ""},
		{"gfp & ~__GFP_DIRECT_RECLAIM", ""},
		{"gfp & ~__GFP_RECLAIM", ""},
		{"flags & ~CRYPTO_TFM_REQ_MAY_SLEEP", ""},
		{"gfp & GFP_RECLAIM_MASK", ""},
		{"gfp | other", ""},
		{"gfp || x", ""},
		{"current_gfp_context(gfp)", ""},
		{"GFP_KERNEL | __GFP_ZERO", ""},
	} {
		got, ok := sl.PassThrough(tc.expr)
		if got != tc.want || ok != (tc.want != "") {
			t.Errorf("PassThrough(%q) = %q, %v; want %q", tc.expr, got, ok, tc.want)
		}
	}
}
