package ctype

import "regexp"

var (
	declRe = regexp.MustCompile(`struct\s+(\w+)\s*\*?\s*(?:const\s+)?\*?\s*(\w+)\s*[,;=)\[]`)
	// globalDeclRe is declRe with attributes after the name, as file
	// scope objects have them ("struct x86_pmu x86_pmu __read_mostly;").
	globalDeclRe = regexp.MustCompile(`struct\s+(\w+)\s*\*?\s*(?:const\s+)?\*?\s*(\w+)(?:\s+__\w+)*\s*[,;=)\[]`)
)

// DeclTags returns the struct tag of each name text declares ("struct
// tag *name"), the first declaration's, and the names declared with
// several tags.
func DeclTags(text string) (first map[string]string, several map[string]bool) {
	return declTags(declRe, text)
}

// GlobalDeclTags is DeclTags for file scope text, whose declarations may
// carry attributes after the name (__read_mostly, __ro_after_init).
func GlobalDeclTags(text string) (first map[string]string, several map[string]bool) {
	return declTags(globalDeclRe, text)
}

func declTags(re *regexp.Regexp, text string) (first map[string]string, several map[string]bool) {
	first = map[string]string{}
	for _, m := range re.FindAllStringSubmatch(text, -1) {
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
