package sleep

import (
	"fmt"
	"slices"
	"strings"

	"github.com/autosel-bot/autosel-bot/rules/lockctx"
)

// shutdownSafeRow lists sleeping primitives the kernel makes work
// atomically on the way down (the "shutdown_safe" rows of the table): in
// a restart or power-off handler (a context whose callback row is marked
// shutdown) system_state is past SYSTEM_RUNNING with interrupts off, an
// I2C transfer uses the adapter's atomic mode and __might_resched() is
// silent. Names lists primitives; FileSleep takes the file_sleep rows'
// primitives (regmap accesses), counted only where the calling file holds
// one of FileHas (its regmap is on I2C).
type shutdownSafeRow struct {
	Names     []string `yaml:"names"`
	FileSleep bool     `yaml:"file_sleep"`
	FileHas   []string `yaml:"file_has"`
	Why       string   `yaml:"why"`
}

// compileShutdownSafe indexes the rows by primitive name; a name must be
// one of the sleeping primitives (a "sleep" row's).
func (m *sleeper) compileShutdownSafe(rows []shutdownSafeRow, fileSleep []fileSleepRow) error {
	m.shutdownSafe = map[string]shutdownSafeRow{}
	for i, row := range rows {
		if row.Why == "" || len(row.Names) == 0 && !row.FileSleep {
			return fmt.Errorf("sleep.shutdown_safe[%d]: needs why, and names or file_sleep", i)
		}
		for _, n := range row.Names {
			if _, ok := m.sleep[n]; !ok {
				return fmt.Errorf("sleep.shutdown_safe[%d]: %s is no sleeping primitive of the table", i, n)
			}
		}
		names := row.Names
		if row.FileSleep {
			for _, fr := range fileSleep {
				names = append(slices.Clip(names), fr.Names...)
			}
		}
		for _, n := range names {
			m.shutdownSafe[n] = row
		}
	}
	return nil
}

// Lesser reports whether a chain to prim ranks after a summary's other
// chains that are as sure (lockctx.LesserTarget): a restart handler lets
// a shutdown_safe primitive pass, so a function's other sleeps must show
// first.
func (m *sleeper) Lesser(prim string) bool {
	_, ok := m.shutdownSafe[prim]
	return ok
}

// shutdownSafe reports whether the primitive proof reaches works
// atomically where st holds: one of st's contexts is entered only on the
// way down, at restart or power-off, on every path (Held.Shutdown), no
// context a registration gives holds at other times (a die notifier's),
// and the primitive is one of the table's shutdown_safe ones, called
// from a file holding one of the row's file_has texts when it has some.
// Locks the handler itself takes do not matter: the atomic transfer mode
// holds under any of them.
func (r *checker) shutdownSafe(proof *lockctx.Reach, st lockctx.State) bool {
	sl, _ := r.m.Target().(*sleeper)
	if sl == nil {
		return false
	}
	row, ok := sl.shutdownSafe[proof.Prim]
	if !ok || !slices.ContainsFunc(st.Held, func(h lockctx.Held) bool { return h.Must && h.Shutdown }) ||
		slices.ContainsFunc(st.Held, func(h lockctx.Held) bool { return h.Why != "" && !h.Shutdown }) {
		return false
	}
	if len(row.FileHas) == 0 {
		return true
	}
	if r.p.Index == nil || len(proof.Steps) == 0 {
		return false
	}
	file := proof.Steps[len(proof.Steps)-1].File
	key := file + "\x00" + strings.Join(row.FileHas, "\x00")
	holds, ok := r.fileHas[key]
	if !ok {
		src, err := r.p.Index.ReadFile(file)
		holds = err == nil && lockctx.FlatHoldsAny(lockctx.Flatten(src), row.FileHas)
		if r.fileHas == nil {
			r.fileHas = map[string]bool{}
		}
		r.fileHas[key] = holds
	}
	return holds
}

// bootContext reports whether every context of st was entered by a
// function that runs while the kernel boots on one CPU (the table's
// boot: start_kernel() with interrupts off, where __might_resched() is
// silent and a sleeping lock has no one to wait for).
func (r *checker) bootContext(st lockctx.State) bool {
	sl, ok := r.m.Target().(*sleeper)
	if !ok || len(sl.boot) == 0 || len(st.Held) == 0 {
		return false
	}
	for _, h := range st.Held {
		if !slices.Contains(sl.boot, h.At.Func) {
			return false
		}
	}
	return true
}
