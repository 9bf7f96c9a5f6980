package wakeup

import (
	"strings"
	"testing"

	"github.com/autosel-bot/autosel-bot/cscan"
)

// heldSrc marks with "/* at: KEYS */" the lines whose held locks
// TestLocksAt checks (KEYS comma-separated lock keys, "-" for none).
const heldSrc = `static void f(struct dev *dev, struct dev *other, int n)
{
	unsigned long flags;

	spin_lock_irqsave(&dev->lock, flags); /* at: - */
	dev->a = 1; /* at: dev.lock */
	if (n < 0) {
		spin_unlock_irqrestore(&dev->lock, flags);
		return;
	}
	other->b = 2; /* at: dev.lock */
	while (!dev->done) { /* at: dev.lock */
		spin_unlock_irqrestore(&dev->lock, flags);
		schedule(); /* at: - */
		spin_lock_irqsave(&other->dev->lock, flags);
	}
	dev->c = 3; /* at: dev.lock */
	spin_unlock_irqrestore(&dev->lock, flags);
	down_write(&dev->sem);
	dev->d = 4; /* at: sem */
	up_write(&dev->sem);
	if (n) {
		guard(mutex)(&dev->mtx);
		dev->e = 5; /* at: mtx */
	}
	dev->f = 6; /* at: - */
	scoped_guard(spinlock, &dev->lock)
		dev->g = 7; /* at: dev.lock */
	if (!read_trylock(&dev->rw))
		return;
	dev->h = 8; /* at: rw */
	read_unlock(&dev->rw);
	dev->i = 9; /* at: - */
}
`

// TestLocksAt checks that the locks held at a line are the walker's
// path-sensitive answer under wakeup's keys: an error path's unlock, an
// unlock and re-lock around a sleep in a loop (through another expression
// of the same lock), irqsave, rw-semaphores, guard() to the end of its
// block, scoped_guard() over its body, a trylock held when true.
func TestLocksAt(t *testing.T) {
	file := cscan.ParseFile("drivers/x.c", []byte(heldSrc))
	if len(file.Funcs) != 1 {
		t.Fatalf("%d functions", len(file.Funcs))
	}
	fn := file.Funcs[0]
	src := strings.Split(heldSrc, "\n")
	lines := make([]int, len(src))
	for i := range src {
		lines[i] = i + 1
	}
	f := newWfunc(fn.File, fn.Name, '+', heldSrc, lines, nil, false, fn)
	r := &checker{p: defaultPrims(t)}
	checked := 0
	for i, l := range src {
		_, want, ok := strings.Cut(l, "/* at: ")
		if !ok {
			continue
		}
		want = strings.TrimSuffix(want, " */")
		var got []string
		for _, h := range r.locksAt(f, i+1) {
			got = append(got, h.key)
		}
		g := strings.Join(got, ",")
		if g == "" {
			g = "-"
		}
		if g != want {
			t.Errorf("line %d %q: held %s, want %s", i+1, strings.TrimSpace(l), g, want)
		}
		checked++
	}
	if checked != 12 {
		t.Fatalf("checked %d lines", checked)
	}
	for _, k := range []string{"dev.lock", "sem", "mtx", "rw"} {
		if !r.takesLock(f, k) {
			t.Errorf("takesLock(%s) = false", k)
		}
	}
	if r.takesLock(f, "other") {
		t.Errorf("takesLock(other) = true")
	}
}
