package lockctx

import (
	"path"
	"strconv"
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/index"
	"github.com/autosel-bot/autosel-bot/rules/lockctx/ctype"
)

// maxIncludeFiles bounds the files (the caller's file and what it
// includes, transitively) searched for a struct definition.
const maxIncludeFiles = 48

// visibleStruct finds the definition of struct tag visible from file: in
// the file, then in what it includes, local and <...> alike (breadth
// first, bounded), where structDef looks in local includes first. It
// returns the members' struct tags and the file holding the definition.
func (r *Resolver) visibleStruct(tag, file string) (map[string]string, string) {
	r.noteMember(structKey(tag))
	key := tag + "\x00" + file
	if d, ok := r.structs[key]; ok {
		return d.members, d.file
	}
	var found structDefAt
	seen := map[string]bool{file: true}
	level := []string{file}
	visited := 0
	for depth := 0; depth <= maxIncludeDepth && len(level) > 0 && found.members == nil; depth++ {
		var next []string
		for _, f := range level {
			if visited++; visited > maxIncludeFiles {
				break
			}
			if ms, ok := r.fileStructs(f)[tag]; ok {
				found = structDefAt{ms, f}
				break
			}
			for _, inc := range r.includes(f, true) {
				if !seen[inc] {
					seen[inc] = true
					next = append(next, inc)
				}
			}
		}
		level = next
	}
	r.structs[key] = found
	return found.members, found.file
}

// exprTag returns the struct tag of the object expression expr denotes in
// fn ("card->isac" -> isac_hw when card is a "struct tiger_hw *" and
// tiger_hw declares "struct isac_hw isac;"), following member chains
// through the struct definitions visible from fn's file; "" when unknown.
func (r *Resolver) exprTag(expr string, fn *cscan.Func) string {
	if r.ix == nil || fn == nil {
		return ""
	}
	parts := ctype.MemberPath(expr)
	if len(parts) == 0 {
		return ""
	}
	tag := r.declaredIn(fn, parts[0])
	for _, m := range parts[1:] {
		if tag == "" {
			return ""
		}
		members, _ := r.visibleStruct(tag, fn.File)
		r.noteMember(structMemberKey(tag, m))
		tag = members[m]
	}
	return tag
}

// declaredIn returns the struct tag name is declared with in fn (a
// parameter or local), "" when not, or declared with several.
func (r *Resolver) declaredIn(fn *cscan.Func, name string) string {
	from, to := fn.Start-1, fn.End
	var tags map[string]string
	if fn.Start > 0 && from < to {
		// The declarations of a function's lines are read once per view
		// (nil when they are out of its file).
		key := "lockctx.declaredIn:" + fn.File + ":" + strconv.Itoa(from) + ":" + strconv.Itoa(to)
		tags = r.ix.Memo(key, func() any {
			lines := r.fileLines(fn.File)
			if to > lines.len() {
				return map[string]string(nil)
			}
			tags, several := ctype.DeclTags(lines.span(from, to))
			for name := range several {
				tags[name] = ""
			}
			return tags
		}).(map[string]string)
	}
	if tags == nil {
		if full := r.treeDef(fn); full != nil && full != fn {
			return r.declaredIn(full, name)
		}
		return ""
	}
	return tags[name]
}

// treeDef returns the tree's definition of a patch's partial function.
func (r *Resolver) treeDef(fn *cscan.Func) *cscan.Func {
	for _, d := range r.ix.Funcs(fn.Name) {
		if d.File == fn.File {
			return d
		}
	}
	return nil
}

// plainAssignsOf returns the plain assignments ("isac->release =
// isac_release;") among as whose base has struct type tag, for a struct
// private to a driver: defined outside include/, so that only the files of
// the call's directory and of the definition's can assign it. Each
// assignment is typed in the function holding it.
func (r *Resolver) plainAssignsOf(tag string, as []index.Assign, caller *cscan.Func) []index.Assign {
	_, defFile := r.visibleStruct(tag, caller.File)
	if defFile == "" || strings.HasPrefix(defFile, "include/") || strings.HasPrefix(defFile, "arch/") {
		return nil
	}
	dirs := map[string]bool{path.Dir(caller.File): true, path.Dir(defFile): true}
	var out []index.Assign
	for _, a := range as {
		if a.Struct != "" || a.Base == "" || !dirs[path.Dir(a.File)] {
			continue
		}
		f := r.ix.File(a.File)
		if f == nil {
			continue
		}
		for _, fn := range f.Funcs {
			if fn.BodyStart <= a.Line && a.Line <= fn.End {
				if r.exprTag(a.Base, fn) == tag {
					a.Struct = tag
					out = append(out, a)
				}
				break
			}
		}
	}
	return out
}
