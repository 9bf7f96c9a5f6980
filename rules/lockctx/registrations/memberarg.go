package registrations

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
	Reg
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
	return memberReg{Reg: Reg{Row: row, Step: step, File: caller.File}, caller: caller, base: base}, member, true
}

// Members returns the registrations reaching a function through its
// assignment a: a registration whose argument reads a's member from an
// object of a's struct type. An assignment whose struct type the scanner
// could not tell (an initializer of an array of an inline struct) counts
// when the registration is in its file, it is a designated initializer
// and no assignment to that member in the file is to another struct
// type. Across files both types must be known: a core that registers
// "f->frag_expire" as a timer (inet_fragment.c) registers every
// inet_frags.frag_expire of every protocol.
func (t *Table) Members(a index.Assign) []Reg {
	t.Of("")
	var out []Reg
	for _, mr := range t.set.membersOf(a.Member) {
		if mr.caller.File != a.File && a.Struct == "" {
			continue
		}
		tag := t.typ.BaseTag(mr.base, mr.caller)
		if mr.caller.File != a.File {
			if tag == "" {
				tag = t.typ.ExprTag(mr.base, mr.caller) // efx->type: a member chain
			}
			if tag == "" {
				continue
			}
		}
		switch {
		case a.Struct != "":
			if a.Struct != tag {
				continue
			}
		case a.Base != "" || t.otherStruct(a, tag):
			continue
		}
		reg := mr.Reg
		reg.Step.What += fmt.Sprintf(" with %s = %s (%s:%d)", a.Member, a.Func, a.File, a.Line)
		out = append(out, reg)
	}
	return out
}

// otherStruct reports whether a's file assigns functions to a's member in
// a struct type other than tag.
func (t *Table) otherStruct(a index.Assign, tag string) bool {
	t.note(a.Member)
	for _, b := range t.ix.AssignsTo(a.Member) {
		if b.File == a.File && b.Struct != "" && b.Struct != tag {
			return true
		}
	}
	return false
}
