// Package kselftest chooses, runs and reads the kernel's own selftests
// (tools/testing/selftests) for the VM stage: which targets a patch's
// files call for (a data table, tables/kselftests.yaml, with MAINTAINERS
// F: lines as a fallback), within a time budget, and the TAP the tests
// print.
package kselftest

import (
	"bytes"
	_ "embed"
	"fmt"
	"os"
	"path"
	"strings"

	"go.yaml.in/yaml/v3"
)

//go:embed tables/kselftests.yaml
var builtinTable []byte

// Target is a selftest target the runner can build and run.
type Target struct {
	// Name is the directory under tools/testing/selftests.
	Name string `yaml:"name"`
	// Seconds is the estimated run time in the guest under TCG.
	Seconds int `yaml:"seconds"`
	// Programs restricts the run to these tests (kselftest-list.txt
	// names); empty runs all.
	Programs []string `yaml:"programs"`
	// Config are the Kconfig options the target needs (CONFIG_X=y).
	Config []string `yaml:"config"`
	// Doc says what the target tests.
	Doc string `yaml:"doc"`
	// Flaky are TAP point descriptions (prefixes) known to fail at random
	// under TCG: their changes are reported, never counted as regressions.
	Flaky []string `yaml:"flaky"`
}

// IsFlaky reports whether a TAP point's description is one of the
// target's flaky ones.
func (t *Target) IsFlaky(desc string) bool {
	for _, f := range t.Flaky {
		if strings.HasPrefix(desc, f) {
			return true
		}
	}
	return false
}

// Rule maps source paths to targets.
type Rule struct {
	// Paths are "dir/" prefixes, one-level globs or file names.
	Paths []string `yaml:"paths"`
	// Targets are target names.
	Targets []string `yaml:"targets"`
	// Reason says why these files call for these targets.
	Reason string `yaml:"reason"`
}

// Table is the target list and the path rules.
type Table struct {
	// Targets are the targets the runner can build and run.
	Targets []Target `yaml:"targets"`
	// Rules map source paths to targets.
	Rules []Rule `yaml:"rules"`
}

// Target returns the target named name, or nil.
func (t *Table) Target(name string) *Target {
	for i := range t.Targets {
		if t.Targets[i].Name == name {
			return &t.Targets[i]
		}
	}
	return nil
}

// LoadTable returns the built-in table extended by the extra files (their
// top-level "kselftests:" key: targets and rules are appended; a target
// named again replaces the earlier one).
func LoadTable(extra []string) (*Table, error) {
	t, err := parseTable(builtinTable)
	if err != nil {
		return nil, fmt.Errorf("kselftest: built-in table: %w", err)
	}
	for _, f := range extra {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("kselftest: table file: %w", err)
		}
		x, err := parseTable(b)
		if err != nil {
			return nil, fmt.Errorf("kselftest: table file %s: %w", f, err)
		}
		for _, tg := range x.Targets {
			if old := t.Target(tg.Name); old != nil {
				*old = tg
			} else {
				t.Targets = append(t.Targets, tg)
			}
		}
		t.Rules = append(t.Rules, x.Rules...)
	}
	if err := t.validate(); err != nil {
		return nil, err
	}
	return t, nil
}

// parseTable decodes a document's "kselftests:" key.
func parseTable(b []byte) (*Table, error) {
	var doc struct {
		Kselftests Table `yaml:"kselftests"`
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&doc); err != nil {
		return nil, err
	}
	return &doc.Kselftests, nil
}

// validate checks names, estimates, options and rule references.
func (t *Table) validate() error {
	for _, tg := range t.Targets {
		if tg.Name == "" || path.Clean(tg.Name) != tg.Name || strings.HasPrefix(tg.Name, "/") || strings.HasPrefix(tg.Name, "..") {
			return fmt.Errorf("kselftest: bad target name %q", tg.Name)
		}
		if tg.Seconds <= 0 {
			return fmt.Errorf("kselftest: target %s: seconds must be > 0", tg.Name)
		}
		for _, p := range tg.Programs {
			if p == "" || strings.ContainsAny(p, "/ \t\n") {
				return fmt.Errorf("kselftest: target %s: bad program %q", tg.Name, p)
			}
		}
		for _, o := range tg.Config {
			name, _, ok := strings.Cut(o, "=")
			if !ok || !strings.HasPrefix(name, "CONFIG_") || strings.ContainsAny(o, " \t\n") {
				return fmt.Errorf("kselftest: target %s: bad config option %q", tg.Name, o)
			}
		}
	}
	for i, r := range t.Rules {
		if len(r.Paths) == 0 || len(r.Targets) == 0 || r.Reason == "" {
			return fmt.Errorf("kselftest: rule %d: needs paths, targets and a reason", i+1)
		}
		for _, p := range r.Paths {
			if _, err := path.Match(p, ""); err != nil {
				return fmt.Errorf("kselftest: rule %d: bad path %q", i+1, p)
			}
		}
		for _, n := range r.Targets {
			if t.Target(n) == nil {
				return fmt.Errorf("kselftest: rule %d: unknown target %q", i+1, n)
			}
		}
	}
	return nil
}

// ConfigFragment is the union of every target's config options, as a
// Kconfig fragment: merged into every kernel the runner builds so the
// chosen tests never change the kernel's config.
func (t *Table) ConfigFragment() []byte {
	var b strings.Builder
	b.WriteString("# kselftest targets' options (runner/kselftest/tables/kselftests.yaml)\n")
	seen := map[string]bool{}
	for _, tg := range t.Targets {
		for _, o := range tg.Config {
			if !seen[o] {
				seen[o] = true
				b.WriteString(o + "\n")
			}
		}
	}
	return []byte(b.String())
}

// matchPath reports whether file matches pattern: "dir/" matches below
// dir, a glob matches within one level (as MAINTAINERS F: lines), any
// other pattern matches that file or, naming a directory, below it.
func matchPath(pattern, file string) bool {
	if strings.HasSuffix(pattern, "/") {
		return strings.HasPrefix(file, pattern)
	}
	if strings.ContainsAny(pattern, "*?[") {
		ok, _ := path.Match(pattern, file)
		return ok
	}
	return file == pattern || strings.HasPrefix(file, pattern+"/")
}
