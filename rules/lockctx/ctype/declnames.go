package ctype

import (
	"strings"
	"unicode/utf8"
)

// notTypes are the words DeclNames' pattern would take for a type before
// a name ("return x;", "goto out;"; "struct" alone is a tag in an
// expression, container_of(p, struct dentry, d_lru), not a declaration).
var notTypes = map[string]bool{"return": true, "goto": true, "case": true, "else": true, "do": true, "sizeof": true, "typeof": true,
	"struct": true, "union": true, "enum": true}

// DeclNames adds to ls the names of the declarators of text (a
// function's definition, comments stripped: its parameters and local
// variables): each leftmost match of
//
//	(?:^|[;{(,])\s*(?:(?:const|volatile|static|unsigned|signed|struct|union|enum)\s+)*([A-Za-z_]\w*)[\s*]+([A-Za-z_]\w*)\s*(?:=[^=]|;|\[|,|\))
//
// whose type word ($1) is not in notTypes, searched again from the
// delimiter that ends it or follows its initializer. A hand-written
// matcher: the pattern's leading alternation costs a match attempt at
// every byte (FuzzDeclNames checks the two agree).
func DeclNames(text string, ls map[string]bool) {
	for at := 0; at < len(text); {
		typ, name, end, ok := "", "", 0, false
		for p := at; p < len(text); p++ {
			if p > at {
				i := strings.IndexAny(text[p:], ";{(,")
				if i < 0 {
					break
				}
				p += i
			}
			if typ, name, end, ok = declaratorAt(text, p); ok {
				break
			}
		}
		if !ok {
			return
		}
		if !notTypes[typ] {
			ls[name] = true
		}
		// The next search starts at a delimiter, where a declarator
		// may begin: the one that ended this one ("int a;" then "int
		// b;"), or the next after its initializer.
		if c := text[end-1]; c == ';' || c == ',' || c == ')' {
			at = end - 1
		} else if i := strings.IndexAny(text[end:], ";{(,"); i >= 0 {
			at = end + i
		} else {
			return
		}
	}
}

// declQualifiers are the words the pattern skips before a type word.
var declQualifiers = map[string]bool{"const": true, "volatile": true, "static": true, "unsigned": true,
	"signed": true, "struct": true, "union": true, "enum": true}

// declaratorAt matches DeclNames' pattern at p (after a delimiter there,
// if any): the type word, the name and the match's end.
func declaratorAt(text string, p int) (typ, name string, end int, ok bool) {
	if p < len(text) && strings.IndexByte(";{(,", text[p]) >= 0 {
		p++
	}
	p = skipSpace(text, p)
	// The places a type word may start: after each qualifier word and
	// the spaces after it, the most qualifiers first.
	starts := []int{p}
	for q := p; ; {
		w := wordEnd(text, q)
		if w == q || !declQualifiers[text[q:w]] {
			break
		}
		s := skipSpace(text, w)
		if s == w {
			break
		}
		starts = append(starts, s)
		q = s
	}
	for k := len(starts) - 1; k >= 0; k-- {
		if typ, name, end, ok = declaratorFrom(text, starts[k]); ok {
			return typ, name, end, true
		}
	}
	return "", "", 0, false
}

// declaratorFrom matches "type [ *]+ name" and its terminator at q.
func declaratorFrom(text string, q int) (typ, name string, end int, ok bool) {
	t := wordEnd(text, q)
	if t == q {
		return "", "", 0, false
	}
	s := t
	for s < len(text) && (isSpace(text[s]) || text[s] == '*') {
		s++
	}
	if s == t {
		return "", "", 0, false
	}
	n := wordEnd(text, s)
	if n == s {
		return "", "", 0, false
	}
	e := skipSpace(text, n)
	if e >= len(text) {
		return "", "", 0, false
	}
	switch text[e] {
	case ';', '[', ',', ')':
		return text[q:t], text[s:n], e + 1, true
	case '=':
		if e+1 < len(text) && text[e+1] != '=' {
			_, size := utf8.DecodeRuneInString(text[e+1:])
			return text[q:t], text[s:n], e + 1 + size, true
		}
	}
	return "", "", 0, false
}

// wordEnd returns the end of the word ([A-Za-z_]\w*) at q, q if none.
func wordEnd(text string, q int) int {
	if q >= len(text) || !(text[q] == '_' || text[q]|0x20 >= 'a' && text[q]|0x20 <= 'z') {
		return q
	}
	for q++; q < len(text) && isWord(text[q]); q++ {
	}
	return q
}

// skipSpace returns the first position from q that is not \s.
func skipSpace(text string, q int) int {
	for q < len(text) && isSpace(text[q]) {
		q++
	}
	return q
}
