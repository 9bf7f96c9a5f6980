package lockctx

import (
	"regexp"
	"slices"
	"strings"

	"github.com/autosel-bot/autosel-bot/index"
	"github.com/autosel-bot/autosel-bot/rules/lockctx/registrations"
	"github.com/autosel-bot/autosel-bot/rules/lockctx/typing"
)

// A member may be assigned an element of a table of functions:
//
//	static const azx_get_pos_callback_t callbacks[] = {
//		[POS_FIX_LPIB] = azx_get_pos_lpib,
//		[POS_FIX_VIACOMBO] = azx_via_get_position,
//	};
//	chip->get_position[0] = chip->get_position[1] = callbacks[fix];
//
// The index records assignments of a function's name only, so every
// element of the table is read as assigned to the member at that store
// (TableMemberAssigns): a call through the member may reach any of them,
// and each of them is reached through calls of the member.

// tableStoreRe matches a store of a table's element into a member (the
// first member of a chained store, an optional cast before the element):
// the member's base expression, the member and the table.
var tableStoreRe = regexp.MustCompile(`(` + objExpr + `)\s*(?:->|\.)\s*([A-Za-z_]\w*)\s*(?:\[[^\]]*\])?\s*=\s*(?:[^;={}\s][^;={}]*?=\s*)?(?:\([^()]*\)\s*)?([A-Za-z_]\w*)\s*\[[^\]]*\]\s*;`)

// TableMemberAssigns returns the assignments file makes of the elements
// of a table of functions to a member, one per element, each at its
// store: a table of the file, or of the function making the store.
func (r *Resolver) TableMemberAssigns(file string) []index.Assign {
	if r.ix == nil || file == "" {
		return nil
	}
	return r.perFile("tablestores", file, func(src []byte) any {
		return r.scanTableStores(file, string(src))
	}).([]index.Assign)
}

// scanTableStores reads TableMemberAssigns from src, file's text.
func (r *Resolver) scanTableStores(file, src string) []index.Assign {
	var out []index.Assign
	if !strings.Contains(src, "];") {
		return out
	}
	src = typing.StripComments(src)
	f := r.ix.File(file)
	line, at := 1, 0
	for _, m := range tableStoreRe.FindAllStringSubmatchIndex(src, -1) {
		line += strings.Count(src[at:m[0]], "\n")
		at = m[0]
		fn := f.FuncAt(line)
		if fn == nil {
			continue
		}
		base := strings.Join(strings.Fields(src[m[2]:m[3]]), "")
		member, table := src[m[4]:m[5]], src[m[6]:m[7]]
		for _, e := range registrations.TableElems(r.ix, fn, table) {
			out = append(out, index.Assign{Member: member, Func: e, Base: base, File: file, Line: line})
		}
	}
	return out
}

// maxTableStoreFiles bounds the files AssignsTo reads for the table
// elements stored into a member: a member assigned in many files is an
// interface's, set from initializers.
const maxTableStoreFiles = 4

// maxTableStoreDirFiles bounds the files of a caller's directory that
// AssignsTo reads.
const maxTableStoreDirFiles = 64

// AssignsTo returns the assignments of functions to member in the view
// (index.AssignsTo) with the table elements stored into it
// (TableMemberAssigns) in the C files of directory dir, when not "" (a
// caller's: a member set only from a table is set near its calls), and
// in the files making the index's assignments, when there are few such
// files. Inside summaries (the tree's, computed once) only the index's
// are read: a table store is a file's text, read for the patch's calls.
func (r *Resolver) AssignsTo(member, dir string) []index.Assign {
	as := r.ix.AssignsTo(member)
	if r.nested > 0 {
		return as
	}
	var files []string
	for _, a := range as {
		if !slices.Contains(files, a.File) {
			if len(files) == maxTableStoreFiles {
				files = nil
				break
			}
			files = append(files, a.File)
		}
	}
	if dir != "" {
		if ps := r.dirPaths(dir); len(ps) <= maxTableStoreDirFiles {
			for _, p := range ps {
				if strings.HasSuffix(p, ".c") && !slices.Contains(files, p) {
					files = append(files, p)
				}
			}
		}
	}
	var more []index.Assign
	for _, f := range files {
		for _, a := range r.TableMemberAssigns(f) {
			if a.Member == member {
				more = append(more, a)
			}
		}
	}
	if len(more) == 0 {
		return as
	}
	return append(slices.Clip(as), more...)
}
