package eval

import (
	_ "embed"
	"fmt"
	"slices"

	"go.yaml.in/yaml/v3"
)

//go:embed vocab.yaml
var vocabYAML []byte

// Family is one rule family of the corpus.
type Family struct {
	// Dir is the directory name under bugs/ and nearmiss/ ("sleep").
	Dir string
	// Rule is the family's rule name ("sleep-in-atomic").
	Rule string `yaml:"rule"`
	// Mechanisms is the family's mechanism vocabulary.
	Mechanisms []string `yaml:"mechanisms"`
}

// Vocab is the corpus vocabulary: families, variant axes and ordinary
// patch kinds.
type Vocab struct {
	// Families by directory name.
	Families map[string]*Family `yaml:"families"`
	// Axes are the axes variants move a bug along, by family directory.
	Axes map[string][]string `yaml:"axes"`
	// OrdinaryKinds are the allowed `kind` values of ordinary patches.
	OrdinaryKinds []string `yaml:"ordinary_kinds"`
}

// LoadVocab returns the vocabulary embedded from vocab.yaml.
func LoadVocab() (*Vocab, error) {
	v := new(Vocab)
	if err := yaml.Unmarshal(vocabYAML, v); err != nil {
		return nil, fmt.Errorf("vocab.yaml: %w", err)
	}
	for dir, f := range v.Families {
		f.Dir = dir
	}
	return v, nil
}

// HasMechanism reports whether m is in the family's vocabulary.
func (f *Family) HasMechanism(m string) bool { return slices.Contains(f.Mechanisms, m) }
