package lockctx

import (
	"bytes"
	"regexp"
	"slices"
	"strings"

	"github.com/autosel-bot/autosel-bot/index"
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
// from file: the file's source holds one of the row's Unless texts, or
// none of its Only texts. A file that cannot be read (or no tree) keeps a
// row without Only texts and lifts one with them: what a row's object
// must declare is not assumed.
func (r *Resolver) lifted(c *Callback, file string) bool {
	if len(c.Unless) == 0 && len(c.Only) == 0 {
		return false
	}
	if r.ix == nil || file == "" {
		return len(c.Only) > 0
	}
	key := "lockctx.unless:" + strings.Join(c.Unless, "\x00") + "\x01" + strings.Join(c.Only, "\x00") + "\x00" + file
	return r.fileMemo(key, file, func() any {
		src, err := r.ix.ReadFile(file)
		if err != nil {
			return len(c.Only) > 0
		}
		flat := Flatten(src)
		return FlatHoldsAny(flat, c.Unless) || len(c.Only) > 0 && !FlatHoldsAny(flat, c.Only)
	}).(bool)
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
		if r.lifted(c, a.File) {
			return true
		}
	}
	return false
}
