package lockctx

import (
	"regexp"
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
)

var structTagRe = regexp.MustCompile(`\bstruct\s+(\w+)`)

// SignatureMatches reports whether call c made by caller through a struct
// member may call fn, judged by types when the scanner could not tell the
// struct type of fn's assignment to the member (a plain assignment such
// as `pgtable->iop.ops.map_pages = iommu_v1_map_pages;`, or an
// initializer nested in a compound literal): the call passes as many
// arguments as fn has parameters, at least one argument is a variable
// the caller declares with a struct type, and fn declares every such
// parameter with the same struct type.
func (r *Resolver) SignatureMatches(c cscan.Call, caller, fn *cscan.Func) bool {
	if r.ix == nil || caller == nil || fn == nil {
		return false
	}
	ds := r.typ.ParamDecls(fn)
	if len(ds) == 0 || len(ds) != len(c.Args) {
		return false
	}
	typed := 0
	for i, a := range c.Args {
		a = strings.TrimSpace(a)
		if !identRe.MatchString(a) {
			continue
		}
		tag := r.typ.BaseTag(a, caller)
		if tag == "" {
			continue
		}
		m := structTagRe.FindStringSubmatch(ds[i])
		if m == nil {
			if strings.Contains(ds[i], "void") {
				continue // a void pointer takes any object
			}
			return false
		}
		if m[1] != tag {
			return false
		}
		typed++
	}
	return typed > 0
}

var identRe = regexp.MustCompile(`^[A-Za-z_]\w*$`)
