package lockctx

import (
	"bytes"
	"iter"
	"slices"
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/rules/lockctx/typing"
)

// Lock helpers and accessors written as macros.
//
// A driver may wrap its locking in a function-like macro
// (cassini's "#define cas_lock_all_save(cp, flags) do { ...
// spin_lock_irqsave(&xxxcp->lock, flags); cas_lock_tx(xxxcp); } while
// (0)"), or its accesses (vhost's "#define vhost_get_user(vq, x, ptr,
// type) ({ ... __get_user(x, ptr) ... })"). The index holds functions
// only, so a call to such a macro resolves to nothing. A call that
// resolves to no function is looked up among the function-like macros
// its own file defines, then those of the private headers it includes
// with quotes (the callers' searches also those they include in turn,
// macroDefDeep), then those of the kernel-wide headers it
// includes with angle brackets, itself or through its private headers
// ("xfs.h" -> "xfs_linux.h" -> <linux/slab.h>), and of the headers these
// include (two levels: <linux/etherdevice.h> brings
// <linux/netdevice.h>'s alloc_netdev()); the macro's body is parsed as
// the body of a function of that name and summarised like one, and the
// call takes the contexts the macro enters and leaves, what it may
// reach, and what it reaches for some values of its parameters (a gfp_t
// mask passed through: __get_dma_pages(GFP_KERNEL, 0)). The kernel-wide lock
// primitives, and the names the target's tables decide by argument, are
// table rows and never looked up here. A patch that changes a macro of
// the file changes text between functions, which makes every function of
// the file a source of the store's climb, so a stored summary never holds
// a stale macro of its own file. A macro of a header has no index entry:
// a stored summary of a caller in another file keeps the header's macro
// as it was when the store was written (one of a private header is read
// again for the functions the patch changes; a patch to a kernel-wide
// header's macro is seen only by the functions it changes).

// macroSummary returns the summary of the function-like macro name
// defined in file (its effects and reach), nil when there is none or it
// has neither.
func (r *Resolver) macroSummary(name, file string) *Summary {
	if r.ix == nil || file == "" {
		return nil
	}
	def, ok := r.macroDef(name, file)
	if !ok {
		return nil
	}
	s := r.SummaryOf(def.fn)
	reach := s.Reach
	if reach != nil && reach.Cond == nil {
		if cond := r.macroFlagCond(def, reach); cond != nil {
			p := *reach
			p.Cond = cond
			reach = &p
		}
	}
	if reach == nil && len(s.Acquires)+len(s.CondAcquires)+len(s.Drops)+len(s.ArgReaches) == 0 {
		return nil
	}
	return &Summary{Reach: reach, Acquires: s.Acquires, CondAcquires: s.CondAcquires, Drops: s.Drops, ArgReaches: s.ArgReaches}
}

// macroFlagCond returns what the macro's chain p needs of a parameter
// the macro tests alone ("if (atomic) udelay(); else usleep_range();"):
// a macro's parameters have no type to tell a flag (a function's are
// weighed by guardFlag), so the caller's argument decides at the call
// site, and the chain counts unless that argument is known to take the
// other branch. nil when the chain's call is under no such test.
func (r *Resolver) macroFlagCond(def macroDef, p *Reach) *ParamCond {
	if len(p.Steps) == 0 {
		return nil
	}
	for _, c := range def.fn.Calls {
		if c.Line != p.Steps[0].Line {
			continue
		}
		for _, g := range c.Guards {
			cond, branch := g.Cond, true
			switch g.Kind {
			case "if":
			case "else":
				cond, _ = r.elseCondOf(def.fn, g.Line)
				branch = false
			default:
				continue
			}
			name, nonzero, ok := flagTest(cond)
			if !ok {
				continue
			}
			if j := slices.Index(def.params, name); j >= 0 {
				return &ParamCond{Param: j, True: nonzero == branch}
			}
		}
	}
	return nil
}

// macroDef is a function-like macro parsed as a function, with its
// parameter names.
type macroDef struct {
	fn     *cscan.Func
	params []string
}

// macroDef returns the function-like macro name of file, of a header
// file includes with quotes (the driver's or subsystem's private header,
// net/mptcp/protocol.h's mptcp_data_lock()), or of a kernel-wide header
// it includes, or one of those includes (publicHeaders:
// <linux/netdevice.h>'s alloc_netdev(), which calls alloc_netdev_mqs();
// <net/bluetooth/hci_core.h>'s hci_dev_lock(), a mutex_lock()), parsed as
// a function. The kernel-wide headers' lock primitives are table rows
// (rules/tables/locks.yaml), classified before a call is looked up here;
// a name the target's tables decide by its arguments (might_sleep_if(),
// an allocator's mask) is not looked up in those headers (TableTarget).
func (r *Resolver) macroDef(name, file string) (macroDef, bool) {
	if d, ok := r.fileMacros(file)[name]; ok {
		return d, true
	}
	for _, h := range r.privateHeaders(file, 1) {
		if d, ok := r.fileMacros(h)[name]; ok {
			return d, true
		}
	}
	if tt, ok := r.m.target.(TableTarget); ok && tt.Decides(name) {
		return macroDef{}, false
	}
	pos := r.publicHeaderPos(file)
	var homes []string
	for _, h := range r.macroHomes[name] {
		if _, ok := pos[h]; ok {
			homes = append(homes, h)
		}
	}
	slices.SortFunc(homes, func(a, b string) int { return pos[a] - pos[b] })
	for _, h := range homes {
		if d, ok := r.fileMacros(h)[name]; ok {
			return d, true
		}
	}
	return macroDef{}, false
}

// publicHeaderPos returns the place of each of file's kernel-wide headers
// in publicHeaders' order, and files the macro names of every header it
// has not seen under macroHomes, so that macroDef asks only the headers
// that define a name rather than every header of the file.
func (r *Resolver) publicHeaderPos(file string) map[string]int {
	if pos, ok := r.pubHeaderPos[file]; ok {
		return pos
	}
	hs := r.publicHeaders(file)
	pos := make(map[string]int, len(hs))
	for i, h := range hs {
		pos[h] = i
		if r.homesFiled[h] {
			continue
		}
		r.homesFiled[h] = true
		for name := range r.macroNames(h) {
			r.macroHomes[name] = append(r.macroHomes[name], h)
		}
	}
	r.pubHeaderPos[file] = pos
	return pos
}

// macroNames returns the names of the function-like macros file defines,
// without parsing them (perFile): a kernel-wide header is parsed only
// when it defines a name looked up.
func (r *Resolver) macroNames(file string) map[string]bool {
	return r.perFile("macronames", file, func(src []byte) any {
		return definedMacros(src)
	}).(map[string]bool)
}

// definedMacros returns the names of the function-like macros src defines
// ("#define name(").
func definedMacros(src []byte) map[string]bool {
	out := map[string]bool{}
	for name := range funcMacroNames(src) {
		out[string(name)] = true
	}
	return out
}

// funcMacroNames yields the name of each function-like macro src defines,
// in order, without splitting src into lines.
func funcMacroNames(src []byte) iter.Seq[[]byte] {
	return func(yield func([]byte) bool) {
		for rest := src; ; {
			i := bytes.Index(rest, []byte("define"))
			if i < 0 {
				return
			}
			line := rest[:i]
			if k := bytes.LastIndexByte(line, '\n'); k >= 0 {
				line = line[k+1:]
			}
			rest = rest[i+len("define"):]
			if t := bytes.TrimSpace(line); len(t) == 0 || t[0] != '#' || len(bytes.TrimSpace(t[1:])) != 0 {
				continue
			}
			d := bytes.TrimLeft(rest, " \t")
			j := 0
			for j < len(d) && cscan.IsIdentChar(d[j]) {
				j++
			}
			if j > 0 && j < len(d) && d[j] == '(' && !yield(d[:j]) {
				return
			}
		}
	}
}

// fileMacros returns the function-like macros of file (cached per
// resolver; a file the view does not overlay is parsed once per tree).
func (r *Resolver) fileMacros(file string) map[string]macroDef {
	defs, ok := r.macros[file]
	if ok {
		return defs
	}
	parse := func() any {
		if src, err := r.ix.ReadFile(file); err == nil {
			return fileMacros(file, src)
		}
		return map[string]macroDef{}
	}
	if r.ix.Overlaid(file) {
		defs = parse().(map[string]macroDef)
	} else {
		defs = r.ix.Underlying().Memo("lockctx.macros."+file, parse).(map[string]macroDef)
	}
	r.macros[file] = defs
	return defs
}

// privateHeaders returns the headers file includes with quotes, and, with
// depth above 1, the private (not kernel-wide) ones these include in
// turn, nearest first (privateHeaderChain without file itself): rtw88's
// main.c reaches util.h's macros through "main.h".
func (r *Resolver) privateHeaders(file string, depth int) []string {
	if r.typ == nil {
		return nil
	}
	if depth <= 1 {
		return r.typ.Includes(file, false)
	}
	return r.privateHeaderChain(file)[1:]
}

// macroDefDeep is macroDef with the private headers file reaches through
// other private headers too: the callers' and arguments' searches
// (macrocallers.go) find a driver's macro of a nested header ("main.h"
// -> "util.h"). A summary does not read them: a statement-expression
// macro there whose locking depends on its arguments (i915's
// _wait_for_atomic()) would be summarised as leaving its context held.
func (r *Resolver) macroDefDeep(name, file string) (macroDef, bool) {
	if d, ok := r.macroDef(name, file); ok {
		return d, true
	}
	for _, h := range r.privateHeaders(file, maxDefineDepth) {
		if d, ok := r.fileMacros(h)[name]; ok {
			return d, true
		}
	}
	return macroDef{}, false
}

// publicHeaders returns the kernel-wide headers (under an include/
// directory) that file, or a private header it includes
// (privateHeaderChain), includes with angle brackets, and those these
// include in turn (<linux/etherdevice.h> brings <linux/netdevice.h>): two
// levels past the private headers, nearest first, each once (read once
// per file through publicHeaderPos, which keeps the answer).
func (r *Resolver) publicHeaders(file string) []string {
	if r.typ == nil {
		return nil
	}
	seen := map[string]bool{}
	var out []string
	add := func(from string) []string {
		var added []string
		for _, h := range r.typ.Includes(from, true) {
			if typing.PublicDef(h) && !seen[h] && h != file {
				seen[h] = true
				added = append(added, h)
			}
		}
		out = append(out, added...)
		return added
	}
	var first []string
	for _, l := range r.privateHeaderChain(file) {
		first = append(first, add(l)...)
	}
	for _, h := range first {
		add(h)
	}
	return out
}

// privateHeaderChain returns file and the headers it includes with quotes
// that are not kernel-wide, and those these include, maxDefineDepth
// levels deep, nearest first: xfs_trans.c's "xfs.h" brings "xfs_linux.h",
// which is where the kernel-wide headers are included.
func (r *Resolver) privateHeaderChain(file string) []string {
	out := []string{file}
	seen := map[string]bool{file: true}
	for depth, frontier := 0, out; depth < maxDefineDepth && len(frontier) > 0; depth++ {
		var next []string
		for _, f := range frontier {
			for _, h := range r.typ.Includes(f, false) {
				if !typing.PublicDef(h) && !seen[h] {
					seen[h] = true
					next = append(next, h)
				}
			}
		}
		out = append(out, next...)
		frontier = next
	}
	return out
}

// fileMacros parses the function-like macros of src whose body makes a
// call.
func fileMacros(file string, src []byte) map[string]macroDef {
	out := map[string]macroDef{}
	has := false
	for range funcMacroNames(src) {
		has = true
		break
	}
	if !has {
		return out
	}
	lines := strings.Split(string(src), "\n")
	for i := 0; i < len(lines); i++ {
		l := strings.TrimSpace(lines[i])
		if !strings.HasPrefix(l, "#") {
			continue
		}
		d := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(l[1:]), "define"))
		if d == strings.TrimSpace(l[1:]) {
			continue
		}
		j := 0
		for j < len(d) && cscan.IsIdentChar(d[j]) {
			j++
		}
		if j == 0 || j >= len(d) || d[j] != '(' {
			continue
		}
		name := d[:j]
		// The directive's lines, continuations joined; its parameter
		// list may span several ("#define scsi_execute(sdev, cmd, ...,
		// sense,\\" then "sshdr, ...)").
		phys := []string{strings.TrimSuffix(strings.TrimRight(d[j+1:], " \t"), "\\")}
		start := i
		for strings.HasSuffix(strings.TrimRight(lines[i], " \t"), "\\") && i+1 < len(lines) {
			i++
			phys = append(phys, strings.TrimSuffix(strings.TrimRight(lines[i], " \t"), "\\"))
		}
		params, body, at := macroParams(phys)
		if body == nil {
			continue
		}
		start += at
		if !strings.Contains(strings.Join(body, " "), "(") {
			continue
		}
		unwrapDoWhile(body)
		text := "void " + name + "(" + params + ")\n{\n" + strings.Join(body, "\n") + "\n;}\n"
		nums := []int{start + 1, start + 1}
		for n := range body {
			nums = append(nums, start+1+n)
		}
		nums = append(nums, i+1, i+1)
		fn := cscan.ParseBody(text, nums)
		if fn == nil || fn.Body == nil || len(fn.Calls) == 0 {
			continue
		}
		fn.Name, fn.File = name, file
		var ps []string
		for _, p := range strings.Split(params, ",") {
			ps = append(ps, strings.TrimSpace(p))
		}
		out[name] = macroDef{fn: fn, params: ps}
	}
	return out
}

// macroParams splits a macro's lines after "name(" into its parameter
// list and its body lines, and says on which line the body starts; body
// is nil when the list does not close.
func macroParams(phys []string) (params string, body []string, at int) {
	var b strings.Builder
	for n, l := range phys {
		if k := strings.IndexByte(l, ')'); k >= 0 {
			b.WriteString(l[:k])
			return b.String(), append([]string{l[k+1:]}, phys[n+1:]...), n
		}
		b.WriteString(l)
		b.WriteByte(' ')
	}
	return "", nil, 0
}

// unwrapDoWhile turns a "do { ... } while (0)" body into its block, in
// place, so that its calls are not inside a loop.
func unwrapDoWhile(body []string) {
	first, last := -1, -1
	for i, l := range body {
		if strings.TrimSpace(l) != "" {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	if first < 0 {
		return
	}
	f := strings.TrimSpace(body[first])
	l := strings.ReplaceAll(strings.TrimSpace(body[last]), " ", "")
	if !strings.HasPrefix(f, "do") || len(f) > 2 && cscan.IsIdentChar(f[2]) || !strings.HasSuffix(l, "while(0)") {
		return
	}
	body[first] = strings.Replace(body[first], "do", "", 1)
	body[last] = body[last][:strings.LastIndex(body[last], "while")]
}
