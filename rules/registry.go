package rules

import (
	"fmt"
	"sort"
)

// Constructor builds one rule family from the shared options (loading its
// tables). Each family has one: NewSleepInAtomic, NewWakeup, ...
type Constructor func(Options) (*Rule, error)

// constructors lists every rule family, in report order. Adding a family
// is one line here plus its own files.
func constructors() []Constructor {
	return []Constructor{
		// Rule families register here, e.g. NewSleepInAtomic, NewWakeup.
		NewSleepInAtomic,
		NewWakeup,
	}
}

// All returns every rule, built with opts. Rule names are unique; an error
// names the family that failed to build (typically a bad table file).
func All(opts Options) ([]*Rule, error) {
	return build(opts, constructors())
}

func build(opts Options, cs []Constructor) ([]*Rule, error) {
	var out []*Rule
	seen := map[string]bool{}
	for i, c := range cs {
		r, err := c(opts)
		if err != nil {
			return nil, fmt.Errorf("rule family %d: %w", i+1, err)
		}
		if r == nil || r.Name == "" || r.Run == nil {
			return nil, fmt.Errorf("rule family %d: constructor returned an incomplete rule", i+1)
		}
		if seen[r.Name] {
			return nil, fmt.Errorf("rule %q registered twice", r.Name)
		}
		seen[r.Name] = true
		out = append(out, r)
	}
	return out, nil
}

// Names returns the names of rules, sorted (for --help and config checks).
func Names(rs []*Rule) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.Name)
	}
	sort.Strings(out)
	return out
}
