package ctype

import (
	"path"
	"regexp"
	"strings"
)

// Structs are the struct-typed members of the structs one file
// defines: tag -> member -> member's struct tag.
type Structs map[string]map[string]string

var (
	memberDecl = regexp.MustCompile(`^(?:const\s+|volatile\s+)*struct\s+(\w+)\s*(?:const\s*)?\**\s*(?:const\s+)?(\w+)\s*(?:\[[^\]]*\]\s*)*$`)
	// typedefMemberDecl is a member declared with a plain type name
	// ("const zt_ops_t *ops"), a struct's typedef when the file has one.
	typedefMemberDecl = regexp.MustCompile(`^(?:const\s+|volatile\s+)*(\w+)\s*(?:const\s*)?\**\s*(?:const\s+)?(\w+)\s*(?:\[[^\]]*\]\s*)*$`)
	// typedefDecl is "typedef struct tag name;".
	typedefDecl = regexp.MustCompile(`\btypedef\s+struct\s+(\w+)\s+(\w+)\s*;`)
	// typedefAfterBody is what follows the body of "typedef struct tag
	// {...} name;".
	typedefAfterBody = regexp.MustCompile(`^\}\s*(\w+)\s*;`)
	// typedefBefore is the text before "struct tag {" of a typedef.
	typedefBefore = regexp.MustCompile(`\btypedef\s+$`)
)

// ParseStructs finds the struct definitions of a source text and their
// struct-typed members ("struct e1000_phy_info phy;", or "zt_ops_t
// *ops;" when the text defines zt_ops_t as a struct's typedef). Members
// of anonymous inner structs and unions count as the outer struct's, as C
// lets them be named.
func ParseStructs(text string) Structs {
	out := Structs{}
	openings := structOpenings(text)
	typedefs := structTypedefs(text, openings)
	for _, m := range openings {
		// A copy: the result outlives the source text.
		tag := strings.Clone(text[m[0]:m[1]])
		body, ok := BraceBody(text[m[2]:])
		if !ok {
			continue
		}
		members := out[tag]
		if members == nil {
			members = map[string]string{}
			out[tag] = members
		}
		for _, decl := range splitDecls(body) {
			if mm := memberDecl.FindStringSubmatch(decl); mm != nil {
				members[mm[2]] = mm[1]
			} else if mm := typedefMemberDecl.FindStringSubmatch(decl); mm != nil && typedefs[mm[1]] != "" {
				members[mm[2]] = typedefs[mm[1]]
			}
		}
	}
	addMemberAliases(text, out)
	return out
}

// addMemberAliases gives each struct of out that has member b, of a
// struct type defined in the same text with a struct-typed member c, the
// macro aliases text defines for b.c as members of that type
// ("sk->sk_prot" is "sk->__sk_common.skc_prot", a struct proto *).
func addMemberAliases(text string, out Structs) {
	if !strings.Contains(text, "#define") {
		return
	}
	for _, m := range memberAliases(text) {
		alias, b, c := m[1], m[2], m[3]
		for _, members := range out {
			inner, ok := members[b]
			if !ok || members[alias] != "" {
				continue
			}
			if t := out[inner][c]; t != "" {
				members[strings.Clone(alias)] = t
			}
		}
	}
}

// StructTypedefs returns the struct typedefs text defines: name -> tag
// for "typedef struct tag name;" and "typedef struct tag {...} name;".
func StructTypedefs(text string) map[string]string {
	if !strings.Contains(text, "typedef") {
		return nil
	}
	return structTypedefs(text, structOpenings(text))
}

// structTypedefs returns the struct typedefs a text defines: name -> tag
// for "typedef struct tag name;" and "typedef struct tag {...} name;"
// (openings are the text's structOpenings).
func structTypedefs(text string, openings [][3]int) map[string]string {
	var out map[string]string
	add := func(name, tag string) {
		if out == nil {
			out = map[string]string{}
		}
		out[strings.Clone(name)] = strings.Clone(tag)
	}
	if strings.Contains(text, "typedef") {
		for _, m := range typedefDecl.FindAllStringSubmatch(text, -1) {
			add(m[2], m[1])
		}
	}
	for _, m := range openings {
		start := strings.LastIndex(text[:m[0]], "struct")
		if start < 0 || !typedefBefore.MatchString(text[max(0, start-16):start]) {
			continue
		}
		end := ClosingBrace(text[m[2]:], 64<<10)
		if end < 0 {
			continue
		}
		if mm := typedefAfterBody.FindStringSubmatch(text[m[2]+end : min(len(text), m[2]+end+128)]); mm != nil {
			add(mm[1], text[m[0]:m[1]])
		}
	}
	return out
}

// BraceBody returns the text up to the brace closing the one just before
// s (struct bodies are bounded to keep a stray brace cheap).
func BraceBody(s string) (string, bool) {
	if i := ClosingBrace(s, 64<<10); i >= 0 {
		return s[:i], true
	}
	return "", false
}

// ClosingBrace returns the offset in s of the "}" closing the brace just
// before s, reading at most max bytes (-1 when it does not close within
// them: hostile text with a stray brace costs no more than max).
func ClosingBrace(s string, max int) int {
	depth := 1
	for i := 0; i < len(s) && i < max; i++ {
		switch s[i] {
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

var (
	commentRe = regexp.MustCompile(`(?s)/\*.*?\*/|//[^\n]*`)
	// cppLineRe matches a preprocessor line (#ifdef CONFIG_... inside a
	// struct body), continuation lines included.
	cppLineRe = regexp.MustCompile(`(?m)^[ \t]*#(?:[^\n]*\\\n)*[^\n]*$`)
)

// splitDecls splits a struct body into member declarations: the text
// between semicolons with inner braces, comments, preprocessor lines and
// attributes removed (`union { struct foo a; };` gives "struct foo a").
func splitDecls(body string) []string {
	body = commentRe.ReplaceAllString(body, " ")
	body = cppLineRe.ReplaceAllString(body, " ")
	var out []string
	var cur strings.Builder
	for i := 0; i < len(body); i++ {
		switch c := body[i]; c {
		case ';':
			out = append(out, strings.Join(strings.Fields(cur.String()), " "))
			cur.Reset()
		case '{', '}':
			cur.Reset()
		default:
			cur.WriteByte(c)
		}
	}
	return out
}

// ResolveIncludes resolves the #include directives of file (delims and
// names, as IncludeDirectives returns them): local ("...") ones against
// its directory, and, when angle is set, <...> ones against include/ and,
// for <asm/...>, as the kernel's include path does, against the
// architecture's include/asm/ (the file's own architecture, x86 for
// generic code) and include/asm-generic/, both listed.
func ResolveIncludes(file string, delims []byte, names []string, angle bool) []string {
	return ResolveIncludesIn(file, delims, names, angle, nil)
}

// ResolveIncludesIn is ResolveIncludes for a tree in which exists tells
// the files there are: an <asm/...> include is the first of its two
// candidates that exists (none when neither does), as the include path
// picks it; with exists nil both are listed.
func ResolveIncludesIn(file string, delims []byte, names []string, angle bool, exists func(string) bool) []string {
	var out []string
	for i, name := range names {
		switch {
		case delims[i] == '"':
			out = append(out, path.Join(path.Dir(file), name))
		case !angle:
		case strings.HasPrefix(name, "asm/"):
			arch := path.Join("arch", archDir(file), "include", name)
			generic := path.Join("include/asm-generic", name[len("asm/"):])
			switch {
			case exists == nil:
				out = append(out, arch, generic)
			case exists(arch):
				out = append(out, arch)
			case exists(generic):
				out = append(out, generic)
			}
		default:
			out = append(out, path.Join("include", name))
		}
	}
	return out
}

// archDir returns the architecture whose headers <asm/...> means in file:
// its own under arch/, else x86 (the build this bot models).
func archDir(file string) string {
	if rest, ok := strings.CutPrefix(file, "arch/"); ok {
		if arch, _, found := strings.Cut(rest, "/"); found && arch != "" {
			return arch
		}
	}
	return "x86"
}

// SplitMembers splits "hw->phy.ops" into [hw phy ops]; nil when a part
// is not a plain identifier (array subscripts, calls, casts).
func SplitMembers(expr string) []string {
	expr = strings.ReplaceAll(strings.TrimSpace(expr), "->", ".")
	parts := strings.Split(expr, ".")
	for i, p := range parts {
		p = strings.TrimSpace(p)
		if !identRe.MatchString(p) {
			return nil
		}
		parts[i] = p
	}
	return parts
}

var indexRe = regexp.MustCompile(`\[[^\]]*\]`)

// MemberPath splits "(*card)->isac.ops[2]" into its root variable and
// member names ("card", "isac", "ops"); nil for anything it cannot read
// (calls, casts).
func MemberPath(expr string) []string {
	e := indexRe.ReplaceAllString(strings.TrimSpace(expr), "")
	e = strings.ReplaceAll(e, " ", "")
	e = strings.TrimLeft(e, "&*")
	e = strings.ReplaceAll(e, "(*", "")
	e = strings.ReplaceAll(e, "(", "")
	e = strings.ReplaceAll(e, ")", "")
	e = strings.ReplaceAll(e, "->", ".")
	parts := strings.Split(e, ".")
	for _, p := range parts {
		if !identRe.MatchString(p) {
			return nil
		}
	}
	return parts
}

// identRe matches a C identifier.
var identRe = regexp.MustCompile(`^[A-Za-z_]\w*$`)

// StructBody returns the text of the definition of struct tag in text,
// between its braces, "" when text does not define it.
func StructBody(text, tag string) string {
	re := regexp.MustCompile(`\bstruct\s+` + regexp.QuoteMeta(tag) + `\s*\{`)
	loc := re.FindStringIndex(text)
	if loc == nil {
		return ""
	}
	body, _ := BraceBody(text[loc[1]:])
	return body
}

// MemberDecl returns the declaration of member m in struct body, comments
// left out: the text between the semicolon before it and its name,
// "gfp_t" for sk_allocation in `gfp_t sk_allocation;`, "struct foo *" for
// f in `struct foo *f, g;`; "" when body does not declare m.
func MemberDecl(body, m string) string {
	body = commentRe.ReplaceAllString(body, " ")
	re := regexp.MustCompile(`[^;{}]*[\s*,]` + regexp.QuoteMeta(m) + `\s*(?:\[[^\]]*\]\s*)*(?::\s*\d+\s*)?[;,]`)
	d := re.FindString(body)
	if d == "" {
		return ""
	}
	return strings.TrimSpace(d[:strings.LastIndex(d, m)])
}
