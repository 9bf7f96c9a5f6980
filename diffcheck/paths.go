package diffcheck

import (
	"errors"
	"fmt"
	"strings"
)

// ErrHostilePath is wrapped by every error about a path that could escape
// the tree (absolute, "..", NUL, control characters, .git).
var ErrHostilePath = errors.New("hostile path")

// CheckPath reports whether p is a safe repository-relative path: not
// empty, not absolute, no "." or ".." components, no empty components, no
// NUL or other control characters, and not inside a .git directory. It is
// used for every path a diff names before anything reads a tree with it.
func CheckPath(p string) error {
	bad := func(why string) error {
		return fmt.Errorf("%w %q: %s", ErrHostilePath, p, why)
	}
	switch {
	case p == "":
		return bad("empty")
	case strings.HasPrefix(p, "/"):
		return bad("absolute path")
	case len(p) > 4096:
		return bad("too long")
	}
	for i := 0; i < len(p); i++ {
		if c := p[i]; c < 0x20 || c == 0x7f {
			if c == 0 {
				return bad("contains NUL")
			}
			return bad("contains a control character")
		}
	}
	for _, c := range strings.Split(p, "/") {
		switch {
		case c == "":
			return bad("empty path component")
		case c == "." || c == "..":
			return bad(`contains "` + c + `" component`)
		case strings.EqualFold(c, ".git"):
			return bad("names a .git directory")
		}
	}
	return nil
}
