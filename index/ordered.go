package index

import (
	"context"
	"errors"
	"sync"
)

// ordered runs work(i) for every i in [0, n) on workers goroutines and
// hands the results to use, one at a time and in the order of i, on the
// calling goroutine. At most window results wait for use at once (a slow
// item holds back the others), so the memory in flight stays bounded
// whatever n is. The first error of work or use, or the end of ctx, stops
// it and is returned.
func ordered[T any](ctx context.Context, n, workers, window int, work func(i int) (T, error), use func(i int, v T) error) error {
	inner, cancel := context.WithCancel(ctx)
	defer cancel()
	type result struct {
		i   int
		v   T
		err error
	}
	workers, window = max(workers, 1), max(window, workers, 1)
	jobs := make(chan int)
	out := make(chan result, workers)
	slots := make(chan struct{}, window)
	go func() {
		defer close(jobs)
		for i := 0; i < n && inner.Err() == nil; i++ {
			select {
			case slots <- struct{}{}:
			case <-inner.Done():
				return
			}
			select {
			case jobs <- i:
			case <-inner.Done():
				return
			}
		}
	}()
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				v, err := work(i)
				select {
				case out <- result{i, v, err}:
				case <-inner.Done():
					return
				}
			}
		}()
	}
	go func() {
		wg.Wait()
		close(out)
	}()
	pending := make(map[int]result, window)
	next := 0
	var err error
	for r := range out {
		if err != nil {
			continue // draining
		}
		pending[r.i] = r
		for err == nil {
			p, ok := pending[next]
			if !ok {
				break
			}
			delete(pending, next)
			if err = p.err; err == nil {
				err = use(next, p.v)
			}
			if err != nil {
				cancel()
				break
			}
			next++
			<-slots
		}
	}
	if err == nil && next < n {
		if err = ctx.Err(); err == nil {
			err = errors.New("work stopped early")
		}
	}
	return err
}
