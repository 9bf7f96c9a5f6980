package typing

import (
	"github.com/autosel-bot/autosel-bot/cscan"
	"regexp"

	"github.com/autosel-bot/autosel-bot/index"
	"github.com/autosel-bot/autosel-bot/rules/lockctx/ctype"
)

// Typer answers struct-type questions over one view of the tree (the
// post-patch or the pre-patch index): which struct a file sees under a
// tag, the struct type of a function's variables and member chains. It
// keeps what it found for the view; what holds for the tree's files is
// shared between views through the underlying index.
type Typer struct {
	ix *index.Index
	// note is told every struct definition (StructKey) and member type
	// (MemberKey) looked up, for the caller's dependency tracking.
	note func(key string)
	// structCache holds the struct definitions of files the view overlays
	// (FileStructs; the others are shared through the index).
	structCache map[string]ctype.Structs
	// incCache and defCache cache Includes and struct look-ups
	// (structs.go).
	incCache map[string][]string
	defCache map[string]structDefAt
	// lines caches source files by lines (Lines), declTags the struct
	// tags of the variables each function declares (BaseTag).
	lines    map[string]Lines
	declTags map[declKey]map[string]string
	// structs caches the struct definitions visibleStruct found from a
	// file (types.go).
	structs map[string]structDefAt
	// typedefs caches the struct tags typedefTag found (inittag.go).
	typedefs map[string]string
	// params caches parameter names, paramDecls their declarations
	// (params.go).
	params     map[*cscan.Func][]string
	paramDecls map[*cscan.Func][]string
	// locals holds Locals' answers.
	locals map[*cscan.Func]map[string]bool
	// publicAssigns caches PlainAssignsOf for public structs (types.go).
	publicAssigns map[string]typedAssignsMemo
	// memberDecls caches MemberDecl (structs.go).
	memberDecls map[string]string
}

// New returns a Typer over the view ix (nil in patch-only mode: every
// question is then answered "unknown"). note, when not nil, is called
// with the key of every struct definition and member type looked up.
func New(ix *index.Index, note func(key string)) *Typer {
	if note == nil {
		note = func(string) {}
	}
	return &Typer{ix: ix, note: note, structCache: map[string]ctype.Structs{},
		lines: map[string]Lines{}, declTags: map[declKey]map[string]string{}, structs: map[string]structDefAt{}, typedefs: map[string]string{},
		params: map[*cscan.Func][]string{}, paramDecls: map[*cscan.Func][]string{}, locals: map[*cscan.Func]map[string]bool{}, publicAssigns: map[string]typedAssignsMemo{},
		memberDecls: map[string]string{}}
}

// StructKey is the dependency key noting that a look-up read the
// definition of struct tag (where it is found, its members); a space
// cannot occur in a member name, so it is no member's key.
func StructKey(tag string) string { return "struct " + tag }

// MemberKey is the dependency key noting that a look-up read the type of
// member m of struct tag (with no "." : "*.m" is a member of any struct in
// a call's key).
func MemberKey(tag, m string) string { return "struct " + tag + ":" + m }

var identRe = regexp.MustCompile(`^[A-Za-z_]\w*$`)

// FileLines returns a file of the view by lines (cached; empty when it
// cannot be read).
func (ty *Typer) FileLines(file string) Lines {
	lines, ok := ty.lines[file]
	if !ok {
		if ty.ix != nil {
			if src, err := ty.ix.Text(file); err == nil {
				lines = NewLines(src)
			}
		}
		ty.lines[file] = lines
	}
	return lines
}
