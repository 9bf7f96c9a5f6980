package sleep

import (
	"regexp"
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
)

// maskSleepRow is a mask_sleep row: calls whose flags argument Arg
// (0-based) declares that the operation may sleep when it holds one of
// Flags, as a GFP mask does for an allocation (the crypto API's
// CRYPTO_TFM_REQ_MAY_SLEEP: the request's walk calls cond_resched() and
// allocates with GFP_KERNEL).
type maskSleepRow struct {
	Names []string `yaml:"names"`
	Arg   int      `yaml:"arg"`
	Flags []string `yaml:"flags"`
	// Inherit are expressions that hand on another request's flags
	// (aead_request_flags(req), req->base.flags): they carry the flag
	// whenever the request's submitter set it, so they count as setting
	// it unless the flag is masked out.
	Inherit []string `yaml:"inherit"`
	Why     string   `yaml:"why"`
}

// compileMaskSleep indexes the mask_sleep rows by primitive name.
// The rows are kept by value: the sleeper is part of the model's id
// (lockctx.Compile formats it), and a pointer would print as an address
// that differs in every process, so no stored summaries would ever be
// found again.
func (m *sleeper) compileMaskSleep(rows []maskSleepRow) {
	m.maskSleep = map[string]maskSleepRow{}
	for _, r := range rows {
		for _, n := range r.Names {
			m.maskSleep[n] = r
		}
	}
}

// maskReaches reports whether flags expression expr, passed to the
// mask_sleep primitive r, says the operation may sleep: it names one of
// the row's flags, or hands on a request's flags (Inherit), outside a
// conditional expression (`may_sleep ? CRYPTO_TFM_REQ_MAY_SLEEP : 0` is
// decided by the caller's flag), and does not mask the flag out.
func (r *maskSleepRow) maskReaches(expr string) bool {
	a := strings.ReplaceAll(expr, " ", "")
	if strings.Contains(a, "?") {
		return false
	}
	for _, f := range r.Flags {
		if cscan.ContainsWord(a, "~"+f) {
			return false
		}
	}
	for _, f := range r.Flags {
		if cscan.ContainsWord(a, f) {
			return true
		}
	}
	for _, in := range r.Inherit {
		if strings.Contains(a, in) {
			return true
		}
	}
	return false
}

// maskKnown reports whether expr is a constant mask of row r: one of its
// flags, 0, or an expression of upper-case macros.
func (r *maskSleepRow) maskKnown(expr string) bool {
	a := strings.TrimSpace(expr)
	return r.maskReaches(a) || constMaskRe.MatchString(a)
}

// constMaskRe matches 0 and expressions of upper-case macros and numbers.
var constMaskRe = regexp.MustCompile(`^[A-Z0-9_|()\s]+$`)

// gfpGuardRe matches a positive test of a GFP mask for direct reclaim:
// gfpflags_allow_blocking(x), or x & __GFP_DIRECT_RECLAIM (alone or or-ed
// with other flags).
var gfpGuardRe = []*regexp.Regexp{
	regexp.MustCompile(`gfpflags_allow_blocking\(\s*([A-Za-z_][\w.>-]*)\s*\)`),
	regexp.MustCompile(`([A-Za-z_][\w.>-]*)\s*&\s*\(?\s*(?:[A-Z_0-9]+\s*\|\s*)*__GFP_(?:DIRECT_)?RECLAIM\b`),
}

// GuardArg returns the GFP mask that the conditional guards of gs test
// for allowing direct reclaim (`if (gfpflags_allow_blocking(gfp))`,
// `if (gfp & __GFP_DIRECT_RECLAIM)`), when every guard that makes the
// call conditional (cond_sleep_guards) does so only by such positive
// tests of the same mask: no negation, no else branch, no other context
// check left once the tests are taken out.
func (m *sleeper) GuardArg(gs []cscan.Guard) (string, bool) {
	mask := ""
	for _, g := range gs {
		if !m.Conditional([]cscan.Guard{g}) {
			continue
		}
		if g.Kind != "if" || negatedTest(g.Cond) {
			return "", false
		}
		rest := g.Cond
		for _, re := range gfpGuardRe {
			for _, mm := range re.FindAllStringSubmatch(rest, -1) {
				if mask != "" && mm[1] != mask {
					return "", false
				}
				mask = mm[1]
			}
			rest = re.ReplaceAllString(rest, "")
		}
		if rest == g.Cond || m.Conditional([]cscan.Guard{{Kind: g.Kind, Cond: rest}}) {
			return "", false
		}
	}
	return mask, mask != ""
}

// GuardWords returns the words a test GuardArg reads contains
// (lockctx.ArgGuard): gfpGuardRe's.
func (m *sleeper) GuardWords() []string {
	return []string{"gfpflags_allow_blocking", "__GFP_DIRECT_RECLAIM", "__GFP_RECLAIM"}
}

// negatedTest reports whether cond may test for the opposite: a '!'
// that is not part of "!=", an "==" comparison or a '~'.
func negatedTest(cond string) bool {
	for i := 0; i < len(cond); i++ {
		switch cond[i] {
		case '!':
			if i+1 >= len(cond) || cond[i+1] != '=' {
				return true
			}
		case '~':
			return true
		case '=':
			if i+1 < len(cond) && cond[i+1] == '=' {
				return true
			}
		}
	}
	return false
}

// PassThrough returns the variable of a mask expression that hands it
// on unchanged for sleeping: or-ed with constant flags (OR never clears
// the reclaim or MAY_SLEEP bit), or and-ed with a complement of constant
// flags that are not what decides (gfp & ~__GFP_ZERO), in parentheses or
// not. A mask that clears a deciding flag, and anything else, is not
// handed on.
func (m *sleeper) PassThrough(expr string) (string, bool) {
	e := strings.TrimSpace(expr)
	for strings.HasPrefix(e, "(") && strings.HasSuffix(e, ")") && balanced(e[1:len(e)-1]) {
		e = strings.TrimSpace(e[1 : len(e)-1])
	}
	v := ""
	for _, o := range splitMaskOps(e) {
		op := strings.TrimSpace(o.text)
		// A macro's body brackets its parameters: "(gfp_mask) | GFP_DMA".
		for strings.HasPrefix(op, "(") && strings.HasSuffix(op, ")") && balanced(op[1:len(op)-1]) {
			op = strings.TrimSpace(op[1 : len(op)-1])
		}
		switch {
		case identRe.MatchString(op) && strings.ToUpper(op) != op:
			if v != "" {
				return "", false
			}
			v = op
		case constMaskRe.MatchString(strings.TrimPrefix(op, "~")):
			if strings.HasPrefix(op, "~") && m.decidingFlag(op[1:]) {
				return "", false
			}
		default:
			return "", false
		}
	}
	return v, v != ""
}

// maskOp is one operand of a mask expression and the operator before it.
type maskOp struct {
	op   byte
	text string
}

// splitMaskOps splits e at its top-level '|' and '&' (not "||", "&&",
// which give a single operand "?" that nothing accepts). An '&' operand
// must be a complement (~X).
func splitMaskOps(e string) []maskOp {
	var out []maskOp
	depth, start := 0, 0
	var op byte
	for i := 0; i < len(e); i++ {
		switch c := e[i]; c {
		case '(':
			depth++
		case ')':
			depth--
		case '|', '&':
			if depth != 0 {
				continue
			}
			if i+1 < len(e) && e[i+1] == c {
				return []maskOp{{text: "?"}}
			}
			out = append(out, maskOp{op, e[start:i]})
			op, start = c, i+1
		}
	}
	out = append(out, maskOp{op, e[start:]})
	for _, o := range out[1:] {
		if o.op == '&' && !strings.HasPrefix(strings.TrimSpace(o.text), "~") {
			return []maskOp{{text: "?"}}
		}
	}
	return out
}

// decidingFlag reports whether a constant flag expression clears (when
// complemented) what makes a mask sleep: a GFP reclaim bit, a sleeping
// GFP mask, or a mask_sleep flag.
func (m *sleeper) decidingFlag(x string) bool {
	a := strings.Trim(strings.TrimSpace(x), "()")
	for _, f := range m.gfpSleep {
		if cscan.ContainsWord(a, f) {
			return true
		}
	}
	for _, r := range m.maskSleep {
		for _, f := range r.Flags {
			if cscan.ContainsWord(a, f) {
				return true
			}
		}
	}
	return false
}

// balanced reports whether s's parentheses balance (so "(a) | (b)" is
// not taken for one parenthesised operand).
func balanced(s string) bool {
	d := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(':
			d++
		case ')':
			d--
			if d < 0 {
				return false
			}
		}
	}
	return d == 0
}

// identRe matches a variable: an identifier.
var identRe = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
