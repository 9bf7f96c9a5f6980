package lockctx

import (
	"regexp"
	"slices"
	"strings"

	"github.com/autosel-bot/autosel-bot/index"
	"github.com/autosel-bot/autosel-bot/report"
)

// Contexts a struct's kernel-doc gives the functions put in its members.
//
// An ops struct documents what each member may do where it is defined
// ("@tx: Handler that 802.11 module calls for each transmitted frame.
// ... Must be atomic.", "@set_cs: ... May be called from interrupt
// context."): a function installed in a member whose description says
// it must not sleep, or where it is called from, runs in that context,
// as a callback row's would. The description's first sentence that a
// member phrase (doc_context.member) or a callable phrase matches is read
// through the atomic and unless phrases. Only a designated initializer of
// a typed object (.tx = foo_tx in a struct ieee80211_ops) is read: its
// struct is known without typing the assignment.

// memberDocs is a file's struct kernel-doc: per struct tag, per member,
// the sentence that states a context.
type memberDocs map[string]map[string]docSection

// memberDocContext returns the context the kernel-doc of the struct
// assigned to by a states for a's member; false when none.
func (r *Resolver) memberDocContext(a index.Assign) (Held, bool) {
	if a.Struct == "" || a.Member == "" || r.typ == nil || len(r.m.doc.member) == 0 {
		return Held{}, false
	}
	_, def := r.typ.StructDef(a.Struct, a.File)
	if def == "" {
		return Held{}, false
	}
	v := r.fileMemo("lockctx.memberdoc:"+def, def, func() any {
		src, err := r.ix.ReadFile(def)
		if err != nil || !strings.Contains(string(src), "/**") {
			return memberDocs(nil)
		}
		return scanMemberDocs(string(src), r.m.doc)
	})
	docs, _ := v.(memberDocs)
	sec, ok := docs[a.Struct][a.Member]
	if !ok || slices.Contains(r.m.doc.stale, a.Struct+"."+a.Member) {
		return Held{}, false
	}
	kind := r.m.doc.classify(sec.text)
	if kind == "" {
		return Held{}, false
	}
	text := sec.text
	if r := []rune(text); len(r) > 80 {
		text = string(r[:80]) + "..."
	}
	return Held{Kind: kind, Must: true,
		At: report.Step{Func: a.Func, File: a.File, Line: a.Line,
			What: "assigned to " + a.Struct + "." + a.Member},
		Why: "the kernel-doc of struct " + a.Struct + " says of @" + a.Member + ": \"" + text + "\" (" + def + ")"}, true
}

// memberDocRe matches a member's description line ("@tx: ...").
var memberDocRe = regexp.MustCompile(`^@([\w.]+)\s*:\s*(.*)$`)

// structNameRe reads "struct name - ..." in a kernel-doc comment.
var structNameRe = regexp.MustCompile(`^struct\s+(\w+)\s*(?:-|:)`)

// maxDocLines bounds a struct's kernel-doc comment (struct
// ieee80211_ops documents its members in some 600 lines).
const maxDocLines = 2000

// scanMemberDocs reads the struct kernel-doc comments of src: for each
// member whose description has a sentence that says where it runs, that
// sentence.
func scanMemberDocs(src string, d docRules) memberDocs {
	out := memberDocs{}
	lines := strings.Split(src, "\n")
	for i := 0; i < len(lines); i++ {
		if !strings.HasPrefix(strings.TrimSpace(lines[i]), "/**") {
			continue
		}
		tag := ""
		descs := map[string]*docText{}
		var cur *docText
		for j := i; j < len(lines) && j < i+maxDocLines; j++ {
			t := strings.TrimSpace(lines[j])
			body := strings.TrimSpace(strings.TrimPrefix(strings.TrimPrefix(strings.TrimSuffix(t, "*/"), "/**"), "*"))
			if m := structNameRe.FindStringSubmatch(body); m != nil && tag == "" {
				tag = m[1]
			}
			switch m := memberDocRe.FindStringSubmatch(body); {
			case m != nil:
				cur = &docText{}
				descs[m[1]] = cur
				cur.add(m[2], j+1)
			case body == "" || docSectionStart(body):
				cur = nil
			case cur != nil:
				cur.add(body, j+1)
			}
			if strings.Contains(t, "*/") {
				i = j
				break
			}
		}
		if tag == "" || len(descs) == 0 {
			continue
		}
		for member, desc := range descs {
			// In a member's description the callback is the subject
			// ("The callback must be atomic."): no others.
			sec, ok := desc.matching(d.member, nil, d.states)
			if !ok {
				continue
			}
			if out[tag] == nil {
				out[tag] = map[string]docSection{}
			}
			out[tag][member] = sec
		}
	}
	return out
}
