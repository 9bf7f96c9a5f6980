package sleep

import (
	"regexp"
	"slices"
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/report"
	"github.com/autosel-bot/autosel-bot/rules/lockctx"
)

// Lifted checks of a parameter: the function the patch changed returned
// early for an atomic GFP mask or a flag its caller passes
// (dma_alloc_contiguous(): if (!gfpflags_allow_blocking(gfp)) return
// NULL;). Whether the check kept a chain's caller off the sleep is read
// from the value the chain hands down in that parameter, followed up the
// chain while each function passes on one of its own parameters.

// gfpTestRe matches a test of whether GFP mask P allows blocking:
// gfpflags_allow_blocking(P) or P & __GFP_DIRECT_RECLAIM, negated or
// not; group 1 is the "!", group 2 or 3 the mask.
var gfpTestRe = regexp.MustCompile(`^(!?)\s*(?:gfpflags_allow_blocking\s*\(\s*(\w+)\s*\)|\(?\s*(\w+)\s*&\s*__GFP_DIRECT_RECLAIM\s*\)?)$`)

// flagTestRe matches a bare test of flag P, negated or not. A bare test
// is lifted only when it names a sleep flag of the table (may_sleep,
// blocking: cond_sleep_guards); others read as error checks
// (liftedChecks).
var flagTestRe = regexp.MustCompile(`^(!?)\s*(\w+)$`)

// paramVerdict judges lifted checks cs that test a parameter of callee
// by what the chain passes in it: liftRisk when the value fails a check
// (an atomic mask where the path needed one allowing blocking), liftNone
// when every such check holds for it (the old version took the path from
// this caller too), liftNote when a value is not known. ok is false when
// no check tests a parameter.
func (r *checker) paramVerdict(proof *lockctx.Reach, callee *cscan.Func, cs []pathCheck) (level liftLevel, ok bool) {
	sl, isSleeper := r.m.Target().(*sleeper)
	if !isSleeper {
		return liftNone, false
	}
	params := r.newR.Params(callee)
	level = liftNone
	for _, c := range cs {
		var neg, name string
		gfp := false
		if m := gfpTestRe.FindStringSubmatch(c.term); m != nil {
			neg, name, gfp = m[1], m[2]+m[3], true
		} else if m := flagTestRe.FindStringSubmatch(c.term); m != nil {
			neg, name = m[1], m[2]
		} else {
			continue
		}
		j := slices.Index(params, name)
		if j < 0 {
			continue
		}
		ok = true
		arg, known := r.argAlongChain(proof, callee.Name, j)
		var val bool
		switch {
		case !known:
			// min: the stronger verdict (liftRisk < liftNote < liftNone).
			level = min(level, liftNote)
			continue
		case gfp && sl.gfpSleeps(arg):
			val = true
		case gfp && sl.gfpAtomicMask(arg):
			val = false
		case !gfp && (arg == "true" || arg == "1"):
			val = true
		case !gfp && (arg == "false" || arg == "0"):
			val = false
		default:
			level = min(level, liftNote)
			continue
		}
		if val == (neg == "!") {
			return liftRisk, true // the path needed the other value
		}
	}
	return level, ok
}

// argAlongChain returns the expression the chain of proof passes in
// parameter j of function callee: the argument of the call into it,
// followed up the chain while it is a parameter of the caller passed on
// whole. ok is false when the call is not found or the value comes from
// above the chain.
func (r *checker) argAlongChain(proof *lockctx.Reach, callee string, j int) (string, bool) {
	i := slices.IndexFunc(proof.Steps, func(s report.Step) bool { return s.Func == callee })
	below := callee
	for s := i - 1; s >= 0; s-- {
		st := proof.Steps[s]
		if st.Func == below {
			continue // the step through a member the callee is assigned to
		}
		caller := r.defOf(st.Func, st.File)
		if caller == nil {
			return "", false
		}
		call, found := callAt(caller, st.Line, below, j)
		if !found {
			return "", false
		}
		arg := strings.TrimSpace(call.Args[j])
		k := slices.Index(r.newR.Params(caller), arg)
		if k < 0 {
			return arg, true
		}
		if assigns(r.funcBody(caller), arg) {
			return "", false // gfp = GFP_ATOMIC; before the call
		}
		below, j = caller.Name, k
	}
	return "", false
}

// callAt returns the call caller makes at line into function below (by
// name, or through a member whose name ends in it) with an argument j; a
// single call at the line with one stands for a call through a member
// of another name.
func callAt(caller *cscan.Func, line int, below string, j int) (cscan.Call, bool) {
	var cands []cscan.Call
	for _, c := range caller.Calls {
		if c.Line != line || len(c.Args) <= j {
			continue
		}
		if c.Name == below || strings.HasSuffix(c.Name, ">"+below) || strings.HasSuffix(c.Name, "."+below) {
			return c, true
		}
		cands = append(cands, c)
	}
	if len(cands) == 1 && strings.ContainsAny(cands[0].Name, ".>") {
		return cands[0], true
	}
	return cscan.Call{}, false
}

// assignRe matches an assignment to a variable (x = , x |= , x &= ).
var assignRe = regexp.MustCompile(`\b(\w+)\s*[|&]?=[^=]`)

// assigns reports whether body assigns variable name.
func assigns(body, name string) bool {
	for _, m := range assignRe.FindAllStringSubmatch(body, -1) {
		if m[1] == name {
			return true
		}
	}
	return false
}
