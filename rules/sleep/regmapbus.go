package sleep

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/report"
	"github.com/autosel-bot/autosel-bot/rules/lockctx/ctype"
	"github.com/autosel-bot/autosel-bot/rules/lockctx/typing"
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
	// initRe matches a call of one of Inits (compile).
	initRe *regexp.Regexp
}

// compile builds initRe; the rule's runs share the rows read-only.
func (rb *regmapBusRules) compile() error {
	if len(rb.Inits) == 0 {
		return nil
	}
	names := make([]string, len(rb.Inits))
	for i, n := range rb.Inits {
		if !cscan.IsIdent(n) {
			return fmt.Errorf("sleep.regmap_bus.inits[%d]: %q is not a function name", i, n)
		}
		names[i] = regexp.QuoteMeta(n)
	}
	if rb.Why == "" || len(rb.Spinlock) == 0 {
		return fmt.Errorf("sleep.regmap_bus: needs spinlock and why")
	}
	var err error
	rb.initRe, err = regexp.Compile(`\b(` + strings.Join(names, "|") + `)\s*\(`)
	return err
}

// regmapUse is a sleeping-bus initialiser's call with a config that asks
// for a spinlock.
type regmapUse struct {
	init, config, field string
	initLine, fieldLine int
}

// regmapBus checks the C files the patch changes (with a tree: it reads
// the whole files on both sides). A file whose old side already had such
// a regmap (mcr20a.c's SPI maps ask for fast_io in Linux 6.1) is not the
// patch's doing, whatever it renames there.
func (r *checker) regmapBus() {
	rb := r.regmapRules
	if rb == nil || r.p.Index == nil || r.oldR.Index() == nil || len(rb.Inits) == 0 {
		return
	}
	for _, fc := range r.p.Change.Files {
		path := fc.NewPath
		if fc.IsDelete || !strings.HasSuffix(path, ".c") {
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
		if !fc.IsNew && fc.OldPath != "" {
			if osrc, err := r.oldR.Index().ReadFile(fc.OldPath); err == nil && len(rb.uses(string(osrc))) > 0 {
				continue
			}
		}
		done := map[string]bool{}
		for _, u := range uses {
			if !done[u.config] {
				done[u.config] = true
				r.reportRegmapBus(path, u)
			}
		}
	}
}

// reportRegmapBus reports one use, in the function that makes the call.
func (r *checker) reportRegmapBus(path string, u regmapUse) {
	fn := r.p.Index.File(path).FuncAt(u.initLine)
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

// uses returns the sleeping-bus initialiser calls of src whose config,
// defined in src, asks for a spinlock.
func (rb *regmapBusRules) uses(src string) []regmapUse {
	if rb.initRe == nil || !rb.mentionsInit(src) {
		return nil
	}
	var out []regmapUse
	for _, m := range rb.initRe.FindAllStringSubmatchIndex(src, -1) {
		args, ok := cscan.SplitArgs(src[m[1]:], maxScan)
		if !ok {
			continue
		}
		cfg := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(args[len(args)-1]), "&"))
		if !cscan.IsIdent(cfg) {
			continue
		}
		field, at := rb.spinlockField(src, cfg)
		if field == "" {
			continue
		}
		out = append(out, regmapUse{init: src[m[2]:m[3]], config: cfg, field: field,
			initLine: lineAt(src, m[0]), fieldLine: lineAt(src, at)})
	}
	return out
}

// mentionsInit reports whether src holds one of the initialisers' names:
// most files do not, and initRe, an alternation without a literal prefix,
// costs a match attempt at every byte of a file.
func (rb *regmapBusRules) mentionsInit(src string) bool {
	for _, n := range rb.Inits {
		if strings.Contains(src, n) {
			return true
		}
	}
	return false
}

// spinlockField returns the spinlock field of config cfg's definition in
// src ("" when cfg is not defined there, asks for none, or brings its own
// locking: .disable_locking, .lock, .use_hwlock) and its offset. Comments
// (one-line or not) and "#if 0" blocks do not count.
func (rb *regmapBusRules) spinlockField(src, cfg string) (string, int) {
	re, err := regexp.Compile(`struct\s+regmap_config\s+` + regexp.QuoteMeta(cfg) + `\s*=\s*\{`)
	if err != nil {
		return "", 0
	}
	loc := re.FindStringIndex(src)
	if loc == nil {
		return "", 0
	}
	// Comments blanked in place (offsets kept), a multi-line one too.
	window := typing.StripComments(src[loc[1]:min(len(src), loc[1]+maxScan)])
	end := ctype.ClosingBrace(window, maxScan)
	if end < 0 {
		return "", 0
	}
	body := window[:end]
	field, off := "", 0
	dead := 0 // depth of "#if 0" blocks
	pos := 0
	for _, line := range strings.SplitAfter(body, "\n") {
		at := pos
		pos += len(line)
		t := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(t, "#if"):
			if dead > 0 || strings.Join(strings.Fields(t), " ") == "#if 0" {
				dead++
			}
			continue
		case strings.HasPrefix(t, "#endif"):
			if dead > 0 {
				dead--
			}
			continue
		case dead > 0:
			continue
		}
		flat := strings.Join(strings.Fields(t), "")
		for _, own := range []string{".disable_locking=true", ".disable_locking=1", ".lock=", ".use_hwlock=true", ".use_hwlock=1"} {
			if strings.Contains(flat, own) {
				return "", 0
			}
		}
		for _, f := range rb.Spinlock {
			if field == "" && strings.Contains(flat, strings.ReplaceAll(f, " ", "")) {
				field, off = strings.TrimSuffix(t, ","), loc[1]+at
			}
		}
	}
	return strings.TrimSpace(field), off
}

// maxScan bounds how far a call's arguments or an initialiser's body are
// read (hostile input: an unbalanced parenthesis must not make every
// match scan the rest of the file).
const maxScan = 8 << 10

// lineAt returns the 1-based line of offset off in src.
func lineAt(src string, off int) int {
	return strings.Count(src[:off], "\n") + 1
}
