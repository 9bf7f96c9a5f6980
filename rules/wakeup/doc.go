// Package wakeup is the wakeup rule family: it compares the wait-queue
// usage of every function a patch touches, before and after, and with a
// tree every other user of the same queues.
//
// wakeup.go runs the checks; model.go turns a function version into wait,
// wake, entry, lock and active-check sites on normalised queue keys
// (queue.go); checks.go holds the exclusive, waker, entry and
// waitqueue_active checks, split.go queue splits and renames, lost.go the
// lost-wakeup analysis; tree.go and index.go give the tree's other users of
// a queue. Tables of primitives are rules/tables/wakeup.yaml (tables.go).
// Statement walks use rules/lockctx. Case files are in testdata/cases.
package wakeup
