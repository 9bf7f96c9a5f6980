package ctype

import (
	"regexp"
	"strings"
)

// Hand-written scanners for the patterns the struct typing runs over
// whole files (every header a caller's file includes); the regular
// expressions they replace cost a third of a one-shot check --tree. Each
// finds exactly what its pattern in the comment finds.

// isSpace is RE2's \s: [\t\n\f\r ].
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r'
}

// isWord is RE2's \w: [0-9A-Za-z_].
func isWord(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}

// structOpenings finds `\bstruct\s+(\w+)\s*\{` in text, left to right and
// without overlap: for each, the tag's start and end and the offset just
// after the brace.
func structOpenings(text string) [][3]int {
	var out [][3]int
	for pos := 0; ; {
		i := strings.Index(text[pos:], "struct")
		if i < 0 {
			return out
		}
		i += pos
		pos = i + 1
		if i > 0 && isWord(text[i-1]) {
			continue
		}
		j := i + len("struct")
		if j >= len(text) || !isSpace(text[j]) {
			continue
		}
		for j < len(text) && isSpace(text[j]) {
			j++
		}
		tagStart := j
		for j < len(text) && isWord(text[j]) {
			j++
		}
		if j == tagStart {
			continue
		}
		tagEnd := j
		for j < len(text) && isSpace(text[j]) {
			j++
		}
		if j >= len(text) || text[j] != '{' {
			continue
		}
		out = append(out, [3]int{tagStart, tagEnd, j + 1})
		pos = j + 1
	}
}

// IncludeDirectives finds `(?m)^\s*#\s*include\s*([<"])([^>"]+)[>"]` in
// src: for each, the opening delimiter ('<' or '"') and the name.
func IncludeDirectives(src string) (delims []byte, names []string) {
	for pos := 0; ; {
		i := strings.IndexByte(src[pos:], '#')
		if i < 0 {
			return delims, names
		}
		i += pos
		pos = i + 1
		// Only white space between the line's start and the '#'.
		k := i - 1
		for k >= 0 && src[k] != '\n' && isSpace(src[k]) {
			k--
		}
		if k >= 0 && src[k] != '\n' {
			continue
		}
		j := i + 1
		for j < len(src) && isSpace(src[j]) {
			j++
		}
		if !strings.HasPrefix(src[j:], "include") {
			continue
		}
		j += len("include")
		for j < len(src) && isSpace(src[j]) {
			j++
		}
		if j >= len(src) || (src[j] != '<' && src[j] != '"') {
			continue
		}
		delim := src[j]
		j++
		start := j
		for j < len(src) && src[j] != '>' && src[j] != '"' {
			j++
		}
		if j == start || j >= len(src) {
			continue
		}
		delims = append(delims, delim)
		names = append(names, src[start:j])
		pos = j + 1
	}
}

// memberAliasRe is a line of a macro naming a member of an embedded
// struct ("#define sk_prot __sk_common.skc_prot" in include/net/sock.h).
var memberAliasRe = regexp.MustCompile(`^[ \t]*#[ \t]*define[ \t]+(\w+)[ \t]+(\w+)\.(\w+)[ \t]*$`)

// memberAliases returns the submatches of memberAliasRe on the lines of
// text, in order. Only lines holding "define" are tried: a multi-line
// pattern over a whole header costs more than the rest of its typing.
func memberAliases(text string) [][]string {
	var out [][]string
	for i := 0; ; {
		j := strings.Index(text[i:], "define")
		if j < 0 {
			return out
		}
		j += i
		start := strings.LastIndexByte(text[:j], '\n') + 1
		end := strings.IndexByte(text[j:], '\n')
		if end < 0 {
			end = len(text)
		} else {
			end += j
		}
		if m := memberAliasRe.FindStringSubmatch(text[start:end]); m != nil {
			out = append(out, m)
		}
		if end == len(text) {
			return out
		}
		i = end + 1
	}
}
