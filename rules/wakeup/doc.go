// Package wakeup is the wakeup rule family: it compares the wait-queue
// usage of every function a patch touches, before and after, and with a
// tree every other user of the same queues, and decides whether a sleeper
// can now miss its wake-up or outlive its wait entry.
//
// wakeup.go runs the checks; model.go turns a function version into wait,
// wake, entry, lock and active-check sites on normalised queue keys
// (queue.go), wrapper.go adds wake-ups through small wrapper helpers;
// exclusive.go, wakers.go, entries.go, finishwait.go and activecheck.go
// hold the exclusive, waker, wait-entry, finish_wait and waitqueue_active
// checks, split.go queue splits and renames, lost.go the exclusive/broadcast
// lost-wakeup analysis. The checks that decide with the other side of a
// sleeper/waker pair (pairs.go: roles, held locks, interleavings):
//   - removed.go: wake-ups removed or skipped (return/goto after a store)
//     with sleepers left and no covering waker in the function, its
//     callees or callers; non-auto-removing exclusive entries;
//   - barrier_removed.go, barrier_lock.go, gating.go: barriers, acquire/release,
//     barrier-implying atomics and locks removed or weakened on either
//     side, and wake-ups newly gated by a bare waitqueue_active();
//   - stale.go: wake decisions on stale values (a test moved before the
//     barrier, a queue index from a fresh read, a helper's snapshot);
//   - storeorder_state.go: stores or work moved after the wake-up;
//   - storeorder_publish.go: wake_q_add/wake_up_process before the publishing
//     store, the task read through a published on-stack entry;
//   - wakefunc.go: custom wake functions (unlink order, careful unlink,
//     references taken before an early return);
//   - teardown.go: POLLFREE wake-ups narrowed, keyed wake-ups losing a bit
//     a poller reports;
//   - condwake_store.go: a wake-up made conditional on something other than the
//     state its waiters check, after a store of that state;
//   - sleeper_arming.go: open-coded sleeps that now arm themselves (task
//     state, prepare_to_wait) after a check, an unlock or the publication
//     of the task, or sleep without the re-check made once armed.
//   - rearm_completion.go, rearm_round.go, rearm_flag.go: a completion or flag a
//     waiter reuses, re-armed after the operation starts, after the wait,
//     outside the lock that serialises the rounds, with init_completion()
//     under a waiter, or no longer re-armed; a flag reset moved out of the
//     lock its waker holds;
//   - taskwake_removed.go, storeorder_task.go: wake-ups of one task (wake_up_process(),
//     directly or through a small helper) removed, or moved above the
//     store the sleeping task re-checks.
//   - exits.go: the exits of a body and whether a removal of a wait
//     entry lies on the path to each (through goto labels);
//   - terminal.go: a broadcast path from a final value stored before the
//     wake-up that an exclusive waiter tests; oneshot.go: a one-shot
//     completion narrowed to complete();
//   - selfpair.go: a function that is its own sleeper/waker pair, and
//     the unconditional wake-up that orders a removed barrier's pair.
//
// canon.go keys a queue by the struct that holds it (a member chain
// re-rooted past pointer members and unique embedded ones, queue accessors
// such as sk_sleep() by the member they return), so the two sides of a
// protocol meet whatever variable reaches the object; opswake.go makes a
// call through a function-pointer member a wake-up when a function
// assigned to that member wakes (sk->sk_state_change, client_ops), and
// wrapper.go follows helpers through helpers; waiterpick.go names the
// waiter that re-checks what the path stored; announce.go reports a gate
// that drops the flag waiters announce themselves with; waitcond_helpers.go
// puts the helpers of wait conditions on the sleeper's side.
//
// tree_users.go and tree_primcalls.go give the tree's other users of a queue; bit waits
// and variable waits are keyed by the word they hash to (bit:, var:). Tables of
// primitives are rules/tables/wakeup.yaml (tables.go). Statement walks use
// rules/lockctx. Case files are in testdata/cases.
package wakeup
