package typing

import (
	"bytes"
	"regexp"
	"strings"

	"github.com/autosel-bot/autosel-bot/rules/lockctx/ctype"
)

// maxInitLines bounds how far above an assignment InitTag looks for the
// declaration a nested initializer belongs to.
const maxInitLines = 400

var (
	// designatorRe is the designator before a nested initializer's brace
	// (".states[1] =", ".ops ="), at the end of the text before it.
	designatorRe = regexp.MustCompile(`\.\s*([A-Za-z_]\w*)\s*(?:\[[^\]\[]*\]\s*)*=\s*$`)
	// indexDesignatorRe is an array element's designator ("[2] =") at
	// the end of the text before its brace.
	indexDesignatorRe = regexp.MustCompile(`(?:^|[{,]\s*)\[[^\]\[]*\]\s*=\s*$`)
	// declRe is a declaration's start before its initializer's brace
	// ("static struct cpuidle_driver kirkwood_idle_driver =", with an
	// array's brackets), at the end of the text before it.
	declRe = regexp.MustCompile(`\bstruct\s+([A-Za-z_]\w*)\s+(?:const\s+)?\**\s*[A-Za-z_]\w*(?:\s+__\w+)*\s*(?:\[[^\]\[]*\]\s*)*(?:__\w+\s*)*=\s*$`)
	// typedefDeclRe is a declaration typed by a plain type name, a
	// struct's typedef ("static kdbtab_t ftdump_cmd ="), at the start of
	// a statement.
	typedefDeclRe = regexp.MustCompile(`(?:^|[;{}]|\n)\s*(?:(?:static|const|extern)\s+)*([A-Za-z_]\w*)\s+(?:const\s+)?[A-Za-z_]\w*(?:\s+__\w+)*\s*(?:\[[^\]\[]*\]\s*)*(?:__\w+\s*)*=\s*$`)
	// compoundRe is a compound literal's type before its brace
	// ("&(const struct iommu_domain_ops) {").
	compoundRe = regexp.MustCompile(`\(\s*(?:const\s+)?struct\s+([A-Za-z_]\w*)\s*\)\s*$`)
)

// InitTag returns the struct tag of the object a nested designated
// initializer assigns fn to at line (1-based) of file: for
// ".states[1] = { .enter = fn, }" inside "struct cpuidle_driver drv = {",
// the type of cpuidle_driver's member states (cpuidle_state). It walks
// the open braces above the assignment out to the declaration, then the
// designators back in through the struct definitions visible from file;
// "" when any step is unknown.
func (ty *Typer) InitTag(file string, line int, fn string) string {
	if ty.ix == nil || line <= 0 {
		return ""
	}
	lines := ty.FileLines(file)
	if line > lines.Len() {
		return ""
	}
	from := max(0, line-maxInitLines)
	cur := lines.Span(line-1, line)
	i := strings.Index(cur, fn)
	if i < 0 {
		return ""
	}
	text := lines.Span(from, line-1) + "\n" + cur[:i]
	if from == line-1 {
		text = cur[:i]
	}
	text = StripComments(text)
	// designators are the members of the open braces, innermost first.
	var designators []string
	depth := 0
	for j := len(text) - 1; j >= 0; j-- {
		switch text[j] {
		case '}':
			depth++
		case '{':
			if depth > 0 {
				depth--
				continue
			}
			before := strings.TrimRight(text[:j], " \t\n")
			if m := designatorRe.FindStringSubmatch(before); m != nil {
				designators = append(designators, m[1])
				continue
			}
			if m := declRe.FindStringSubmatch(before); m != nil {
				return ty.designatedTag(m[1], designators, file)
			}
			if m := compoundRe.FindStringSubmatch(before); m != nil {
				return ty.designatedTag(m[1], designators, file)
			}
			if m := typedefDeclRe.FindStringSubmatch(before); m != nil {
				// The scanner types only declarations naming the
				// struct: a typedef's needs its definition.
				if tag := ty.typedefTag(m[1], file); tag != "" {
					return ty.designatedTag(tag, designators, file)
				}
				return ""
			}
			if strings.HasSuffix(before, "{") || strings.HasSuffix(before, ",") || indexDesignatorRe.MatchString(before) {
				// An element of an array initializer ("{ {", ", {",
				// "[2] = {"): the same type as its array, which the next
				// brace out names.
				continue
			}
			return ""
		case ';':
			if depth == 0 {
				return ""
			}
		}
	}
	return ""
}

// designatedTag follows designators (innermost first) from struct tag
// outer into the struct definitions visible from file; "" when a member
// is not struct-typed or a definition is not found. With no designator
// the object is the declared one: outer.
func (ty *Typer) designatedTag(outer string, designators []string, file string) string {
	tag := outer
	for k := len(designators) - 1; k >= 0; k-- {
		ms, _ := ty.visibleStruct(tag, file)
		ty.note(MemberKey(tag, designators[k]))
		next, ok := ms[designators[k]]
		if !ok || next == "" {
			return ""
		}
		tag = next
	}
	return tag
}

// typedefTag returns the struct tag the typedef name names, as defined
// in file or what it includes ("kdbtab_t" -> "_kdbtab"); "" when no
// visible file defines it.
func (ty *Typer) typedefTag(name, file string) string {
	key := name + "\x00" + file
	if tag, ok := ty.typedefs[key]; ok {
		if tag != "" {
			ty.note(StructKey(tag))
		}
		return tag
	}
	tag := ""
	ty.walkVisible(file, func(f string) bool {
		src, err := ty.ix.ReadFile(f)
		if err != nil || !bytes.Contains(src, []byte(name)) {
			return false
		}
		tag = ctype.StructTypedefs(string(src))[name]
		return tag != ""
	})
	ty.typedefs[key] = tag
	if tag != "" {
		ty.note(StructKey(tag))
	}
	return tag
}

// StripComments blanks C comments (keeping newlines), so that braces and
// declarations in them do not count.
func StripComments(s string) string {
	if !strings.Contains(s, "/") {
		return s
	}
	b := []byte(s)
	for i := 0; i+1 < len(b); i++ {
		switch {
		case b[i] == '/' && b[i+1] == '*':
			j := i
			for ; j+1 < len(b) && !(b[j] == '*' && b[j+1] == '/'); j++ {
				if b[j] != '\n' {
					b[j] = ' '
				}
			}
			end := min(j+2, len(b))
			for k := j; k < end; k++ {
				b[k] = ' '
			}
			i = end - 1
		case b[i] == '/' && b[i+1] == '/':
			for ; i < len(b) && b[i] != '\n'; i++ {
				b[i] = ' '
			}
		}
	}
	return string(b)
}
