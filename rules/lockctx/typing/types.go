package typing

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
// first, bounded), where StructDef looks in local includes first. It
// returns the members' struct tags and the file holding the definition.
func (ty *Typer) visibleStruct(tag, file string) (map[string]string, string) {
	ty.note(StructKey(tag))
	key := tag + "\x00" + file
	if d, ok := ty.structs[key]; ok {
		return d.members, d.file
	}
	var found structDefAt
	ty.walkVisible(file, func(f string) bool {
		if ms, ok := ty.FileStructs(f)[tag]; ok {
			found = structDefAt{ms, f}
			return true
		}
		return false
	})
	ty.structs[key] = found
	return found.members, found.file
}

// walkVisible calls visit on file, then on what it includes, local and
// <...> alike, breadth first and bounded (maxIncludeDepth levels,
// maxIncludeFiles files), until visit returns true.
func (ty *Typer) walkVisible(file string, visit func(f string) bool) {
	ty.walkIncludes(file, true, visit)
}

// walkIncludes is walkVisible following only local ("...") includes
// when angle is false.
func (ty *Typer) walkIncludes(file string, angle bool, visit func(f string) bool) {
	seen := map[string]bool{file: true}
	level := []string{file}
	visited := 0
	for depth := 0; depth <= maxIncludeDepth && len(level) > 0; depth++ {
		var next []string
		for _, f := range level {
			if visited++; visited > maxIncludeFiles {
				return
			}
			if visit(f) {
				return
			}
			for _, inc := range ty.Includes(f, angle) {
				if !seen[inc] {
					seen[inc] = true
					next = append(next, inc)
				}
			}
		}
		level = next
	}
}

// VisibleStruct finds the definition of struct tag visible from file, in
// the file or what it includes, local and <...> alike, breadth first and
// bounded (StructDef follows only local includes to depth): the members'
// struct tags and the file holding the definition ("" when not found).
func (ty *Typer) VisibleStruct(tag, file string) (map[string]string, string) {
	return ty.visibleStruct(tag, file)
}

// ExprTag returns the struct tag of the object expression expr denotes in
// fn ("card->isac" -> isac_hw when card is a "struct tiger_hw *" and
// tiger_hw declares "struct isac_hw isac;"), following member chains
// through the struct definitions visible from fn's file; "" when unknown.
func (ty *Typer) ExprTag(expr string, fn *cscan.Func) string {
	if ty.ix == nil || fn == nil {
		return ""
	}
	parts := ctype.MemberPath(expr)
	if len(parts) == 0 {
		return ""
	}
	tag := ty.declaredIn(fn, parts[0])
	if tag == "" {
		// A global object ("kvm_preempt_ops.sched_in = f").
		tag = ty.globalTag(fn, parts[0])
	}
	// A member's struct type is declared where the struct holding it is
	// defined, so its definition is looked for from that file first
	// ("vcpu->arch.mmu": kvm_vcpu_arch from linux/kvm_host.h, which
	// includes asm/kvm_host.h), then from fn's file.
	from := ""
	for _, m := range parts[1:] {
		if tag == "" {
			return ""
		}
		members, def := findFrom(tag, from, fn.File, ty.visibleStruct)
		ty.note(MemberKey(tag, m))
		tag, from = members[m], def
	}
	return tag
}

// findFrom looks struct tag up with find from file from (the file that
// defines the struct holding it; none when "") and then from file.
func findFrom(tag, from, file string, find func(tag, file string) (map[string]string, string)) (map[string]string, string) {
	if from != "" {
		if ms, def := find(tag, from); def != "" {
			return ms, def
		}
	}
	return find(tag, file)
}

// declaredIn returns the struct tag name is declared with in fn (a
// parameter or local), "" when not, or declared with several.
func (ty *Typer) declaredIn(fn *cscan.Func, name string) string {
	from, to := fn.Start-1, fn.End
	var tags map[string]string
	if fn.Start > 0 && from < to {
		// The declarations of a function's lines are read once per view
		// (nil when they are out of its file).
		key := "lockctx.declaredIn:" + fn.File + ":" + strconv.Itoa(from) + ":" + strconv.Itoa(to)
		tags = ty.ix.Memo(key, func() any {
			lines := ty.FileLines(fn.File)
			if to > lines.Len() {
				return map[string]string(nil)
			}
			tags, several := ctype.DeclTags(lines.Span(from, to))
			for name := range several {
				tags[name] = ""
			}
			return tags
		}).(map[string]string)
	}
	if tags == nil {
		if full := ty.treeDef(fn); full != nil && full != fn {
			return ty.declaredIn(full, name)
		}
		return ""
	}
	if tag, ok := tags[name]; ok {
		return tag
	}
	return ty.typedefDeclTag(fn, name)
}

// typedefDeclTag returns the struct tag of name when fn declares it a
// pointer to a struct's typedef visible from its file ("m_pool_s *mp"
// with "typedef struct m_pool {...} m_pool_s;"), "" otherwise.
func (ty *Typer) typedefDeclTag(fn *cscan.Func, name string) string {
	from, to := fn.Start-1, fn.End
	if fn.Start <= 0 || from >= to {
		return ""
	}
	key := "lockctx.typedefDecls:" + fn.File + ":" + strconv.Itoa(from) + ":" + strconv.Itoa(to)
	types := ty.ix.Memo(key, func() any {
		lines := ty.FileLines(fn.File)
		if to > lines.Len() {
			return map[string]string(nil)
		}
		return ctype.TypedefDecls(lines.Span(from, to))
	}).(map[string]string)
	t := types[name]
	if t == "" {
		return ""
	}
	return ty.typedefTag(t, fn.File)
}

// treeDef returns the tree's definition of a patch's partial function.
func (ty *Typer) treeDef(fn *cscan.Func) *cscan.Func {
	for _, d := range ty.ix.Funcs(fn.Name) {
		if d.File == fn.File {
			return d
		}
	}
	return nil
}

// PlainAssignsOf returns the plain assignments ("isac->release =
// isac_release;") among as (the view's assignments to one member) whose
// base has struct type tag, and the assignments of nested designated
// initializers in the files the patch changes whose designators lead to
// tag (NestedAssignsOf types the others, for callers that found nothing
// else). For a struct private to a directory (defined outside include/
// directories, PublicDef) only the files of the call's directory and of
// the definition's can assign it; a struct of a public header may be
// assigned anywhere, so its assignments are typed only when the member is
// assigned plainly at most maxPublicPlainAssigns times
// ("vcpu->arch.mmu->get_pdptr = f": a handful of setup functions, not
// ".release"), once per view and struct. Each assignment is typed in the
// function holding it.
func (ty *Typer) PlainAssignsOf(tag string, as []index.Assign, caller *cscan.Func) []index.Assign {
	out := ty.scopedAssigns(tag, as, caller, "plain", func(a index.Assign) bool { return a.Base != "" })
	return append(out, ty.typedAssigns(tag, as, func(a index.Assign) bool { return a.Base == "" && ty.ix.Overlaid(a.File) })...)
}

// NestedAssignsOf returns the assignments among as made in nested
// designated initializers (".ops = { .finish_request = f }" in a struct
// elevator_type) whose designators lead to struct tag, in the scope
// PlainAssignsOf types plain ones in. Each is typed by reading the lines
// above it, so callers ask only when nothing else assigns the member.
func (ty *Typer) NestedAssignsOf(tag string, as []index.Assign, caller *cscan.Func) []index.Assign {
	return ty.scopedAssigns(tag, as, caller, "nested", func(a index.Assign) bool { return a.Base == "" })
}

// scopedAssigns types the untyped assignments of as that kind accepts in
// the scope of struct tag (see PlainAssignsOf); name tells the kinds
// apart in the memo of a public struct's.
func (ty *Typer) scopedAssigns(tag string, as []index.Assign, caller *cscan.Func, name string, kind func(index.Assign) bool) []index.Assign {
	_, defFile := ty.visibleStruct(tag, caller.File)
	if defFile == "" || len(as) == 0 {
		return nil
	}
	if !PublicDef(defFile) {
		dirs := map[string]bool{path.Dir(caller.File): true, path.Dir(defFile): true}
		return ty.typedAssigns(tag, as, func(a index.Assign) bool { return kind(a) && dirs[path.Dir(a.File)] })
	}
	// The answer for a public struct does not depend on the caller: kept
	// with the dependency keys its look-ups noted, told again on reuse.
	key := name + "\x00" + tag + "\x00" + as[0].Member + "\x00" + defFile
	if m, ok := ty.publicAssigns[key]; ok {
		for _, k := range m.keys {
			ty.note(k)
		}
		return m.out
	}
	note := ty.note
	var keys []string
	ty.note = func(k string) {
		keys = append(keys, k)
		note(k)
	}
	var out []index.Assign
	if n := countUntyped(as, kind); n > 0 && n <= maxPublicPlainAssigns {
		out = ty.typedAssigns(tag, as, kind)
	}
	ty.note = note
	ty.publicAssigns[key] = typedAssignsMemo{out: out, keys: keys}
	return out
}

// typedAssignsMemo is what PlainAssignsOf found for a public struct.
type typedAssignsMemo struct {
	out  []index.Assign
	keys []string
}

// countUntyped counts the assignments of as whose struct the index could
// not tell and that kind accepts.
func countUntyped(as []index.Assign, kind func(index.Assign) bool) int {
	n := 0
	for _, a := range as {
		if a.Struct == "" && kind(a) {
			n++
		}
	}
	return n
}

// typedAssigns returns the assignments of as whose struct the index could
// not tell, that keep accepts and that are typed as tag, marked with it:
// plain ones by the type of their base in the function holding them,
// those of nested designated initializers through their designators
// (InitTag).
func (ty *Typer) typedAssigns(tag string, as []index.Assign, keep func(index.Assign) bool) []index.Assign {
	var out []index.Assign
	for _, a := range as {
		if a.Struct != "" || !keep(a) {
			continue
		}
		if a.Base == "" {
			if ty.InitTag(a.File, a.Line, a.Func) == tag {
				a.Struct = tag
				out = append(out, a)
			}
			continue
		}
		if ty.BaseAssignTag(a) == tag {
			a.Struct = tag
			out = append(out, a)
		}
	}
	return out
}

// BaseAssignTag returns the struct tag of a plain assignment's base
// ("mp->getp = ___dma_getp;": the type mp is declared with in the
// function holding the assignment), "" when it cannot be told.
func (ty *Typer) BaseAssignTag(a index.Assign) string {
	if a.Base == "" || ty.ix == nil {
		return ""
	}
	f := ty.ix.File(a.File)
	if f == nil {
		return ""
	}
	for _, fn := range f.Funcs {
		if fn.BodyStart <= a.Line && a.Line <= fn.End {
			return ty.ExprTag(a.Base, fn)
		}
	}
	return ""
}

// maxPublicPlainAssigns bounds the plain assignments to a member of a
// public struct that PlainAssignsOf types one by one.
const maxPublicPlainAssigns = 16

// BaseTag finds the struct tag of a call's base expression when it is a
// variable or parameter of the caller declared as "struct tag *name" (or
// with the struct's typedef, typedefDeclTag), or a member whose last name
// is declared so in the caller's file. The
// declarations of a tree function the patch does not change are stored by
// Prepare (store.go).
func (ty *Typer) BaseTag(base string, caller *cscan.Func) string {
	if caller == nil || ty.ix == nil {
		return ""
	}
	name := base
	if i := strings.LastIndexAny(name, ">."); i >= 0 {
		name = name[i+1:]
	}
	name = strings.Trim(strings.ReplaceAll(name, "[]", ""), "()*& ")
	if name == "" {
		return ""
	}
	k := declKey{caller.File, caller.Start - 1, caller.End}
	tags, ok := ty.declTags[k]
	if !ok {
		if tags, ok = ty.storedDecls(caller); !ok {
			tags = declTagsIn(ty.FileLines(caller.File), k.from, k.to)
		}
		ty.declTags[k] = tags
	}
	if tag, ok := tags[name]; ok {
		return tag
	}
	return ty.typedefDeclTag(caller, name)
}

// declTagsIn returns the struct tags of the names lines[from:to] (a
// function's lines) declare: the first declaration of each name; nil when
// the range is out of lines.
func declTagsIn(lines Lines, from, to int) map[string]string {
	if from < 0 || to > lines.Len() || from >= to {
		return nil
	}
	tags, _ := ctype.DeclTags(lines.Span(from, to))
	return tags
}

// declKey names the lines of a function whose declarations BaseTag read.
type declKey struct {
	file     string
	from, to int
}
