package lockctx

import (
	"path"
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/index"
	"github.com/autosel-bot/autosel-bot/rules/lockctx/typing"
)

// Calls through a driver's private ops struct. A member chain such as
// hw->mac.ops.acquire_swfw_sync() is typed through the struct
// definitions the caller's file sees, its own headers first (the
// driver's ixgbe_type.h before the dozens of <linux/...> headers a
// driver's main file includes). When the struct is defined outside
// include/, only the driver's files implement its members, however the
// table reaches the object: a static const table per hardware variant
// with "&func" initializers, copied into the object at probe time
// (hw->mac.ops = *ii->mac_ops, a memcpy of the table), or plain
// assignments in a setup function. The call reaches every function
// assigned to that member of that struct type in the struct's directory.

// chainTag types the object of a call through a member chain from the
// caller's declarations and the struct definitions its file sees (see
// typing.Typer.MemberCallTag), when BaseTag and ExprTag did not.
func (r *Resolver) chainTag(c cscan.Call, caller *cscan.Func) string {
	tag, _ := r.typ.MemberCallTag(c, caller)
	return tag
}

// privateScope returns the directory struct tag is private to, as
// caller's file sees its definition: "" when the definition is under an
// include/ directory (a public interface), at the top of the tree, or not
// found.
func (r *Resolver) privateScope(tag string, caller *cscan.Func) string {
	_, def := r.typ.StructDef(tag, caller.File)
	if def == "" || typing.PublicDef(def) {
		return ""
	}
	dir := path.Dir(def)
	if dir == "." {
		return ""
	}
	return dir + "/"
}

// privateAssigns returns the functions assigned to member of the struct
// tag private to directory scope: the index's assignments of that type
// in scope, the "&func" initializers of the driver family's tables, and
// the plain assignments through an object of that type
// (phy->ops.read_reg = f in a setup function).
func (r *Resolver) privateAssigns(tag, member, scope string, caller *cscan.Func) []index.Assign {
	var out []index.Assign
	seen := map[string]bool{}
	add := func(as []index.Assign) {
		for _, a := range as {
			if a.Struct == tag && strings.HasPrefix(a.File, scope) && !seen[a.File+"\x00"+a.Func] {
				seen[a.File+"\x00"+a.Func] = true
				out = append(out, a)
			}
		}
	}
	add(r.structAssigns(tag, member))
	add(r.addrAssigns(tag, member, caller))
	add(r.typ.PlainAssignsOf(tag, r.ix.AssignsTo(member), caller))
	return out
}
