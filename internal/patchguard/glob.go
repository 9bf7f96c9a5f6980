package patchguard

import (
	"path"
	"strings"
)

// matchGlob matches a slash-separated path against a glob where "*"
// matches within one element (path.Match) and "**" matches any number of
// elements, including none.
func matchGlob(pattern, name string) bool {
	return matchElems(strings.Split(pattern, "/"), strings.Split(name, "/"))
}

func matchElems(pat, name []string) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			for i := 0; i <= len(name); i++ {
				if matchElems(pat[1:], name[i:]) {
					return true
				}
			}
			return false
		}
		if len(name) == 0 {
			return false
		}
		if ok, err := path.Match(pat[0], name[0]); err != nil || !ok {
			return false
		}
		pat, name = pat[1:], name[1:]
	}
	return len(name) == 0
}
