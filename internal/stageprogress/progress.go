// Package stageprogress carries a progress callback through a context to
// long whole-tree stages (the index's second pass, the rules' struct typing
// and summaries), so a
// command can draw them without the stages knowing about bars or
// terminals.
package stageprogress

import (
	"context"
	"sync"
)

// Names of the stages reported by index and rules/lockctx.
const (
	// IndexWrite is the second pass of an index build: every file's
	// record encoded against the store's string table, then the store
	// written.
	IndexWrite = "writing the index"
	// Typing is the struct typing and declarations derived from every
	// file of a tree.
	Typing = "struct typing"
	// Summaries is the lock-context summary of every function of a tree.
	Summaries = "summarising"
)

// Func receives the progress of stage: done of total units (files). A
// stage's last call has done == total, and it is made once.
type Func func(stage string, done, total int)

type key struct{}

// WithFunc returns ctx carrying f; with f nil it returns ctx.
func WithFunc(ctx context.Context, f Func) context.Context {
	if f == nil {
		return ctx
	}
	return context.WithValue(ctx, key{}, f)
}

// steps is about how many calls a stage makes to its Func.
const steps = 200

// Counter counts the units of one stage and reports them to the Func of
// the context it was started with (about steps times, and always at the
// end). Its methods are safe for concurrent use; a nil Counter (no Func in
// the context) does nothing.
type Counter struct {
	f           Func
	stage       string
	total, step int
	mu          sync.Mutex
	done, shown int
	ended       bool
}

// Start begins stage of total units under ctx's Func; it returns nil when
// ctx carries none.
func Start(ctx context.Context, stage string, total int) *Counter {
	f, _ := ctx.Value(key{}).(Func)
	if f == nil {
		return nil
	}
	c := &Counter{f: f, stage: stage, total: total, step: max(1, total/steps)}
	f(stage, 0, total)
	return c
}

// Add counts n more units done.
func (c *Counter) Add(n int) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ended {
		return
	}
	c.done = min(c.done+n, c.total)
	if c.done >= c.total {
		c.end()
		return
	}
	if c.done-c.shown >= c.step {
		c.shown = c.done
		c.f(c.stage, c.done, c.total)
	}
}

// Done ends the stage: the last call reports done == total, whatever was
// counted (a stage may skip units).
func (c *Counter) Done() {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.ended {
		c.end()
	}
}

func (c *Counter) end() {
	c.ended = true
	c.f(c.stage, c.total, c.total)
}
