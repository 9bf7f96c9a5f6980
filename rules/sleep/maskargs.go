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
func (m *sleeper) compileMaskSleep(rows []maskSleepRow) {
	m.maskSleep = map[string]*maskSleepRow{}
	for i := range rows {
		for _, n := range rows[i].Names {
			m.maskSleep[n] = &rows[i]
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
		if containsWord(a, "~"+f) {
			return false
		}
	}
	for _, f := range r.Flags {
		if containsWord(a, f) {
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
