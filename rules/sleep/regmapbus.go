package sleep

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/report"
)

// A regmap whose config asks for a spinlock (fast_io, use_raw_spinlock)
// holds that spinlock around every access, bus transfer included
// (drivers/base/regmap/regmap.c regmap_lock_spinlock()). On a bus whose
// transfers sleep (I2C, SPI, SoundWire: the table's "sleeping_bus_regmaps"
// initialisers) every access then sleeps in atomic context, whoever calls
// it: the code that changed is the config or the initialiser, not a
// function. regmapBus reports the combinations a patch creates in the
// files it changes.

// regmapBusRules are the table's rows for regmapBus.
type regmapBusRules struct {
	// Inits are the initialisers of regmaps on sleeping buses; the config
	// is their last argument.
	Inits []string `yaml:"inits"`
	// Spinlock are the config fields (".fast_io = true",
	// whitespace-insensitive) that make the map lock a spinlock.
	Spinlock []string `yaml:"spinlock"`
	Why      string   `yaml:"why"`
}

// regmapUse is a sleeping-bus initialiser's call with a config that asks
// for a spinlock.
type regmapUse struct {
	init, config, field string
	initLine, fieldLine int
}

// regmapBus checks the C files the patch changes (with a tree: it reads
// the whole files on both sides).
func (r *checker) regmapBus() {
	rb := r.regmapRules
	if rb == nil || r.p.Index == nil || r.oldR.Index() == nil || len(rb.Inits) == 0 {
		return
	}
	for _, path := range r.p.Index.OverlaidPaths() {
		if !strings.HasSuffix(path, ".c") {
			continue
		}
		src, err := r.p.Index.ReadFile(path)
		if err != nil {
			continue
		}
		uses := rb.uses(string(src))
		if len(uses) == 0 {
			continue
		}
		old := map[string]bool{}
		if osrc, err := r.oldR.Index().ReadFile(path); err == nil {
			for _, u := range rb.uses(string(osrc)) {
				old[u.init+"|"+u.config] = true
			}
		}
		for _, u := range uses {
			if old[u.init+"|"+u.config] {
				continue // not this patch's doing
			}
			r.reportRegmapBus(path, u)
		}
	}
}

// reportRegmapBus reports one use, in the function that makes the call.
func (r *checker) reportRegmapBus(path string, u regmapUse) {
	fn := enclosing(r.p.Index.File(path), u.initLine)
	name := ""
	if fn != nil {
		name = fn.Name
	}
	steps := []report.Step{
		{Func: u.config, File: path, Line: u.fieldLine, What: u.field},
		{Func: name, File: path, Line: u.initLine, What: "calls " + u.init + "(..., &" + u.config + ")"},
	}
	r.p.Report(report.Finding{
		Category: CategoryChain,
		Severity: report.SeverityRisk,
		File:     path,
		Func:     name,
		Line:     u.fieldLine,
		Key:      u.config,
		Message: fmt.Sprintf("%s asks for a spinlock (%s) but %s() puts the regmap on a bus whose transfers sleep: every access sleeps in atomic context",
			u.config, u.field, u.init),
		Explanation: fmt.Sprintf("%s (%s:%d) sets %s, so the regmap core takes a spinlock around every access, bus transfer "+
			"included; %s() at line %d creates the map on a sleeping bus (%s). Every regmap_read()/regmap_write() "+
			"of this map then sleeps with that spinlock held, whatever its caller's context.",
			u.config, path, u.fieldLine, u.field, u.init, u.initLine, r.regmapRules.Why),
		Chain: steps,
	})
}

// enclosing returns the function of f whose body holds line.
func enclosing(f *cscan.File, line int) *cscan.Func {
	if f == nil {
		return nil
	}
	for _, fn := range f.Funcs {
		if fn.BodyStart <= line && line <= fn.End {
			return fn
		}
	}
	return nil
}

// uses returns the sleeping-bus initialiser calls of src whose config,
// defined in src, asks for a spinlock.
func (rb *regmapBusRules) uses(src string) []regmapUse {
	var out []regmapUse
	for _, init := range rb.Inits {
		re := regexp.MustCompile(`\b` + regexp.QuoteMeta(init) + `\s*\(`)
		for _, loc := range re.FindAllStringIndex(src, -1) {
			args := callArgs(src[loc[1]:])
			if len(args) == 0 {
				continue
			}
			cfg := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(args[len(args)-1]), "&"))
			if !isIdent(cfg) {
				continue
			}
			field, at := rb.spinlockField(src, cfg)
			if field == "" {
				continue
			}
			out = append(out, regmapUse{init: init, config: cfg, field: field,
				initLine: lineAt(src, loc[0]), fieldLine: lineAt(src, at)})
		}
	}
	return out
}

// spinlockField returns the spinlock field of config cfg's definition in
// src ("" when cfg is not defined there or asks for none) and its offset.
func (rb *regmapBusRules) spinlockField(src, cfg string) (string, int) {
	re := regexp.MustCompile(`struct\s+regmap_config\s+` + regexp.QuoteMeta(cfg) + `\s*=\s*\{`)
	loc := re.FindStringIndex(src)
	if loc == nil {
		return "", 0
	}
	end := strings.Index(src[loc[1]:], "};")
	if end < 0 {
		return "", 0
	}
	body := src[loc[1] : loc[1]+end]
	for _, line := range strings.SplitAfter(body, "\n") {
		flat := strings.Join(strings.Fields(line), " ")
		for _, f := range rb.Spinlock {
			if strings.Contains(strings.ReplaceAll(flat, " ", ""), strings.ReplaceAll(f, " ", "")) {
				off := loc[1] + strings.Index(body, line)
				return strings.TrimSuffix(strings.TrimSpace(line), ","), off
			}
		}
	}
	return "", 0
}

// callArgs splits the arguments of a call whose text starts after its
// "(" (nil when the parenthesis does not close).
func callArgs(s string) []string {
	depth, start := 0, 0
	var out []string
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			if depth == 0 {
				return append(out, s[start:i])
			}
			depth--
		case ',':
			if depth == 0 {
				out = append(out, s[start:i])
				start = i + 1
			}
		case ';':
			return nil
		}
	}
	return nil
}

// isIdent reports whether s is a C identifier.
func isIdent(s string) bool {
	if s == "" || s[0] >= '0' && s[0] <= '9' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !cscan.IsIdentChar(s[i]) {
			return false
		}
	}
	return true
}

// lineAt returns the 1-based line of offset off in src.
func lineAt(src string, off int) int {
	return strings.Count(src[:off], "\n") + 1
}
