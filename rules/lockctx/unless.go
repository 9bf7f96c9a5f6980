package lockctx

import (
	"bytes"
	"regexp"
	"slices"
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/index"
	"github.com/autosel-bot/autosel-bot/rules/lockctx/ctype"
	"github.com/autosel-bot/autosel-bot/rules/lockctx/typing"
)

// A callback row's Unless texts lift it for the objects that declare
// their callbacks may sleep: gpiolib calls a gpio_chip's get/set from
// atomic context unless the chip sets can_sleep, ALSA calls a PCM's
// trigger under the stream spinlock unless the PCM is nonatomic. The
// declaration is looked for in the source of the file registering the
// function (where the object is set up), so a patch that removes it
// changes the context of callbacks it leaves alone.

var blanksRe = regexp.MustCompile(`\s+`)

// Flatten returns src without white space, for FlatHoldsAny.
func Flatten(src []byte) []byte { return blanksRe.ReplaceAll(src, nil) }

// FlatHoldsAny reports whether flat (Flatten's result) holds one of
// texts, compared without their white space.
func FlatHoldsAny(flat []byte, texts []string) bool {
	for _, t := range texts {
		if bytes.Contains(flat, []byte(strings.Join(strings.Fields(t), ""))) {
			return true
		}
	}
	return false
}

// lifted reports whether row c does not apply to a function registered
// from file: the file's source (its comments blanked) holds one of the
// row's Unless texts, or none of its Only texts. A file that cannot be
// read (or no tree) keeps a row without Only texts and lifts one with
// them: what a row's object must declare is not assumed.
func (r *Resolver) lifted(c *Callback, file string) bool {
	return r.liftedFor(c, file, "")
}

// liftedAt is lifted for a function assigned to a member by a: when a is
// made in a top-level initializer (a.Var), the Only texts are those of
// that object, in its initializer or set on a copy at run time
// (cfg.fast_io = true), not those of another object of the file.
func (r *Resolver) liftedAt(c *Callback, a index.Assign) bool {
	return r.liftedFor(c, a.File, a.Var)
}

func (r *Resolver) liftedFor(c *Callback, file, obj string) bool {
	if len(c.OnlyCalls) > 0 && !r.callsUnconditionally(file, c.OnlyCalls) {
		return true
	}
	if len(c.Unless) == 0 && len(c.Only) == 0 {
		return false
	}
	if r.ix == nil || file == "" {
		return len(c.Only) > 0
	}
	if len(c.Only) == 0 {
		obj = ""
	}
	if c.UnlessNear && r.nearHolds(file, c.Unless) {
		// Decided by the family's files, some of which the view may
		// rescan: not kept with file's own answer below.
		return true
	}
	key := "lockctx.unless:" + strings.Join(c.Unless, "\x00") + "\x01" + strings.Join(c.Only, "\x00") + "\x01" + obj + "\x00" + file
	return r.fileMemo(key, file, func() any {
		src, err := r.ix.ReadFile(file)
		if err != nil {
			return len(c.Only) > 0
		}
		text := typing.StripComments(string(src))
		flat := Flatten([]byte(text))
		if FlatHoldsAny(flat, c.Unless) {
			return true
		}
		return len(c.Only) > 0 && !asksFor(text, flat, obj, c.Only)
	}).(bool)
}

// nearHolds reports whether a C file of file's driver family (the files
// under familyRoot(file): sound/soc/intel/ for sound/soc/intel/catpt/,
// whose boards/ set their links nonatomic), other than file, holds one of
// texts (comments blanked, whitespace-insensitive). The tree's files are
// read once per tree; those the view rescans, in the view.
func (r *Resolver) nearHolds(file string, texts []string) bool {
	key := "lockctx.nearholds:" + strings.Join(texts, "\x00") + "\x01" + file
	if v, ok := r.facts[key]; ok {
		return v.(bool)
	}
	held := r.familyHolds(file, texts)
	r.facts[key] = held
	return held
}

// familyHolds is nearHolds' answer, computed.
func (r *Resolver) familyHolds(file string, texts []string) bool {
	root := familyRoot(file)
	tree := r.ix.Underlying()
	held := tree.Memo("lockctx.nearholds:"+strings.Join(texts, "\x00")+"\x01"+root, func() any {
		var out []string
		for _, p := range r.familyFiles(root) {
			if src, err := tree.ReadFile(p); err == nil && holdsText(src, texts) {
				out = append(out, p)
			}
		}
		return out
	}).([]string)
	for _, p := range held {
		if p != file && !r.ix.Overlaid(p) {
			return true
		}
	}
	for _, p := range r.ix.OverlaidPaths() {
		if p == file || !strings.HasSuffix(p, ".c") || !strings.HasPrefix(p, root+"/") {
			continue
		}
		if src, err := r.ix.ReadFile(p); err == nil && holdsText(src, texts) {
			return true
		}
	}
	return false
}

// holdsText reports whether C source src holds one of texts, its comments
// blanked and compared without white space; a source that does not spell
// a text's first word is not stripped.
func holdsText(src []byte, texts []string) bool {
	spelled := false
	for _, t := range texts {
		if f := strings.Fields(t); len(f) > 0 && bytes.Contains(src, []byte(f[0])) {
			spelled = true
			break
		}
	}
	return spelled && FlatHoldsAny(Flatten([]byte(typing.StripComments(string(src)))), texts)
}

// callsUnconditionally reports whether a function of file calls one of
// names under no condition (no if, loop or switch around the call).
func (r *Resolver) callsUnconditionally(file string, names []string) bool {
	if r.ix == nil {
		return false
	}
	f := r.ix.File(file)
	if f == nil {
		return false
	}
	for _, fn := range f.Funcs {
		for _, c := range fn.Calls {
			if len(c.Guards) == 0 && slices.Contains(names, c.Name) {
				return true
			}
		}
	}
	return false
}

// asksFor reports whether a file (text, its comments blanked, and flat,
// that Flatten'ed) asks for one of the only texts: anywhere when obj is
// "", else in obj's initializer ("obj = {...}") or as a store to a member
// at run time (the text after an identifier or a closing bracket:
// "cfg.fast_io=true", not the ",.fast_io=true" of another initializer).
func asksFor(text string, flat []byte, obj string, only []string) bool {
	if obj == "" {
		return FlatHoldsAny(flat, only)
	}
	if body := initializerOf(text, obj); body != "" && FlatHoldsAny(Flatten([]byte(body)), only) {
		return true
	}
	for _, t := range only {
		t := []byte(strings.Join(strings.Fields(t), ""))
		for i := 0; ; {
			j := bytes.Index(flat[i:], t)
			if j < 0 {
				break
			}
			if k := i + j; k > 0 && (cscan.IsIdentChar(flat[k-1]) || flat[k-1] == ')' || flat[k-1] == ']') {
				return true
			}
			i += j + 1
		}
	}
	return false
}

// initializerOf returns what the braces of the first "obj = {...}" of
// text hold, "" when there is none (or the braces do not close).
func initializerOf(text, obj string) string {
	for i := 0; ; {
		j := strings.Index(text[i:], obj)
		if j < 0 {
			return ""
		}
		k := i + j
		i = k + len(obj)
		if k > 0 && cscan.IsIdentChar(text[k-1]) || i < len(text) && cscan.IsIdentChar(text[i]) {
			continue
		}
		rest := strings.TrimLeft(text[i:], " \t\n")
		if !strings.HasPrefix(rest, "=") {
			continue
		}
		rest = strings.TrimLeft(rest[1:], " \t\n")
		if !strings.HasPrefix(rest, "{") {
			continue
		}
		body, _ := ctype.BraceBody(rest[1:])
		return body
	}
}

// DeclaredSleeping reports whether assignment a puts a function in a
// member whose callback row the assigning file lifts: the object declares
// its callbacks may sleep (a gpio_chip with can_sleep, a blk-mq tag set
// with BLK_MQ_F_BLOCKING) or does not ask for the atomic context (a
// regmap_config without fast_io), so the core calls them only where sleeping is
// allowed, and the core's calls through that member do not reach it in
// atomic context.
func (r *Resolver) DeclaredSleeping(a index.Assign) bool {
	for i := range r.m.callbacks {
		c := &r.m.callbacks[i]
		if len(c.Unless) == 0 && len(c.Only) == 0 || !slices.Contains(c.Members, a.Member) || !r.memberMatches(c, a) {
			continue
		}
		if r.liftedAt(c, a) {
			return true
		}
	}
	return false
}
