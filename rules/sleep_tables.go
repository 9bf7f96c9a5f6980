package rules

import (
	"fmt"
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
)

// sleepTables is the "sleep" section of the primitive tables
// (rules/tables/sleep.yaml, extendable from config).
type sleepTables struct {
	Acquire   []ctxRow          `yaml:"acquire"`
	Release   []ctxRow          `yaml:"release"`
	Trylock   []ctxRow          `yaml:"trylock"`
	Guards    map[string]string `yaml:"guards"`
	Sleep     []sleepRow        `yaml:"sleep"`
	Alloc     map[string]int    `yaml:"alloc"`
	GFPSleep  []string          `yaml:"gfp_sleep"`
	GFPAtomic []string          `yaml:"gfp_atomic"`
	TrueConds []string          `yaml:"true_conds"`
	CondSleep []string          `yaml:"cond_sleep_guards"`
}

// ctxRow lists primitives that enter or leave one kind of atomic context.
type ctxRow struct {
	Names []string `yaml:"names"`
	Kind  string   `yaml:"kind"`
	// Arg is the argument naming the lock (-1: none).
	Arg int `yaml:"arg"`
	// ArgOf overrides Arg per name.
	ArgOf map[string]int `yaml:"arg_of"`
}

// sleepRow lists sleeping primitives.
type sleepRow struct {
	Names  []string `yaml:"names"`
	Prefix []string `yaml:"prefix"`
	Why    string   `yaml:"why"`
}

// ctxPrim is one resolved context primitive.
type ctxPrim struct {
	kind string
	arg  int
}

// sleepModel is the compiled table.
type sleepModel struct {
	acquire, release, trylock map[string]ctxPrim
	guards                    map[string]string
	sleep                     map[string]string
	sleepPrefix               []sleepRow
	alloc                     map[string]int
	gfpSleep, gfpAtomic       []string
	trueConds                 map[string]bool
	condSleep                 []string
}

var ctxKinds = map[string]bool{"spin": true, "raw_spin": true, "rwlock": true, "rcu": true, "bh": true, "irq": true, "preempt": true}

func compileSleepTables(t *sleepTables) (*sleepModel, error) {
	m := &sleepModel{
		acquire: map[string]ctxPrim{}, release: map[string]ctxPrim{}, trylock: map[string]ctxPrim{},
		guards: t.Guards, sleep: map[string]string{}, alloc: t.Alloc,
		gfpSleep: t.GFPSleep, gfpAtomic: t.GFPAtomic, trueConds: map[string]bool{},
		condSleep: t.CondSleep,
	}
	fill := func(rows []ctxRow, dst map[string]ctxPrim, what string) error {
		for i, r := range rows {
			if !ctxKinds[r.Kind] {
				return fmt.Errorf("sleep.%s[%d]: unknown kind %q", what, i, r.Kind)
			}
			for _, n := range r.Names {
				arg := r.Arg
				if a, ok := r.ArgOf[n]; ok {
					arg = a
				}
				dst[n] = ctxPrim{kind: r.Kind, arg: arg}
			}
		}
		return nil
	}
	if err := fill(t.Acquire, m.acquire, "acquire"); err != nil {
		return nil, err
	}
	if err := fill(t.Release, m.release, "release"); err != nil {
		return nil, err
	}
	if err := fill(t.Trylock, m.trylock, "trylock"); err != nil {
		return nil, err
	}
	for class, kind := range t.Guards {
		if kind != "" && !ctxKinds[kind] {
			return nil, fmt.Errorf("sleep.guards.%s: unknown kind %q", class, kind)
		}
	}
	for _, r := range t.Sleep {
		for _, n := range r.Names {
			m.sleep[n] = r.Why
		}
		if len(r.Prefix) > 0 {
			m.sleepPrefix = append(m.sleepPrefix, r)
		}
	}
	for _, c := range t.TrueConds {
		m.trueConds[c] = true
	}
	return m, nil
}

// argKey returns the lock key text of argument i ("" when none).
func argKey(c cscan.Call, i int) string {
	if i < 0 || i >= len(c.Args) {
		return ""
	}
	return normKey(c.Args[i])
}

// normKey normalises a lock expression: "&pipe->rd_wait.lock" and
// "&(pipe->rd_wait.lock)" both become "pipe->rd_wait.lock".
func normKey(s string) string {
	s = strings.TrimSpace(s)
	s = strings.TrimPrefix(s, "&")
	for strings.HasPrefix(s, "(") && strings.HasSuffix(s, ")") {
		s = strings.TrimSpace(s[1 : len(s)-1])
	}
	return strings.ReplaceAll(s, " ", "")
}

// sleepWhy reports whether call c is a primitive that may sleep, and why.
func (m *sleepModel) sleepWhy(c cscan.Call) (string, bool) {
	if why, ok := m.sleep[c.Name]; ok {
		return why, true
	}
	for _, r := range m.sleepPrefix {
		for _, p := range r.Prefix {
			if strings.HasPrefix(c.Name, p) {
				return r.Why, true
			}
		}
	}
	if i, ok := m.alloc[c.Name]; ok && i >= 0 && i < len(c.Args) {
		if m.gfpSleeps(c.Args[i]) {
			return "allocates with " + c.Args[i] + " (direct reclaim may sleep)", true
		}
	}
	if c.Name == "might_sleep_if" && len(c.Args) == 1 {
		cond := strings.TrimSpace(c.Args[0])
		if m.trueConds[cond] {
			return "might_sleep_if(" + cond + ")", true
		}
		if strings.HasPrefix(cond, "gfpflags_allow_blocking(") && m.gfpSleeps(strings.TrimSuffix(strings.TrimPrefix(cond, "gfpflags_allow_blocking("), ")")) {
			return "might_sleep_if(" + cond + ")", true
		}
	}
	return "", false
}

// primitive reports whether c is one of the table's primitives (never
// looked up as a function).
func (m *sleepModel) primitive(c cscan.Call) bool {
	if _, ok := m.acquire[c.Name]; ok {
		return true
	}
	if _, ok := m.release[c.Name]; ok {
		return true
	}
	if _, ok := m.trylock[c.Name]; ok {
		return true
	}
	_, ok := m.sleepWhy(c)
	return ok || c.Name == "guard" || c.Name == "scoped_guard"
}

// conditionalSleep reports whether a call's guards make its sleeping
// conditional on the last reference going away or on the context allowing
// it (see cond_sleep_guards).
func (m *sleepModel) conditionalSleep(gs []cscan.Guard) bool {
	for _, g := range gs {
		for _, p := range m.condSleep {
			if strings.Contains(g.Cond, p) {
				return true
			}
		}
	}
	return false
}

// gfpSleeps reports whether a GFP argument allows direct reclaim. Unknown
// masks (variables) are not known to sleep.
func (m *sleepModel) gfpSleeps(arg string) bool {
	a := strings.ReplaceAll(arg, " ", "")
	for _, f := range m.gfpAtomic {
		if containsWord(a, strings.ReplaceAll(f, " ", "")) {
			return false
		}
	}
	for _, f := range m.gfpSleep {
		if containsWord(a, f) {
			return true
		}
	}
	return false
}

// containsWord reports whether w occurs in s delimited by non-identifier
// characters.
func containsWord(s, w string) bool {
	for i := 0; ; {
		j := strings.Index(s[i:], w)
		if j < 0 {
			return false
		}
		j += i
		before := j == 0 || !isIdentByte(s[j-1]) || w[0] == '~'
		after := j+len(w) == len(s) || !isIdentByte(s[j+len(w)])
		if before && after {
			return true
		}
		i = j + 1
	}
}

func isIdentByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// guardKind returns the context kind of a guard()/scoped_guard() call and
// its lock key.
func (m *sleepModel) guardKind(c cscan.Call) (kind, key string, ok bool) {
	if len(c.Args) == 0 {
		return "", "", false
	}
	kind, ok = m.guards[strings.TrimSpace(c.Args[0])]
	if !ok || kind == "" {
		return "", "", false
	}
	if len(c.Args) > 1 {
		key = normKey(c.Args[1])
	}
	return kind, key, true
}

// kindName renders a context kind for messages.
func kindName(kind string) string {
	switch kind {
	case "spin":
		return "spinlock"
	case "raw_spin":
		return "raw spinlock"
	case "rwlock":
		return "rwlock"
	case "rcu":
		return "RCU read-side critical section"
	case "bh":
		return "bottom halves disabled"
	case "irq":
		return "interrupts disabled"
	case "preempt":
		return "preemption disabled"
	}
	return kind
}
