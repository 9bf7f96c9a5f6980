package kselftest

import (
	"bufio"
	"bytes"
	"fmt"
	"sort"
	"strings"
	"time"
)

// Choice is a target chosen for a patch, with why.
type Choice struct {
	// Target is the table's target.
	Target Target
	// Reasons say which files called for it and why.
	Reasons []string
}

// Plan is what runs for a patch: the chosen targets within the budget,
// the ones the budget dropped, and notes (targets MAINTAINERS names that
// the table cannot run).
type Plan struct {
	// Chosen are the targets that run, in table order.
	Chosen []Choice
	// Dropped are the targets the time budget left out, slowest first.
	Dropped []Choice
	// Budget is the time budget (0: none).
	Budget time.Duration
	// Notes are remarks for the listing.
	Notes []string
}

// Seconds is the chosen targets' estimated run time.
func (p *Plan) Seconds() int {
	n := 0
	for _, c := range p.Chosen {
		n += c.Target.Seconds
	}
	return n
}

// Targets returns the chosen targets.
func (p *Plan) Targets() []Target {
	var out []Target
	for _, c := range p.Chosen {
		out = append(out, c.Target)
	}
	return out
}

// Select chooses targets for the touched files: every table rule that
// matches, then for files no rule matches, MAINTAINERS entries whose F:
// lines match the file and name a selftest target the table lists. A
// budget > 0 drops the slowest targets until the estimate fits.
func Select(t *Table, maint []Entry, files []string, budget time.Duration) *Plan {
	p := &Plan{Budget: budget}
	reasons := map[string][]string{}
	var order []string
	add := func(target, reason string) {
		if _, ok := reasons[target]; !ok {
			order = append(order, target)
		}
		for _, r := range reasons[target] {
			if r == reason {
				return
			}
		}
		reasons[target] = append(reasons[target], reason)
	}
	for _, r := range t.Rules {
		var hit []string
		for _, f := range files {
			for _, pat := range r.Paths {
				if matchPath(pat, f) {
					hit = append(hit, f)
					break
				}
			}
		}
		if len(hit) == 0 {
			continue
		}
		for _, tg := range r.Targets {
			add(tg, fmt.Sprintf("%s: %s (table)", listFiles(hit), r.Reason))
		}
	}
	for _, f := range files {
		if ruleMatches(t, f) {
			continue
		}
		for _, e := range maint {
			if !e.Matches(f) {
				continue
			}
			for _, tg := range e.SelftestTargets(t) {
				if t.Target(tg) == nil {
					p.Notes = append(p.Notes, fmt.Sprintf("MAINTAINERS %q names selftest %s for %s; not in the runner's table (not run)", e.Title, tg, f))
					continue
				}
				add(tg, fmt.Sprintf("%s: MAINTAINERS %q lists it (F: fallback)", f, e.Title))
			}
		}
	}
	for _, name := range order {
		p.Chosen = append(p.Chosen, Choice{Target: *t.Target(name), Reasons: reasons[name]})
	}
	sort.SliceStable(p.Chosen, func(i, j int) bool {
		return tableIndex(t, p.Chosen[i].Target.Name) < tableIndex(t, p.Chosen[j].Target.Name)
	})
	p.applyBudget()
	return p
}

// applyBudget drops the slowest chosen targets until the estimate fits.
func (p *Plan) applyBudget() {
	if p.Budget <= 0 {
		return
	}
	for p.Seconds() > int(p.Budget.Seconds()) && len(p.Chosen) > 0 {
		slow := 0
		for i, c := range p.Chosen {
			if c.Target.Seconds > p.Chosen[slow].Target.Seconds {
				slow = i
			}
		}
		p.Dropped = append(p.Dropped, p.Chosen[slow])
		p.Chosen = append(p.Chosen[:slow], p.Chosen[slow+1:]...)
	}
}

func ruleMatches(t *Table, f string) bool {
	for _, r := range t.Rules {
		for _, pat := range r.Paths {
			if matchPath(pat, f) {
				return true
			}
		}
	}
	return false
}

func tableIndex(t *Table, name string) int {
	for i, tg := range t.Targets {
		if tg.Name == name {
			return i
		}
	}
	return len(t.Targets)
}

// listFiles names up to three files.
func listFiles(fs []string) string {
	if len(fs) > 3 {
		return strings.Join(fs[:3], ", ") + fmt.Sprintf(" and %d more", len(fs)-3)
	}
	return strings.Join(fs, ", ")
}

// Text is the listing `autosel-bot test --list` prints.
func (p *Plan) Text(suite []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "runner suite (always): %s\n", strings.Join(suite, ", "))
	if len(p.Chosen) == 0 {
		b.WriteString("kselftests: none (no table rule or MAINTAINERS entry matches the touched files)\n")
	}
	for _, c := range p.Chosen {
		progs := "all tests"
		if len(c.Target.Programs) > 0 {
			progs = strings.Join(c.Target.Programs, ", ")
		}
		fmt.Fprintf(&b, "kselftest %s (~%ds; %s): %s\n", c.Target.Name, c.Target.Seconds, progs, c.Target.Doc)
		for _, r := range c.Reasons {
			fmt.Fprintf(&b, "  because %s\n", r)
		}
	}
	for _, c := range p.Dropped {
		fmt.Fprintf(&b, "kselftest %s (~%ds) dropped: over the time budget of %s (slowest first)\n", c.Target.Name, c.Target.Seconds, p.Budget)
	}
	if len(p.Chosen) > 0 {
		fmt.Fprintf(&b, "estimated kselftest time per kernel: ~%ds\n", p.Seconds())
	}
	for _, n := range p.Notes {
		fmt.Fprintf(&b, "note: %s\n", n)
	}
	return b.String()
}

// TouchedFiles lists the files a unified diff changes (both names of a
// rename), in order of first appearance.
func TouchedFiles(diff []byte) []string {
	var out []string
	seen := map[string]bool{}
	add := func(f string) {
		f = strings.TrimSpace(f)
		if f == "" || f == "/dev/null" || seen[f] {
			return
		}
		seen[f] = true
		out = append(out, f)
	}
	sc := bufio.NewScanner(bytes.NewReader(diff))
	sc.Buffer(make([]byte, 0, 64*1024), 4*1024*1024)
	for sc.Scan() {
		l := sc.Text()
		switch {
		case strings.HasPrefix(l, "+++ "), strings.HasPrefix(l, "--- "):
			name, _, _ := strings.Cut(l[4:], "\t")
			if strings.HasPrefix(name, "a/") || strings.HasPrefix(name, "b/") {
				add(name[2:])
			}
		case strings.HasPrefix(l, "rename from "):
			add(strings.TrimPrefix(l, "rename from "))
		case strings.HasPrefix(l, "rename to "):
			add(strings.TrimPrefix(l, "rename to "))
		}
	}
	return out
}
