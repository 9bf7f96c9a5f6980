package typing

import (
	"regexp"
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/rules/lockctx/ctype"
)

// globalTag returns the struct tag of name as a global object of fn's
// file ("static struct preempt_ops kvm_preempt_ops;" for
// "kvm_preempt_ops.sched_in = f"), when fn does not declare name itself
// with any type (the file's own declarations, else an extern one in a
// header it includes: externTag): "" otherwise, or when the file declares
// it with several.
func (ty *Typer) globalTag(fn *cscan.Func, name string) string {
	tag, ok := ty.fileScopeTags(fn.File)[name]
	if !ok {
		tag = ty.externTag(fn.File, name)
	}
	if tag == "" || fn.Start <= 0 || fn.End < fn.Start {
		return ""
	}
	lines := ty.FileLines(fn.File)
	if fn.End > lines.Len() {
		return ""
	}
	if localDeclRe(name).MatchString(lines.Span(fn.Start-1, fn.End)) {
		return "" // a parameter or local of that name hides the global
	}
	return tag
}

// externTag returns the struct tag of name as the headers file includes
// with quotes declare it ("extern struct x86_pmu x86_pmu __read_mostly;"
// in arch/x86/events/perf_event.h for amd/core.c's "x86_pmu.handle_irq =
// amd_pmu_v2_handle_irq"), following such headers as walkVisible does;
// "" when none does, or one declares it with several tags.
func (ty *Typer) externTag(file, name string) string {
	tag := ""
	ty.walkIncludes(file, false, func(h string) bool {
		t, ok := ty.fileScopeTags(h)[name]
		tag = t
		return h != file && ok
	})
	return tag
}

// localDeclRe matches a declaration of name ("int *name;", "struct foo
// name = ...", a parameter "struct bar *name)"): a type word, stars, the
// name, and what may follow a declarator.
func localDeclRe(name string) *regexp.Regexp {
	return regexp.MustCompile(`(?:^|[;{(,])\s*(?:(?:const|volatile|static|unsigned|signed|struct|union|enum)\s+)*[A-Za-z_]\w*[\s*]+` +
		regexp.QuoteMeta(name) + `\s*(?:=[^=]|;|\[|,|\))`)
}

// fileScopeTags returns the struct tags of the objects file declares at
// its top level ("static struct preempt_ops kvm_preempt_ops;"): the text
// outside its functions, struct bodies, initializers and parameter lists,
// so that members and prototype parameters do not count; a name declared
// with several tags maps to "".
func (ty *Typer) fileScopeTags(file string) map[string]string {
	k := declKey{file: file, from: -1, to: -1}
	if tags, ok := ty.declTags[k]; ok {
		return tags
	}
	var tags map[string]string
	if f := ty.ix.File(file); f != nil {
		lines := ty.FileLines(file)
		var b strings.Builder
		at := 0
		for _, fn := range f.Funcs {
			if from := fn.Start - 1; from > at && from <= lines.Len() {
				b.WriteString(cscan.TopLevel(StripComments(lines.Span(at, from))))
				b.WriteByte('\n')
			}
			at = max(at, fn.End)
		}
		if at < lines.Len() {
			b.WriteString(cscan.TopLevel(StripComments(lines.Span(at, lines.Len()))))
		}
		var several map[string]bool
		tags, several = ctype.GlobalDeclTags(b.String())
		for n := range several {
			tags[n] = ""
		}
	}
	ty.declTags[k] = tags
	return tags
}
