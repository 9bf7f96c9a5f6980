// Package par runs independent pieces of work on the machine's cores.
package par

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
)

// Panic is what Each raises again on its caller when f panicked on a
// worker: the value, and the worker's stack (the caller's own stack
// shows Each, not where f panicked).
type Panic struct {
	Value any
	Stack []byte
}

// Error implements error: the value, then the worker's stack.
func (p *Panic) Error() string { return fmt.Sprintf("%v\n\nworker goroutine:\n%s", p.Value, p.Stack) }

// Each calls f(i) for every i in [0, n) on up to GOMAXPROCS goroutines
// and returns when all calls have. f must only read what is shared and
// write its own slot of a result: callers merge the slots in order, so
// the result does not depend on the schedule. A panic in f is raised
// again on the caller's goroutine once the others are done (where the
// caller's recover, a rule's or a patch's, takes it), not on a worker,
// where it would end the process: as a *Panic when f ran on a worker.
func Each(n int, f func(i int)) {
	workers := min(runtime.GOMAXPROCS(0), n)
	if workers <= 1 {
		for i := range n {
			f(i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	var mu sync.Mutex
	var first *Panic
	for range workers {
		wg.Go(func() {
			defer func() {
				if e := recover(); e != nil {
					mu.Lock()
					if first == nil {
						first = &Panic{Value: e, Stack: debug.Stack()}
					}
					mu.Unlock()
				}
			}()
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				f(i)
			}
		})
	}
	wg.Wait()
	if first != nil {
		panic(first)
	}
}
