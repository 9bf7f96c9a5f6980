// Package sleep is the sleep-in-atomic rule family: sleeping calls that a
// patch brings into atomic context (spinlocks, rwlocks, RCU read-side
// sections, irq/bh/preempt disabled), with the call chain.
//
// It is a client of rules/lockctx: its table section (rules/tables/
// sleep.yaml) holds the engine's callbacks and the sleeping primitives,
// the lock model is rules/tables/locks.yaml, and the engine's Target is
// "may sleep" (tables.go). sleep.go runs the checks over each touched
// function: forward (new sleeping events in atomic context, compared with
// the old version), reverse (a function that newly may sleep, walked up
// its callers with a tree), lockchange.go (lock helpers that now return
// in atomic context: their callers' regions re-checked, through the
// wrappers that hand the context on), contextchange.go (a registration
// the patch changes puts an unchanged function it registers in a new
// context: a threaded handler made primary), walkers.go (a function
// handed to a walker that calls it under its own lock, such as
// iterate_fd()) and regmapbus.go (a regmap on a sleeping bus whose config
// the patch makes ask for a spinlock: fast_io on I2C); liftedguard.go
// counts a sleeping call the old version made too as new when the patch
// removed a check on the way to it (an early exit, a term of the if
// around it) that kept an atomic caller off it: a test of the context
// that failed there, or a mode the caller's chain sets up
// (ftrace_dump() pointing its iterator at a static buffer); report.go
// renders the findings. Atomic contexts include the implicit
// ones of callbacks (IRQ handlers, timers, tasklets, RCU callbacks, NAPI,
// atomic notifiers, ndo_start_xmit, irq_chip: the table's "callbacks")
// and of functions whose kernel-doc says where they run ("Context: Any
// context.": the table's "doc_context"); a user access does not sleep
// between pagefault_disable() and pagefault_enable() ("fault" rows),
// calls through struct members are followed both ways (the tree's
// member-assignment table, member chains typed through the struct
// definitions), and an allocation with a gfp_t parameter is checked
// against what the callers pass (a GFP mask handed to a function
// pointer's gfp_t parameter binds every implementation; a mask or-ed
// with flags is handed on; a callee that allocates or takes a mutex only
// when `gfpflags_allow_blocking(gfp)` sleeps when its callers pass a
// sleeping mask), the crypto API's CRYPTO_TFM_REQ_MAY_SLEEP request flag
// likewise (maskargs.go, the table's mask_sleep: set, passed down, or
// handed on from another request's flags), as is a call
// whose callee sleeps only when a flag parameter says so (CAN_SLEEP
// passed to a helper whose can_sleep path takes a mutex). Such a value a
// caller's flag chooses counts, whatever the callers pass, when the
// function enters the atomic context itself on every path: each caller
// taking the sleeping branch sleeps in it (sleep.go ownContextChoice;
// opf & REQ_NOWAIT ? GFP_NOWAIT : GFP_NOIO under kmap_atomic()). A function passed
// by name to an iterator that calls it is checked in the iterator's
// caller's context (argsites.go), and some primitives sleep depending on
// the calling file (filesleep.go: regmap accessors of a regmap on a
// sleeping bus). A context a helper returns holding, on every return or
// only for some values (lock_task_sighand() non-NULL, a lock helper's
// 0), is held in the caller until the release helper, through a
// variable and its test, a lock macro of the file or an ops member
// (rules/lockctx retheld.go, macro.go, membereffects.go). The caller
// search steps through the function-like macros of the file and its
// private headers that wrap a function (#define __m_calloc(mp, s, n)
// __m_calloc2(mp, s, n, MEMO_WARN)), types a pointer declared with a
// struct's typedef (m_pool_s *mp), and applies the locks an intermediate
// caller releases around its call (reversesites.go); a mask named by the
// driver's object-like macro stands for its text (rules/lockctx
// objmacro.go). Summaries and caller searches have no depth limit; a chain through a member several functions implement
// is a note, not a risk, unless the call site is typed with a driver's
// private ops struct, the link is a gfp_t contract parameter, or the
// caller holds the context at the typed member call itself (a set
// walker calling iter->fn() under rcu_read_lock() calls every fn there).
// interruptsafe.go drops a chain ending in a primitive that defers in
// interrupt context (vfree(), the table's interrupt_safe) when the
// context is a hard or soft interrupt or bottom halves off; shutdown.go
// drops one ending in a primitive the kernel makes work atomically at
// restart and power-off (an I2C transfer, a regmap on I2C: the table's
// shutdown_safe) when a context is a restart or power-off handler's, and
// every chain whose contexts were all entered while the kernel boots on
// one CPU (the table's boot: start_kernel() with interrupts off).
// Case files are in testdata/cases.
package sleep
