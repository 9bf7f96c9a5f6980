package lockctx

import (
	"crypto/sha1"
	"encoding/hex"
	"fmt"

	"github.com/autosel-bot/autosel-bot/rules/lockmodel"
)

// CompileLocks compiles a Model of the lock table's rows whose kind keep
// accepts (lockmodel.IsLock: the locks that order two functions, sleeping
// ones included), with no callbacks and no target. A rule walks with it
// (Walk, over a NewResolver with no index for the function alone) to learn
// the locks held at each call with the walker's semantics: irqsave and
// irqrestore, read and write sides, trylocks held when true, guard() to the
// end of its block and scoped_guard() over its body.
func CompileLocks(section string, locks *lockmodel.Table, keep func(kind string) bool) (*Model, error) {
	lm, err := lockmodel.Compile(locks, keep)
	if err != nil {
		return nil, err
	}
	h := sha1.Sum([]byte(fmt.Sprintf("locks|%s|%+v", section, *locks)))
	return &Model{Model: lm, id: hex.EncodeToString(h[:])}, nil
}
