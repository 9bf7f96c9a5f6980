package rules

import "fmt"

// Constructor builds one rule family from the shared options (loading its
// tables). Each family package has one, named New.
type Constructor func(Options) (*Rule, error)

// Build builds every family of cs with opts, in order. Rule and category
// names are unique; an error names the family that failed to build
// (typically a bad table file).
func Build(opts Options, cs []Constructor) ([]*Rule, error) {
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
		for _, cat := range r.Categories {
			if cat.Name == "" || cat.Name != r.Name && seen[cat.Name] {
				return nil, fmt.Errorf("rule %q: category %q empty or registered twice", r.Name, cat.Name)
			}
			seen[cat.Name] = true
		}
		out = append(out, r)
	}
	return out, nil
}
