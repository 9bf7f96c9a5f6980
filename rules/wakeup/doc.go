// Package wakeup is the wakeup rule family: it compares the wait-queue
// usage of every function a patch touches, before and after, and with a
// tree every other user of the same queues, and decides whether a sleeper
// can now miss its wake-up or outlive its wait entry.
//
// Files, by what they decide. Prefixes group the files of one concern:
// barrier_* (ordering between the two sides), storeorder_* (a store and
// the wake-up that announces it), rearm_* (re-arming a completion or
// flag), condwake_* (wake-ups made conditional), tree_* (the tree's other
// users of a queue).
//
// Running and modelling:
//   - wakeup.go: the rule, its categories and the order the checks run in;
//   - tables.go: the primitive tables (rules/tables/wakeup.yaml);
//   - model.go: a function version as wait, wake, entry, lock and
//     active-check sites;
//   - queue.go: queue keys from queue arguments (bit:, var: for the word a
//     bit or variable wait hashes to);
//   - canon.go: a queue keyed by the struct that holds it, so both sides
//     of a protocol meet whatever variable reaches the object (through a
//     call's result, typed by the callee's declaration, through an
//     accessor returning a member's address, and through a pointer member
//     of a global of an anonymous struct type too);
//   - findall.go: regexp matches found statement by statement (the
//     variable-type scans of a whole file);
//   - wrapper.go: wake-ups through small wrapper helpers;
//   - opswake.go: a call through a function-pointer member is a wake-up
//     when a function assigned to that member wakes, and so is an
//     INDIRECT_CALL_n() whose likely targets or pointer wake;
//   - deferred.go: a call that queues an irq_work, work item, tasklet or
//     timer is a (derived) wake-up when the handler an init call of its
//     file gives that member wakes a queue on every run;
//   - pairs.go: the sleeper/waker roles, lock keys and interleavings the
//     pair checks share;
//   - heldlocks.go: the locks held at a line, which are lockctx's walker's
//     answer (a lockctx.CompileLocks model of the ordering kinds, mutexes
//     and rw-semaphores included, one path-sensitive walk per function
//     version): irqsave/irqrestore, read and write sides, trylocks,
//     guard() and scoped_guard() scopes, unlocks on exit paths; wakeup
//     keeps only the key (lockKey), not a pairing of its own;
//     heldlocks_probe.go: the copy of the statement tree that walk runs
//     over, with probes at statements that have no call and lock
//     arguments already keyed, so the walker pairs and joins by the key,
//     and each key's typed key (the struct type holding the lock);
//     heldlocks_wrappers.go: small lock, trylock and unlock wrappers read
//     as the primitive they make on the caller's object;
//     heldlocks_callers.go: the typed locks every caller holds, counted
//     where a lock ordering two sides is asked for;
//   - header.go: a side's function header made parseable (a placeholder
//     return type, a header without its brace blanked), and the whole
//     post-patch function a partial side shows part of (wholeNew);
//   - exits.go: the exits of a body and whether a removal of a wait entry
//     lies on the path to each (through goto labels); whether one line
//     runs after another on its path (reaches);
//   - waiterpick.go: which waiter an interleaving names;
//   - waitcond_helpers.go: the helpers a wait condition calls are on the
//     sleeper's side;
//   - waitcond_dropped.go: a wait condition that drops a term a waker of
//     its queue makes true (a member it stores, kthread_should_stop());
//   - sleepguard_dropped.go: an open-coded sleep's if that stops
//     re-testing, after the task set its state, an event a waker makes
//     true (a stop request, a member stored before a wake-up, by a queue's
//     waker or, for a sleep on no queue, a task wake-up of the file); the
//     if around schedule() and the ifs that leave the sleep both count;
//   - pollcond_dropped.go: a poll function's mask no longer reads a member
//     a waker of a polled queue stores before waking it (in the waker, a
//     same-file helper it calls, or a caller), and that store search.
//
// Checks of one function's sites, before and after:
//   - exclusive.go: exclusive waiting introduced or removed;
//   - wakers.go: a wake-up's breadth, sync or task-state mode changed, a
//     wait's sleeping state changed against its wakers, wake-ups removed,
//     an interruptible-only wake-up added for sleepers that are none;
//   - helperarg.go: wake-up breadth narrowed through a helper's argument;
//   - entries.go: wait entries that became or stopped being auto-removed,
//     non-auto-removing entries queued exclusively;
//   - finishwait.go: a wait entry some path to a return leaves queued;
//   - flagwait.go: wait_woken() on an entry whose wake function never
//     sets WQ_FLAG_WOKEN (DEFINE_WAIT, DECLARE_WAITQUEUE);
//   - globalstore.go: stores to file-scope variables, shared state like
//     members for the store-order and removed-wake-up checks;
//   - wakeq_flush.go: a local wake_q filled (wake_q_add or a helper) and
//     a path out that no longer flushes it (wake_up_q);
//   - activecheck.go: waitqueue_active() added without a barrier or the
//     queue lock;
//   - split.go: queue splits and renames; split_pairs.go: which waker
//     serves which waiter of a split queue (the bits of a flags word each
//     side changes or tests), so that a split separating no pair is a note;
//   - target.go: a wake-up moved to another object's queue of the same
//     key, or to another bit of the word, than the state the path changed
//     (waiters that reach their queue through an accessor included: the
//     object is the accessor's argument);
//   - lost.go: the exclusive/broadcast lost-wakeup analysis;
//   - terminal.go: a broadcast path from a final value stored before the
//     wake-up that an exclusive waiter tests;
//   - oneshot.go: a one-shot completion narrowed to complete();
//   - teardown.go: POLLFREE wake-ups narrowed, keyed wake-ups losing a bit
//     a poller reports;
//   - announce.go: a wake-up gate that drops the flag waiters announce
//     themselves with.
//
// Checks that decide with the other side of a sleeper/waker pair:
//   - removed.go: wake-ups removed or skipped (return/goto after a store)
//     with sleepers left and no covering waker in the function (on the
//     removed one's path), its callees or callers; non-auto-removing
//     exclusive entries;
//   - condwake_guards.go: a wake-up the patch made conditional or that a
//     new early return or goto skips, and the condition arithmetic;
//   - deepwake.go: calls that reach a wake-up of the object they are
//     handed several calls down (snd_pcm_period_elapsed()), owed by
//     their callers: removed, skipped or gated, as a wake-up would be;
//   - wakefunc_filter.go: a wake function's decline test that no longer
//     asks the helper the sleeper's side asks (eligible_pid()), and reads
//     less of the state it reads;
//   - condwake_dispatch.go: an interrupt handler's call for the event its
//     status names, skipped by a new exit on another bit of that status;
//   - condwake_otherqueue.go: a wake-up the patch puts under a sleeper
//     test of another queue (the else of waitqueue_active(&other)), whose
//     own waiters then miss the events that come while the other queue
//     has sleepers;
//   - condwake_store.go: a wake-up made conditional on something other
//     than the state its waiters check, after a store of that state;
//   - condwake_moved.go: a completion signal moved into a branch that
//     was already there, with no signal on the other path;
//   - condwake_narrowed.go: a gate that still tests the waited-for state
//     but adds a conjunct the waiter neither waits for nor announces, or
//     tests a counter for another value than the waiter's;
//   - barrier_removed.go: barriers, acquire/release and barrier-implying
//     atomics removed or weakened on either side (not where a lock that
//     every side touching the ordered variables takes covers the old or
//     the replacing code);
//   - barrier_lock_exit.go: a new exit before the lock that orders the
//     wake decision, on a lockless read of the state the sleeper
//     announces itself in under that lock;
//   - barrier_redundant.go: a removed full barrier that another still
//     provides, before it or in the sleeper check that follows it
//     (wq_has_sleeper(), rcuwait_wake_up());
//   - barrier_lock.go: a lock that ordered the waker's decision against
//     the sleeper removed (from both sides: the sleeper that now tests
//     before it queues itself); the lock that covers an ordering
//     operation's replacement (newLockOrdering, peersOn);
//   - barrier_storelock.go: the queue's own lock removed from around the
//     stores a sleeper tests under it, before a wake-up gated by a
//     lockless check for sleepers;
//   - barrier_lockless_peer.go: the queue's lock orders no pair with a
//     waker that tests for sleepers without it (directly, through a
//     lockless primitive or in a small helper);
//   - barrier_handoff.go: a write barrier between two stores before a
//     wake-up (the wake-up's own barrier orders nothing for a waiter
//     that never slept);
//   - barrier_weakened.go: wq_has_sleeper() weakened to a bare
//     waitqueue_active() with waiters of the queue elsewhere;
//   - barrier_lockless_added.go: a wake-up with no barrier of its own
//     (wake_up_bit(), wake_up_var()) that the patch puts after a store to
//     its word or variable with no full barrier between them;
//   - lockedwake.go: a _locked wake-up no longer under the queue's lock;
//   - gating.go: wake-ups newly gated by a bare waitqueue_active();
//   - gating_section.go: a lockless sleeper check after the waker's
//     critical section, ordered by the lock when every sleeper queues
//     itself and then takes it to test its condition (used by gating.go,
//     barrier_weakened.go and barrier_removed.go);
//   - stale.go: wake decisions on stale values (a test moved before the
//     barrier, a queue index from a fresh read, a helper's snapshot);
//   - storeorder_state.go: stores or work moved after the wake-up, a
//     wake-up moved before them;
//   - storeorder_after_signal.go: a store added after a wake-up to a
//     member of the object it signals that its waiters read once woken
//     (the result after complete()), inline or through a helper of the
//     file handed the object;
//   - removed_branch.go: a new exit that stores to the woken object and
//     leaves, without the wake-up, a branch every exit of which woke the
//     queue in the old version;
//   - addedstores.go: the constant stores a patch adds (the store checks'
//     input) and a moved function's old version;
//   - storeorder_unannounced.go: a store added that a queue's waiters
//     wait for, in a function that wakes none of the object's queues, with
//     no wake-up after it in a callee or caller either;
//   - storeorder_wrongqueue.go: a store added that its waiters' queue
//     never hears of, announced by a wake-up of another queue of the same
//     object (the tree's waiters found by the member they name);
//   - storeorder_added.go: a store added after the last wake-up of a
//     queue that makes its waiters' condition true, with no wake-up
//     after it on the path;
//   - storeorder_publish.go: wake_q_add/wake_up_process before the
//     publishing store, the task read through a published on-stack entry;
//   - storeorder_task.go: a task wake-up moved above the store the
//     sleeping task re-checks;
//   - handshake.go: a flag handshake (each side stores its flag, then
//     loads the other's) that the patch breaks by making one side load
//     first, the other side being a function of the same file;
//   - taskwake_removed.go: a wake-up of one task (wake_up_process(),
//     directly or through a small helper) removed; the task wake-ups of a
//     function;
//   - taskwake_gated.go: a task wake-up as a queue's (key task:, its
//     sleepers the open-coded sleeps of the file, each with what ends
//     it), so that condwake_guards.go judges one the patch gates or a new
//     exit skips;
//   - sleeper_arming.go: open-coded sleeps that now arm themselves (task
//     state, prepare_to_wait) after a check, an unlock or the publication
//     of the task, or sleep without the re-check made once armed;
//   - sleeper_unordered.go: open-coded sleeps armed with a bare
//     __set_current_state() that test a waker's condition before they
//     sleep, with no barrier or lock between;
//   - rearm_completion.go: a completion re-armed after the operation
//     starts, or no longer re-armed;
//   - rearm_round.go: a completion re-armed after the wait, outside the
//     lock that serialises the rounds, or with init_completion() under a
//     waiter;
//   - rearm_reset.go: a flag, bit or counter a wait condition reads,
//     reset after the operation starts or no longer reset (the
//     completion's checks, written with a flag);
//   - rearm_later.go: a flag reset that re-arms the wait of a later call
//     (the next read()), known by a waker of its file that stores the
//     flag and wakes a queue whose waiters read it;
//   - rearm_flag.go: a flag reset moved out of the lock its waker holds;
//   - wakefunc.go: custom wake functions (unlink order, careful unlink,
//     references taken before an early return);
//   - wakefunc_returns.go: what each return of a wake function tells
//     __wake_up_common() (woke, declined, claimed without waking,
//     stopped the walk), and a return the patch turned into a worse one;
//   - wakefunc_contract.go: the event record a wake function stores for
//     its sleeper, and its filter (declines widened to key-less
//     wake-ups, or narrowed on a shared queue with exclusive waiters);
//   - selfpair.go: a function that is its own sleeper/waker pair, and the
//     unconditional wake-up that orders a removed barrier's pair.
//
// The tree:
//   - tree_users.go: the tree's other users of a queue, outside the
//     functions the patch touches;
//   - tree_primcalls.go: the calls of wait-queue primitives of an index
//     view, by the identifiers of their arguments;
//   - tree_sitestore.go: those calls stored per identifier once per tree
//     state (Prepare), so a patch decodes only what it asks for.
//
// Statement walks, held locks included, use rules/lockctx. Case files are in testdata/cases.
package wakeup
