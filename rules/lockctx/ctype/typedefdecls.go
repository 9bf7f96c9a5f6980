package ctype

import (
	"regexp"
	"strings"
)

// typedefPtrDeclRe is a pointer declared with a plain type name at the
// start of a declaration or a parameter ("m_pool_s *mp;", "(kdbtab_t
// *tp,"); the character after the name is checked by TypedefDecls.
var typedefPtrDeclRe = regexp.MustCompile(`(?:^|[;{}(,\n])\s*(?:(?:const|static|register|volatile)\s+)*([A-Za-z_]\w*)\s*\*\s*(?:const\s+)?([A-Za-z_]\w*)\b`)

// notTypeNames are the words a statement may start with before a "*"
// that are not type names ("return *p;", "sizeof *p") and the built-in
// types, which name no struct.
var notTypeNames = map[string]bool{
	"return": true, "sizeof": true, "case": true, "goto": true, "else": true, "do": true,
	"typeof": true, "__typeof__": true, "void": true, "char": true, "short": true, "int": true,
	"long": true, "unsigned": true, "signed": true, "float": true, "double": true, "bool": true,
	"_Bool": true, "struct": true, "union": true, "enum": true, "const": true, "static": true,
}

// TypedefDecls returns the type name each name text declares a pointer
// of with a plain type name ("m_pool_s *mp" -> mp: m_pool_s), the first
// declaration's; whether that name is a struct's typedef is for the
// caller to find out. A name declared with two type names is left out.
func TypedefDecls(text string) map[string]string {
	if !strings.Contains(text, "*") {
		return nil
	}
	var out map[string]string
	several := map[string]bool{}
	for _, m := range typedefPtrDeclRe.FindAllStringSubmatchIndex(text, -1) {
		typ, name := text[m[2]:m[3]], text[m[4]:m[5]]
		if notTypeNames[typ] || several[name] {
			continue
		}
		rest := strings.TrimLeft(text[m[1]:], " \t")
		if rest == "" || !strings.ContainsRune(",;=)[", rune(rest[0])) {
			continue
		}
		if out == nil {
			out = map[string]string{}
		}
		if t, ok := out[name]; ok && t != typ {
			delete(out, name)
			several[name] = true
			continue
		}
		out[name] = typ
	}
	return out
}
