package typing

import (
	"path"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/rules/lockctx/ctype"
)

// maxIncludeDepth bounds how deep local ("...") includes are followed
// when looking for a struct definition.
const maxIncludeDepth = 3

// FileStructs returns the struct definitions of a file of the view,
// shared between resolvers for files the patch does not change: stored
// by Prepare (store.go), else parsed from the file's text.
func (ty *Typer) FileStructs(file string) ctype.Structs {
	if t, ok := ty.storedTyping(file); ok {
		return t.structs
	}
	compute := func() any {
		src, err := ty.ix.ReadFile(file)
		if err != nil {
			return ctype.Structs(nil)
		}
		return ctype.ParseStructs(string(src))
	}
	if ty.ix.Overlaid(file) {
		if s, ok := ty.structCache[file]; ok {
			return s
		}
		s := compute().(ctype.Structs)
		ty.structCache[file] = s
		return s
	}
	return ty.ix.Underlying().Memo("lockctx.structs."+file, compute).(ctype.Structs)
}

// Includes returns the files a file includes: local ("...") includes
// resolved against its directory, else against the -I directories of its
// kbuild flags (kbuildinc.go), and, when angle is set, <...> includes
// resolved against include/ and <asm/...> against the architecture's
// headers or asm-generic, whichever the view has (ctype.ResolveIncludesIn).
// The directives are stored by Prepare for the files the patch does not
// overlay (store.go).
func (ty *Typer) Includes(file string, angle bool) []string {
	key := file
	if angle {
		key = "<>" + file
	}
	if ty.incCache == nil {
		ty.incCache = map[string][]string{}
	}
	if inc, ok := ty.incCache[key]; ok {
		return inc
	}
	var out []string
	defer func() { ty.incCache[key] = out }()
	var delims []byte
	var names []string
	if t, ok := ty.storedTyping(file); ok {
		delims, names = t.delims, t.names
	} else {
		src, err := ty.ix.ReadFile(file)
		if err != nil {
			return nil
		}
		delims, names = ctype.IncludeDirectives(string(src))
	}
	for i := range names {
		found := ctype.ResolveIncludesIn(file, delims[i:i+1], names[i:i+1], angle, ty.exists)
		if delims[i] == '"' && len(found) == 1 && !ty.exists(found[0]) {
			found[0] = ty.searchKbuildDirs(file, names[i], found[0])
		}
		out = append(out, found...)
	}
	return out
}

// searchKbuildDirs returns where the compiler finds the quoted include
// name of file that is not beside it: the first -I directory of file's
// kbuild flags holding it, else beside (the path as written).
func (ty *Typer) searchKbuildDirs(file, name, beside string) string {
	for _, d := range ty.KbuildIncludeDirs(file) {
		if p := path.Join(d, name); ty.exists(p) {
			return p
		}
	}
	return beside
}

// exists reports whether the view has file path.
func (ty *Typer) exists(p string) bool {
	if _, ok := ty.ix.FileNum(p); ok {
		return true
	}
	return ty.ix.Overlaid(p)
}

// PublicDef reports whether a struct defined in file def is a public
// interface (under an include/ directory, the top one or an
// architecture's) rather than private to the directory of def.
func PublicDef(def string) bool {
	return strings.HasPrefix(def, "include/") || strings.Contains(def, "/include/")
}

// StructDef finds the definition of struct tag visible from file: in the
// file itself, its local includes (to a few levels), then the <...>
// headers it and those local headers include directly, then the headers
// beside each of the file's own <...> headers that it includes when they
// are in a subsystem's own directory (an umbrella header's,
// subsystemDir). It returns the members and the file
// defining the struct ("" when not found).
func (ty *Typer) StructDef(tag, file string) (map[string]string, string) {
	ty.note(StructKey(tag))
	key := tag + "|" + file
	if ty.defCache == nil {
		ty.defCache = map[string]structDefAt{}
	}
	if d, ok := ty.defCache[key]; ok {
		return d.members, d.file
	}
	// What the tree's files give is shared by every view whose patch
	// changes none of the files the search read.
	shared := ty.ix.Underlying().Memo("lockctx.structDef:"+key, func() any { return new(atomic.Pointer[treeStructDef]) }).(*atomic.Pointer[treeStructDef])
	if t := shared.Load(); t != nil && !slices.ContainsFunc(t.read, ty.ix.Overlaid) {
		ty.defCache[key] = t.def
		return t.def.members, t.def.file
	}
	ms, def, read := ty.findStructDef(tag, file)
	ty.defCache[key] = structDefAt{ms, def}
	if !slices.ContainsFunc(read, ty.ix.Overlaid) {
		shared.CompareAndSwap(nil, &treeStructDef{def: structDefAt{ms, def}, read: read})
	}
	return ms, def
}

// treeStructDef is a struct definition found from a file of the tree and
// the files read to find it.
type treeStructDef struct {
	def  structDefAt
	read []string
}

// structDefAt is a struct definition found from a file: its members and
// the file defining it.
type structDefAt struct {
	members map[string]string
	file    string
}

// findStructDef is StructDef without the cache; read lists the files
// whose definitions or includes it read.
func (ty *Typer) findStructDef(tag, file string) (_ map[string]string, _ string, read []string) {
	seen := map[string]bool{}
	// locals are the files local() read, in the order it read them.
	var locals []string
	defer func() {
		read = make([]string, 0, len(seen))
		for f := range seen {
			read = append(read, f)
		}
	}()
	var local func(f string, depth int) (map[string]string, string)
	local = func(f string, depth int) (map[string]string, string) {
		if seen[f] {
			return nil, ""
		}
		seen[f] = true
		locals = append(locals, f)
		if ms, ok := ty.FileStructs(f)[tag]; ok {
			return ms, f
		}
		if depth >= maxIncludeDepth {
			return nil, ""
		}
		for _, inc := range ty.Includes(f, false) {
			if ms, def := local(inc, depth+1); def != "" {
				return ms, def
			}
		}
		return nil, ""
	}
	if ms, def := local(file, 0); def != "" {
		return ms, def, nil
	}
	// The <...> headers the file includes directly, then those its own
	// local headers include directly (a driver's amdgpu.h includes
	// <drm/gpu_scheduler.h> for the structs the driver's files use).
	for _, from := range locals {
		if from != file && (strings.HasPrefix(from, "include/") || strings.HasPrefix(from, "arch/")) {
			continue
		}
		for _, inc := range ty.Includes(from, true) {
			if !strings.HasPrefix(inc, "include/") && !strings.HasPrefix(inc, "arch/") || seen[inc] {
				continue
			}
			seen[inc] = true
			if ms, ok := ty.FileStructs(inc)[tag]; ok {
				return ms, inc, nil
			}
		}
	}
	// A subsystem's umbrella header (<net/sctp/sctp.h>) holds few
	// structs itself: they are in the headers beside it that it includes
	// (<net/sctp/structs.h>).
	for _, inc := range ty.Includes(file, true) {
		dir := path.Dir(inc)
		if !subsystemDir(dir) {
			continue
		}
		for _, sib := range ty.Includes(inc, true) {
			if path.Dir(sib) != dir || seen[sib] {
				continue
			}
			seen[sib] = true
			if ms, ok := ty.FileStructs(sib)[tag]; ok {
				return ms, sib, nil
			}
		}
	}
	return nil, "", nil
}

// subsystemDir reports whether dir is a subsystem's own header directory
// (include/net/sctp, include/linux/mlx5), two levels under include/ at
// least: an umbrella header there includes its subsystem's definitions.
// The shared directories above them (include/linux, include/net,
// arch/x86/include/asm) hold the whole kernel's headers, which include
// each other widely: a search beside them types calls by headers a file
// only includes indirectly, which widens the kernel's large recursive
// call component, so that a patch to a common header (pipe_fs_i.h)
// summarises about a thousand functions again instead of a dozen.
func subsystemDir(dir string) bool {
	return strings.HasPrefix(dir, "include/") && strings.Count(dir, "/") >= 2
}

// chainTag resolves the struct tag of a member expression whose root is
// a variable the caller declares with a struct type ("hw->phy.ops", hw
// being a struct e1000_hw *) by following each member's declared type
// through the struct definitions visible from the file defining the
// struct that holds it, else from the caller's file (findFrom). scope
// is the directory of the last definition when it is private to a
// directory (a driver's own header, not under include/): struct tags
// are not unique across drivers (e1000e, igb and igbvf each define
// struct e1000_hw), so an assignment outside it is another struct.
func (ty *Typer) chainTag(expr string, caller *cscan.Func) (tag, scope string) {
	if ty.ix == nil || caller == nil {
		return "", ""
	}
	parts := ctype.SplitMembers(expr)
	if len(parts) < 2 || !identRe.MatchString(parts[0]) {
		return "", ""
	}
	tag = ty.BaseTag(parts[0], caller)
	if tag == "" {
		return "", ""
	}
	from := ""
	for _, m := range parts[1:] {
		// Looked for from the file defining the struct holding the
		// member first (see ExprTag), then from the caller's.
		ms, def := findFrom(tag, from, caller.File, ty.StructDef)
		ty.note(MemberKey(tag, m))
		if def == "" || ms[m] == "" {
			return "", ""
		}
		tag, from = ms[m], def
	}
	// The last member's type is looked up the same way: from the file
	// defining the struct holding it, then from the caller's.
	return tag, ty.tagScope(tag, from, caller.File)
}

// tagScope returns the directory struct tag is private to, its definition
// looked for from file from, then from file; "" for a public struct.
func (ty *Typer) tagScope(tag, from, file string) string {
	if _, def := findFrom(tag, from, file, ty.StructDef); def != "" && !PublicDef(def) {
		return path.Dir(def) + "/"
	}
	return ""
}

// MemberCallTag returns the struct tag of the object a call through a
// member goes through: declared by the caller ("struct sctp_sched_ops
// *n" for "n->init_sid(...)"), else resolved through the declared types
// of a member chain ("hw->phy.ops.acquire(hw)"), with the directory the
// tag is private to (see chainTag); "" when unknown.
func (ty *Typer) MemberCallTag(c cscan.Call, caller *cscan.Func) (tag, scope string) {
	base, _, ok := PointerMember(c.Name)
	if !ok {
		return "", ""
	}
	if tag := ty.BaseTag(base, caller); tag != "" {
		return tag, ""
	}
	if identRe.MatchString(base) {
		// A table or object of the caller's file, or one a header
		// declares: icmp_pointers[type].handler(skb).
		if tag := ty.globalTag(caller, base); tag != "" {
			return tag, ty.tagScope(tag, "", caller.File)
		}
		return "", ""
	}
	return ty.chainTag(base, caller)
}

// PointerMember splits a call through a function pointer
// ("dev->netdev_ops->ndo_get_stats64") into its base expression and the
// member called; ok is false for direct calls.
func PointerMember(name string) (base, member string, ok bool) {
	// A table's element is typed as the table: il->handlers[cmd](...)
	// calls member handlers of il, icmp_pointers[t].handler(...) member
	// handler of icmp_pointers' type (cscan writes subscripts "[]").
	name = strings.ReplaceAll(name, "[]", "")
	i := strings.LastIndex(name, "->")
	j := strings.LastIndex(name, ".")
	switch {
	case i < 0 && j < 0:
		return "", "", false
	case i > j:
		return name[:i], name[i+2:], true
	default:
		return name[:j], name[j+1:], true
	}
}

// MemberDecl returns the declaration of member m of struct tag as seen
// from file (ctype.MemberDecl: "gfp_t" for `gfp_t sk_allocation;`), ""
// when the struct or the member is not found.
func (ty *Typer) MemberDecl(tag, m, file string) string {
	_, def := ty.StructDef(tag, file)
	if def == "" {
		if _, def = ty.VisibleStruct(tag, file); def == "" {
			return ""
		}
	}
	ty.note(MemberKey(tag, m))
	key := def + "|" + tag + "." + m
	if d, ok := ty.memberDecls[key]; ok {
		return d
	}
	d := ""
	if body := ctype.StructBody(ty.FileLines(def).Text(), tag); body != "" {
		d = ctype.MemberDecl(body, m)
	}
	ty.memberDecls[key] = d
	return d
}
