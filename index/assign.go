package index

import (
	"strings"
)

// Assign is one assignment of a function to a member of a struct: a
// designated initializer (`static const struct net_device_ops foo_ops =
// { .ndo_get_stats64 = foo_get_stats64, }`) or a plain assignment
// (`t->timer.function = foo_timer;`). Calls through that member
// (`dev->netdev_ops->ndo_get_stats64(...)`) may reach Func.
type Assign struct {
	// Struct is the struct tag of the initialised object ("net_device_ops"),
	// "" when the scanner cannot tell (plain assignments, nested
	// initializers).
	Struct string
	// Member is the member assigned, Func the function name assigned to it.
	Member, Func string
	// Base is the expression the member belongs to in a plain assignment
	// ("t->timer"), "" in initializers.
	Base string
	// Var is the variable a top-level initializer declares ("foo_ops"),
	// "" elsewhere.
	Var string
	// File and Line locate the assignment.
	File string
	Line int
}

// atok is one token of the assignment scanner.
type atok struct {
	text string
	line int
}

// ScanAssigns finds the assignments of identifiers to struct members in
// one C file: designated initializers with the struct tag of the
// declaration or compound literal they initialise, and plain `x->m = f;`
// / `x.m = f;` statements. Whether the identifier names a function is
// decided by the caller (the index knows the functions).
func ScanAssigns(path string, src []byte) []Assign {
	toks := assignTokens(src)
	var out []Assign
	// types holds, per open brace, the struct tag it initialises ("" when
	// unknown) and whether it is an array of such structs.
	type brace struct {
		tag, name string
		array     bool
	}
	var stack []brace
	stmt := 0 // first token of the current declaration or statement
	for i := 0; i < len(toks); i++ {
		t := toks[i].text
		switch t {
		case "{":
			b := brace{}
			switch {
			case i > 0 && toks[i-1].text == "=":
				b.tag, b.array = declTag(toks[stmt : i-1])
				b.name = declName(toks[stmt : i-1])
			case i > 3 && toks[i-1].text == ")" && toks[i-3].text == "struct" && toks[i-4].text == "(":
				b.tag = toks[i-2].text
			case i > 0 && (toks[i-1].text == "{" || toks[i-1].text == ",") && len(stack) > 0 && stack[len(stack)-1].array:
				b.tag = stack[len(stack)-1].tag
			}
			stack = append(stack, b)
			stmt = i + 1
		case "}":
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
			stmt = i + 1
		case ";":
			stmt = i + 1
		case "=":
			if i < 2 || i+2 >= len(toks) || !isIdentTok(toks[i+1].text) {
				continue
			}
			fn, next := toks[i+1].text, toks[i+2].text
			member := toks[i-1].text
			if !isIdentTok(member) || !plausibleFunc(fn) {
				continue
			}
			op := toks[i-2].text
			switch {
			case op == "." && (next == "," || next == "}") && (i < 3 || isInitStart(toks[i-3].text)):
				tag, name := "", ""
				if len(stack) > 0 {
					tag = stack[len(stack)-1].tag
				}
				if len(stack) == 1 {
					name = stack[0].name
				}
				out = append(out, Assign{Struct: strings.Clone(tag), Member: strings.Clone(member), Func: strings.Clone(fn),
					Var: strings.Clone(name), File: path, Line: toks[i+1].line})
			case (op == "->" || op == ".") && next == ";":
				base := baseExpr(toks[stmt : i-2])
				if base == "" {
					continue
				}
				out = append(out, Assign{Member: strings.Clone(member), Func: strings.Clone(fn), Base: base, File: path, Line: toks[i+1].line})
			}
		}
	}
	return out
}

// isInitStart reports whether a token may precede a designator
// (".member = ..." starts an initializer element).
func isInitStart(t string) bool {
	return t == "{" || t == "," || t == "]" || t == ")"
}

// declTag returns the struct tag a declaration's tokens name ("static
// const struct file_operations foo_fops" -> "file_operations") and whether
// it declares an array.
func declTag(toks []atok) (string, bool) {
	tag, array := "", false
	for i, t := range toks {
		if t.text == "struct" && i+1 < len(toks) && tag == "" {
			tag = toks[i+1].text
		}
		if t.text == "[" {
			array = true
		}
	}
	return tag, array
}

// declName returns the name a declaration's tokens declare: the last
// identifier outside brackets ("foo_nb" in "static struct notifier_block
// foo_nb", "chips" in "struct irq_chip chips[2]").
func declName(toks []atok) string {
	name, depth := "", 0
	for _, t := range toks {
		switch {
		case t.text == "[" || t.text == "(":
			depth++
		case t.text == "]" || t.text == ")":
			depth--
		case depth == 0 && isIdentTok(t.text):
			name = t.text
		}
	}
	return name
}

// baseExpr renders the expression before the assigned member
// ("t->timer" for "t->timer.function = f;"), "" when it is not a plain
// member chain.
func baseExpr(toks []atok) string {
	var b strings.Builder
	for _, t := range toks {
		switch {
		case isIdentTok(t.text), t.text == "->", t.text == ".", t.text == "[", t.text == "]", t.text == "*", t.text == "(", t.text == ")", t.text == "&":
			b.WriteString(t.text)
		default:
			if t.text != "" && t.text[0] >= '0' && t.text[0] <= '9' {
				b.WriteString(t.text)
				continue
			}
			return ""
		}
	}
	return b.String()
}

// plausibleFunc filters identifiers that are certainly not function
// names (macros in capitals, NULL, true/false).
func plausibleFunc(s string) bool {
	if s == "NULL" || s == "true" || s == "false" || strings.ToUpper(s) == s {
		return false
	}
	return true
}

func isIdentTok(s string) bool {
	if s == "" {
		return false
	}
	c := s[0]
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// assignTokens splits C source into identifiers, numbers and punctuation
// (comments, strings and character literals dropped; "->" and two-char
// operators such as "==" kept whole so that "=" is only assignment).
func assignTokens(src []byte) []atok {
	toks := make([]atok, 0, len(src)/6)
	str := string(src) // tokens share its memory
	line := 1
	n := len(src)
	for i := 0; i < n; {
		c := src[i]
		switch {
		case c == '\n':
			line++
			i++
		case c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v' || c == '\\':
			i++
		case c == '/' && i+1 < n && src[i+1] == '/':
			for i < n && src[i] != '\n' {
				i++
			}
		case c == '/' && i+1 < n && src[i+1] == '*':
			i += 2
			for i < n && !(src[i] == '*' && i+1 < n && src[i+1] == '/') {
				if src[i] == '\n' {
					line++
				}
				i++
			}
			i += 2
		case c == '"' || c == '\'':
			q := c
			i++
			for i < n && src[i] != q {
				if src[i] == '\\' {
					i++
				} else if src[i] == '\n' {
					line++
				}
				i++
			}
			i++
			toks = append(toks, atok{text: "0", line: line})
		case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9':
			j := i + 1
			for j < n && (src[j] == '_' || src[j] >= 'a' && src[j] <= 'z' || src[j] >= 'A' && src[j] <= 'Z' || src[j] >= '0' && src[j] <= '9') {
				j++
			}
			toks = append(toks, atok{text: str[i:j], line: line})
			i = j
		default:
			if i+1 < n {
				switch str[i : i+2] {
				case "->", "==", "!=", "<=", ">=", "+=", "-=", "*=", "/=", "|=", "&=", "^=", "%=", "<<", ">>", "&&", "||", "++", "--":
					toks = append(toks, atok{text: str[i : i+2], line: line})
					i += 2
					continue
				}
			}
			toks = append(toks, atok{text: str[i : i+1], line: line})
			i++
		}
	}
	return toks
}
