package ctype

import "regexp"

var declRe = regexp.MustCompile(`struct\s+(\w+)\s*\*?\s*(?:const\s+)?\*?\s*(\w+)\s*[,;=)\[]`)

// DeclTags returns the struct tag of each name text declares ("struct
// tag *name"), the first declaration's, and the names declared with
// several tags.
func DeclTags(text string) (first map[string]string, several map[string]bool) {
	first = map[string]string{}
	for _, m := range declRe.FindAllStringSubmatch(text, -1) {
		if t, ok := first[m[2]]; !ok {
			first[m[2]] = m[1]
		} else if t != m[1] {
			if several == nil {
				several = map[string]bool{}
			}
			several[m[2]] = true
		}
	}
	return first, several
}
