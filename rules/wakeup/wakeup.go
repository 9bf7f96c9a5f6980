package wakeup

import (
	"context"
	"log/slog"
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/diffcheck"
	"github.com/autosel-bot/autosel-bot/index"
	"github.com/autosel-bot/autosel-bot/report"
	"github.com/autosel-bot/autosel-bot/rules"
	"github.com/autosel-bot/autosel-bot/rules/lockctx"
	"github.com/autosel-bot/autosel-bot/rules/lockctx/typing"
	"github.com/autosel-bot/autosel-bot/rules/lockmodel"
)

// Name is the rule family name in findings.
const Name = "wakeup"

// Categories of the wakeup family (Finding.Category).
const (
	// CategoryExclusive: exclusive waiting introduced or removed.
	CategoryExclusive = "wakeup-exclusive"
	// CategoryNarrowed: a wake-up now wakes fewer waiters.
	CategoryNarrowed = "wakeup-narrowed"
	// CategoryWidened: a wake-up now wakes more waiters.
	CategoryWidened = "wakeup-widened"
	// CategorySync: a wake-up switched between sync and non-sync.
	CategorySync = "wakeup-sync"
	// CategoryMode: a wake-up or wait changed between interruptible and
	// uninterruptible task states.
	CategoryMode = "wakeup-mode"
	// CategoryRemoved: a wake-up removed, made conditional, or skipped by
	// a new early return.
	CategoryRemoved = "wakeup-removed"
	// CategoryWaitEntry: wait-entry set-up changed, a non-auto-removing
	// entry queued exclusively, or prepare_to_wait without finish_wait.
	CategoryWaitEntry = "wait-entry"
	// CategorySplit: a wait queue split or renamed.
	CategorySplit = "waitqueue-split"
	// CategoryActive: a lockless waitqueue_active() without a barrier.
	CategoryActive = "waitqueue-active"
	// CategoryLostWakeup: exclusive waiters and a single wake-up on a path
	// that should wake them all.
	CategoryLostWakeup = "lost-wakeup"
	// CategoryBarrier: a memory-ordering operation of a sleeper/waker pair
	// removed or weakened, or a lock that ordered the two sides (the
	// queue's own lock of a _locked wake-up among them) taken away.
	CategoryBarrier = "wakeup-barrier"
	// CategoryWakeOrder: a wake-up issued before the state the woken task
	// checks is published, or the wakee reached through its entry after
	// the publishing store.
	CategoryWakeOrder = "wake-order"
	// CategoryWakeFunc: a custom wake function that unlinks the entry
	// before its last use of it or without release ordering, returns the
	// wrong kind of value, drops the event record its sleeper reads, or
	// declines events its sleeper waits for.
	CategoryWakeFunc = "wake-function"
	// CategoryStateOrder: a store a sleeper's condition reads moved after
	// the wake-up.
	CategoryStateOrder = "state-order"
	// CategoryWaiterOrder: a sleeper now arms its sleep (task state,
	// prepare_to_wait) after a check, unlock or publication that used to
	// follow it.
	CategoryWaiterOrder = "waiter-order"
	// CategoryRearm: a completion or flag a waiter reuses is re-armed
	// after the operation it waits for may have finished, or no longer
	// re-armed before the wait; a sleep loop that no longer arms the
	// task in each round.
	CategoryRearm = "wakeup-rearm"
	// CategoryTarget: a wake-up sent to another object's queue or another
	// bit than the one whose state the path changed.
	CategoryTarget = "wakeup-target"
	// CategoryWaiterCond: a waiter's condition dropped a term that a
	// waker of its queue makes true before waking it.
	CategoryWaiterCond = "waiter-condition"
)

const doc = `Compares the wait-queue usage of every function a patch touches, before and after, and (with a tree) every other user of the same queues, and decides whether a sleeper can now miss its wake-up or outlive its wait entry: wake-ups removed, narrowed, made conditional or skipped while sleepers remain and no other waker on the path covers them; barriers, acquire/release, barrier-implying atomics and locks removed or weakened on either side of a sleeper/waker pair, and wake-ups newly gated by a bare waitqueue_active(); stores or work moved after the wake-up, a flag handshake (store mine, then load yours) broken by loading first, and wake decisions taken on stale values; wake_q_add/wake_up_process before the state the woken task checks is published; custom wake functions that unlink too early or carelessly; sleepers that now arm their sleep after their last check, unlock or publication; completions re-armed after the operation they wait for starts or no longer re-armed, flags reset outside the lock their waker takes; on-stack entries left queued; POLLFREE teardown wake-ups narrowed and keyed wake-ups that lose an event a poller reports; exclusive waits, sync and task-state changes, queue splits. Every risk names the waiter, the waker and the interleaving (CPU 0 / CPU 1).`

// categories documents the sub-checks, in report order.
var categories = []rules.Category{
	{Name: CategoryExclusive, Doc: "exclusive waiting introduced or removed on a queue (one wake-up then wakes one such waiter)"},
	{Name: CategoryNarrowed, Doc: "a wake-up now wakes fewer waiters (wake_up_all -> wake_up, ...)"},
	{Name: CategoryWidened, Doc: "a wake-up now wakes more waiters"},
	{Name: CategorySync, Doc: "a wake-up switched between sync and non-sync"},
	{Name: CategoryMode, Doc: "a wake-up or wait changed between interruptible and uninterruptible task states"},
	{Name: CategoryRemoved, Doc: "a wake-up removed, made conditional, or skipped by a new early return"},
	{Name: CategoryWaitEntry, Doc: "wait-entry set-up changed, a non-auto-removing entry queued exclusively, prepare_to_wait without finish_wait, or wait_woken() on an entry whose wake function never sets WQ_FLAG_WOKEN (DEFINE_WAIT, DECLARE_WAITQUEUE)"},
	{Name: CategorySplit, Doc: "a wait queue split or renamed while other users stay on the old one"},
	{Name: CategoryActive, Doc: "a lockless waitqueue_active() check added without a barrier or the queue lock"},
	{Name: CategoryLostWakeup, Doc: "exclusive waiters on a queue that a release/hang-up/error path wakes with a single wake-up the woken waiter does not pass on"},
	{Name: CategoryBarrier, Doc: "a barrier, acquire/release or barrier-implying call removed or weakened on one side of a sleeper/waker pair (store-buffering), with the other side and any lock that orders them; a lock removed from around a wake-up decision; a _locked wake-up (wake_up_locked(), __wake_up_locked_key(), swake_up_locked()...) left without the queue lock its caller must hold"},
	{Name: CategoryWakeOrder, Doc: "a wake-up (wake_q_add, wake_up_process) issued before the state the woken task checks is published, or the task reached through the waiter's entry after that store"},
	{Name: CategoryStateOrder, Doc: "a store that a sleeper's condition reads moved after the wake-up that used to follow it (the woken task re-checks, sees the old value and sleeps again); or a flag handshake broken by loading the other side's flag before storing one's own"},
	{Name: CategoryWaiterOrder, Doc: "a sleeper now sets its sleeping state or queues itself after a condition check, a lock release or the publication of its task, which used to follow it (a wake-up in between finds it running and is lost)"},
	{Name: CategoryRearm, Doc: "a completion or flag a waiter reuses is re-armed after the operation it waits for may have finished (reinit_completion() or the reset of a flag, bit or counter moved past the start, a reset moved out of the lock the waker takes), or no longer re-armed before the wait (left signalled from an earlier round); a sleep loop that sets the task state or queues its entry once before the loop instead of in each round (later rounds spin)"},
	{Name: CategoryTarget, Doc: "a wake-up now sent to the queue of another object of the same type, or another bit of the word, than the one whose state the path changed (the waiters of that change are not woken)"},
	{Name: CategoryWaiterCond, Doc: "a wait's condition no longer tests what a waker of its queue makes true before waking it (a member it stores, kthread_should_stop() for kthread_stop()), so that wake-up finds the condition false and the waiter sleeps again"},
	{Name: CategoryWakeFunc, Doc: "a custom wake function that unlinks the wait entry before its last use of it, or without the release ordering finish_wait() relies on; that claims or stops where it declined; that no longer records the wake-up its sleeper checks; or whose filter now declines wake-ups without a key, or takes another object's wake-up on a queue with exclusive waiters"},
}

// New returns the wakeup rule family, with its primitive tables loaded
// from rules/tables/wakeup.yaml and opts.TableFiles.
func New(opts rules.Options) (*rules.Rule, error) {
	var t tables
	if err := rules.LoadTables("wakeup", opts.TableFiles, &t); err != nil {
		return nil, err
	}
	var locks lockmodel.Table
	if err := rules.LoadTables("locks", opts.TableFiles, &locks); err != nil {
		return nil, err
	}
	prims, err := compile(t, &locks)
	if err != nil {
		return nil, err
	}
	return &rules.Rule{
		Name:       Name,
		Doc:        doc,
		Categories: categories,
		Run:        func(pass *rules.Pass) error { return analyze(prims, pass) },
		Prepare: func(ctx context.Context, ix *index.Index, log *slog.Logger) error {
			return prepareSites(ctx, prims, ix, log)
		},
	}, nil
}

// checker is the state of one run over one patch.
type checker struct {
	p    *prims
	pass *rules.Pass
	// olds and news are the two versions of Change.Funcs (nil when the
	// function does not exist on that side).
	olds, news []*wfunc
	inPatch    map[string]bool
	fileVT     map[string]*varTypes
	patchVT    *varTypes
	maps       map[string]*fileLineMap
	// renames maps an old queue key to the keys its users moved to.
	renames map[string][]string
	// structRenames are renames seen in struct definitions, structWhere
	// where (the removed and added field lines).
	structRenames map[string][]string
	structWhere   map[string]*structLoc
	tree          *treeView
	// wrappers memoises wrapper wakers by name (wrapper.go).
	wrappers map[string]*wrapperWake
	// deep memoises deep wakers by definition (file:name, deepwake.go).
	deep map[string]*wsite
	// deepCall is the deep waker's call the findings being reported are
	// about, nil when they are about a wake-up.
	deepCall *wsite
	// handlers memoises the deferred-work handlers of a file
	// (deferred.go).
	handlers map[string][]deferHandler
	// typ types member chains for queue identity (canon.go), nil in
	// patch-only mode; canon memoises canonKey.
	typ   *typing.Typer
	canon map[string]string
	// wrapDepth is how deep calleeWake follows helpers.
	wrapDepth int
	// bodies memoises withBody's re-parsed views of tree functions;
	// mayStores mayStore's answers by file, callee and member;
	// openConds condOf's conditions of open-coded waiters.
	bodies    map[*wfunc]*wfunc
	mayStores map[string]bool
	openConds map[*wsite]string
	// lockWalks memoises the lock walk of each function version
	// (heldlocks.go).
	lockWalks map[*wfunc]*lockWalk
	// lockRes is the resolver those walks run over: no index, so each
	// function alone.
	lockRes *lockctx.Resolver
	// lockWrappers memoises lock wrappers by calling file and name
	// (heldlocks_wrappers.go);
	// entryHeld the locks every caller holds, by function
	// (heldlocks_callers.go).
	lockWrappers map[string]*lockWrapper
	entryHeld    map[string][]heldLock
	// entryBusy are the functions whose entry locks are being computed
	// (by file:name), entryGuesses how many times a caller among them
	// was taken on trust (heldlocks_callers.go).
	entryBusy    map[string]bool
	entryGuesses int
	// taskWaiters are the open-coded sleepers of each task key, taskFiles
	// the key|file pairs whose sleepers it holds (taskwake_gated.go).
	taskWaiters map[string][]*wsite
	taskFiles   map[string]bool
	// ctxAliases are, by member queue key, the keys of the objects whose
	// address the patched files store in the member (contextptr.go).
	ctxAliases map[string][]string
	// inertMemo is, by callee and depth, whether a function of the tree
	// starts nothing a waiter waits for (rearm_completion.go).
	inertMemo map[string]bool
}

// structLoc is where a struct definition renames a queue field.
type structLoc struct {
	file, name string
	line       int
	old, new   []string
}

// fileLineMap relates the old and new line numbers of one file's hunks.
type fileLineMap struct {
	oldBlock map[int]int
	newBlock map[int]int
	newToOld map[int]int
}

func analyze(p *prims, pass *rules.Pass) error {
	if pass == nil || pass.Change == nil {
		return nil
	}
	r := &checker{
		p:             p,
		pass:          pass,
		inPatch:       map[string]bool{},
		fileVT:        map[string]*varTypes{},
		patchVT:       newVarTypes(),
		maps:          map[string]*fileLineMap{},
		renames:       map[string][]string{},
		structRenames: map[string][]string{},
		structWhere:   map[string]*structLoc{},
		canon:         map[string]string{},
	}
	r.typ = newTyper(r)
	r.scanFiles()
	if pass.Index != nil {
		r.tree = newTreeView(r)
	}
	r.buildViews()
	r.unifyKeys()
	r.findRenames()
	introduced := r.checkExclusive()
	changedWakers := r.checkWakers()
	r.checkEntries()
	r.checkSplit()
	r.checkActive()
	r.checkLocklessAdded()
	r.checkOrdering()
	r.checkWakeOrder()
	r.checkWakeFuncs()
	r.checkStoreAfterWake()
	r.checkAddedStoreAfterWake()
	r.checkStoreWokeOtherQueue()
	r.checkStoreUnannounced()
	r.checkStoreAfterSignal()
	r.checkWaiterOrder()
	r.checkArmingLeftLoop()
	r.checkUnorderedArming()
	r.checkRearm()
	r.checkTaskWakes()
	r.checkTaskWakeGates()
	r.checkTaskWakeOrder()
	r.checkHandshakes()
	r.checkUncheckedSnapshotWakes()
	r.checkSleepGuards()
	r.checkLost(introduced, changedWakers)
	if pass.Index == nil && len(introduced) > 0 {
		pass.Note("wakeup: exclusive waits were introduced; other wakers of those queues outside the patch need a tree to be checked (--tree)")
	}
	return nil
}

// scanFiles records variable declarations visible in each file's hunks
// (and the whole file when a tree is available) and the line maps.
func (r *checker) scanFiles() {
	block := 0
	for _, f := range r.pass.Change.Files {
		path := f.Path()
		vt := r.fileVT[path]
		if vt == nil {
			vt = newVarTypes()
			r.fileVT[path] = vt
		}
		m := &fileLineMap{oldBlock: map[int]int{}, newBlock: map[int]int{}, newToOld: map[int]int{}}
		r.maps[path] = m
		var sb strings.Builder
		for _, h := range f.Hunks {
			sb.WriteString(h.Section)
			sb.WriteByte('\n')
			in := false
			for _, l := range h.Lines {
				sb.WriteString(l.Text)
				sb.WriteByte('\n')
				switch l.Op {
				case diffcheck.OpContext:
					m.newToOld[l.NewLine] = l.OldLine
					in = false
				default:
					if !in {
						block++
						in = true
					}
					if l.Op == diffcheck.OpDel {
						m.oldBlock[l.OldLine] = block
					} else {
						m.newBlock[l.NewLine] = block
					}
				}
			}
			r.structDiff(f, h)
		}
		vt.scan(sb.String())
		if t := r.pass.Change.Tree; t != nil && diffcheck.IsCSource(path) {
			if b, err := t.ReadFile(path); err == nil && len(b) <= diffcheck.MaxTreeFileSize {
				vt.scan(string(b))
			}
		}
	}
	for _, vt := range r.fileVT {
		r.patchVT.fallback(vt)
	}
}

// structDiff records wait-queue fields renamed or split inside a struct
// definition shown by a hunk ("-wait_queue_head_t wait;" /
// "+wait_queue_head_t rd_wait, wr_wait;").
func (r *checker) structDiff(f *diffcheck.FileChange, h *diffcheck.Hunk) {
	cur := ""
	if m := structOpenRe.FindStringSubmatch(h.Section); m != nil {
		cur = m[1]
	}
	var removed, added []string
	var lines []diffcheck.Line
	flush := func() {
		if cur != "" && len(removed) > 0 && len(added) > 0 {
			for _, o := range removed {
				k := cur + "." + o
				for _, n := range added {
					r.structRenames[k] = appendUnique(r.structRenames[k], cur+"."+n)
				}
				if r.structWhere[k] == nil {
					loc := &structLoc{file: f.Path(), name: "struct " + cur}
					for _, l := range lines {
						if l.Op == diffcheck.OpDel {
							loc.old = append(loc.old, "-"+l.Text)
						} else {
							loc.new = append(loc.new, "+"+l.Text)
							if loc.line == 0 {
								loc.line = l.NewLine
							}
						}
					}
					r.structWhere[k] = loc
				}
			}
		}
		removed, added, lines = nil, nil, nil
	}
	for _, l := range h.Lines {
		if m := structOpenRe.FindStringSubmatch(l.Text); m != nil {
			flush()
			cur = m[1]
			continue
		}
		if strings.HasPrefix(strings.TrimSpace(l.Text), "};") {
			flush()
			cur = ""
			continue
		}
		m := queueFieldRe.FindStringSubmatch(l.Text)
		if m == nil {
			if l.Op == diffcheck.OpContext {
				flush()
			}
			continue
		}
		var names []string
		for _, n := range strings.Split(m[1], ",") {
			n = strings.TrimSpace(n)
			if identRe.MatchString(n) {
				names = append(names, n)
			}
		}
		switch l.Op {
		case diffcheck.OpDel:
			removed = append(removed, names...)
			lines = append(lines, l)
		case diffcheck.OpAdd:
			added = append(added, names...)
			lines = append(lines, l)
		default:
			flush()
		}
	}
	flush()
	// A field kept on both sides is not renamed.
	for k, v := range r.structRenames {
		var keep []string
		for _, n := range v {
			if n != k {
				keep = append(keep, n)
			}
		}
		if len(keep) < len(v) {
			delete(r.structRenames, k)
		}
	}
}

func appendUnique(l []string, s string) []string {
	for _, x := range l {
		if x == s {
			return l
		}
	}
	return append(l, s)
}

// buildViews scans both versions of every touched function.
func (r *checker) buildViews() {
	for _, fc := range r.pass.Change.Funcs {
		r.inPatch[fc.File+":"+fc.Name] = true
		// Each side resolves its own variables first (a local alias
		// such as "var = &ctx->refcount" may be gone on the other side).
		vts := [2]*varTypes{}
		for i, texts := range [2][2]string{{fc.Old.Text, fc.New.Text}, {fc.New.Text, fc.Old.Text}} {
			vt := newVarTypes()
			vt.scan(texts[0])
			vt.scan(texts[1])
			for _, f := range r.pass.Change.Files {
				if f.Path() != fc.File {
					continue
				}
				for _, h := range f.Hunks {
					if strings.Contains(h.Section, fc.Name+"(") {
						vt.scan(h.Section)
					}
				}
			}
			vt.fallback(r.fileVT[fc.File])
			vt.fallback(r.patchVT)
			vts[i] = vt
		}
		r.olds = append(r.olds, r.view(fc, &fc.Old, '-', vts[0]))
		r.news = append(r.news, r.view(fc, &fc.New, '+', vts[1]))
	}
}

func (r *checker) view(fc *diffcheck.FuncChange, s *diffcheck.Side, side byte, vt *varTypes) *wfunc {
	if strings.TrimSpace(s.Text) == "" {
		return nil
	}
	fn := cscan.ParseBody(typedHeader(dropDanglingHeader(s.Text, fc.Name, s.Partial), fc.Name), s.Lines)
	partial := s.Partial && !wholeFunc(fn, s.Lines)
	w := newWfunc(fc.File, fc.Name, side, s.Text, s.Lines, s.Changed, partial, fn)
	r.p.sitesOf(w, vt)
	r.addWrapperSites(w)
	r.addDeepSites(w)
	r.canonSites(w)
	return w
}

// allViews returns every non-nil view of the patch.
func (r *checker) allViews() []*wfunc {
	var out []*wfunc
	for _, l := range [][]*wfunc{r.olds, r.news} {
		for _, f := range l {
			if f != nil {
				out = append(out, f)
			}
		}
	}
	return out
}

// unifyKeys resolves "*.field" keys to the one struct type that has that
// field path elsewhere in the patch.
func (r *checker) unifyKeys() {
	types := map[string]map[string]bool{}
	note := func(k string) {
		if f := keyField(k); f != "" && !strings.HasPrefix(k, "*.") {
			if types[f] == nil {
				types[f] = map[string]bool{}
			}
			types[f][k] = true
		}
	}
	for _, f := range r.allViews() {
		for _, s := range f.Sites {
			note(strings.TrimPrefix(strings.TrimPrefix(s.Q, "var:"), "completion:"))
		}
	}
	for k := range r.structRenames {
		note(k)
	}
	for _, f := range r.allViews() {
		for _, s := range f.Sites {
			prefix := ""
			q := s.Q
			for _, p := range []string{"var:", "completion:"} {
				if strings.HasPrefix(q, p) {
					prefix, q = p, strings.TrimPrefix(q, p)
				}
			}
			if !strings.HasPrefix(q, "*.") {
				continue
			}
			if ks := types[keyField(q)]; len(ks) == 1 {
				for k := range ks {
					s.Q = prefix + k
				}
			}
		}
	}
}

// blockOf returns the change block of a changed line of f, 0 if none.
func (r *checker) blockOf(f *wfunc, line int) int {
	m := r.maps[f.File]
	if m == nil {
		return 0
	}
	if f.Side == '-' {
		return m.oldBlock[line]
	}
	return m.newBlock[line]
}

// compatible reports whether an old-side key and a new-side key name the
// same queue (equal, or renamed by the patch).
func (r *checker) compatible(oldQ, newQ string) bool {
	if oldQ == newQ {
		return true
	}
	for _, n := range r.renames[oldQ] {
		if n == newQ {
			return true
		}
	}
	return false
}

// counterpart finds the old-side site of kind k that corresponds to the
// new-side site n: the same line for unchanged lines, else a site of the
// same change block, else a changed site anywhere in the function, on a
// compatible queue. used marks old sites already paired.
func (r *checker) counterpart(old *wfunc, n *wsite, used map[*wsite]bool) *wsite {
	if old == nil {
		return nil
	}
	if !n.Changed() {
		if m := r.maps[n.Fn.File]; m != nil {
			if ol, ok := m.newToOld[n.Line()]; ok {
				for _, o := range old.Sites {
					if o.Kind == n.Kind && o.Line() == ol && o.Call.Name == n.Call.Name && !used[o] {
						return o
					}
				}
			}
		}
		// Unchanged line without a mapping (tree view): same name and key.
		for _, o := range old.Sites {
			if o.Kind == n.Kind && !o.Changed() && o.Call.Name == n.Call.Name && r.compatible(o.Q, n.Q) && !used[o] {
				return o
			}
		}
		return nil
	}
	b := r.blockOf(n.Fn, n.Line())
	var any *wsite
	for _, o := range old.Sites {
		if o.Kind != n.Kind || used[o] || !o.Changed() || !r.compatible(o.Q, n.Q) {
			continue
		}
		if b != 0 && r.blockOf(old, o.Line()) == b {
			return o
		}
		if any == nil {
			any = o
		}
	}
	return any
}

// add reports a finding.
func (r *checker) add(f report.Finding) {
	if r.deepCall != nil {
		r.addDeepStep(&f, r.deepCall)
	}
	r.pass.Report(f)
}

// wholeFunc reports whether a patch-only side nevertheless shows the whole
// function: its header, its closing brace and no gaps between.
func wholeFunc(fn *cscan.Func, lines []int) bool {
	if fn == nil || fn.Name == "" || fn.Body == nil || fn.Body.EndLine == 0 {
		return false
	}
	for i := 1; i < len(lines); i++ {
		if lines[i] != lines[i-1]+1 {
			return false
		}
	}
	return true
}
