package lockctx

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/index"
	"github.com/autosel-bot/autosel-bot/report"
)

// memberReg is a registration whose callback argument is read from a
// struct member ("request_irq(irq, desc->handler, ...)" over a table of
// handlers): it registers the functions assigned to that member in the
// registering file.
type memberReg struct {
	implicitReg
	caller *cscan.Func
	// base is the expression the member is read from ("desc").
	base string
}

var memberArgRe = regexp.MustCompile(`^(?:\(\s*[\w\s\*]+\)\s*)?(.*[\w\])])\s*(?:->|\.)\s*([A-Za-z_]\w*)$`)

// memberArg splits a callback argument that reads a struct member
// ("desc->handler", "(irq_handler_t)tbl[i].fn") into its base and member.
func memberArg(arg string) (base, member string, ok bool) {
	m := memberArgRe.FindStringSubmatch(strings.TrimSpace(arg))
	if m == nil {
		return "", "", false
	}
	return strings.TrimSpace(m[1]), m[2], true
}

// memberRegOf returns the registration, and the member it reads, of a
// registration call by caller whose callback argument arg reads a struct
// member; ok is false when arg has not that form.
func memberRegOf(caller *cscan.Func, row *Callback, step report.Step, arg string) (mr memberReg, member string, ok bool) {
	base, member, ok := memberArg(arg)
	if !ok {
		return memberReg{}, "", false
	}
	return memberReg{implicitReg: implicitReg{row: row, step: step, file: caller.File}, caller: caller, base: base}, member, true
}

// memberRegistrations returns the registrations reaching fn through its
// assignment a: a registration in a's file whose argument reads a's
// member from an object of a's struct type. An assignment whose struct
// type the scanner could not tell (an initializer of an array of an
// inline struct) counts when it is a designated initializer and no
// assignment to that member in the file is to another struct type.
func (r *Resolver) memberRegistrations(a index.Assign) []implicitReg {
	r.registrations("")
	var out []implicitReg
	for _, mr := range r.memberRegs[a.Member] {
		if mr.caller.File != a.File {
			continue
		}
		tag := r.typ.BaseTag(mr.base, mr.caller)
		switch {
		case a.Struct != "":
			if a.Struct != tag {
				continue
			}
		case a.Base != "" || r.otherStruct(a, tag):
			continue
		}
		reg := mr.implicitReg
		reg.step.What += fmt.Sprintf(" with %s = %s (%s:%d)", a.Member, a.Func, a.File, a.Line)
		out = append(out, reg)
	}
	return out
}

// otherStruct reports whether a's file assigns functions to a's member in
// a struct type other than tag.
func (r *Resolver) otherStruct(a index.Assign, tag string) bool {
	r.noteMember(a.Member)
	for _, b := range r.ix.AssignsTo(a.Member) {
		if b.File == a.File && b.Struct != "" && b.Struct != tag {
			return true
		}
	}
	return false
}
