package eval

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"go.yaml.in/yaml/v3"
)

// Split is the half of the corpus a case belongs to.
type Split string

const (
	// SplitTrain cases may be read while designing a rule.
	SplitTrain Split = "train"
	// SplitTest cases are held out: while designing a rule, only their
	// numbers are read.
	SplitTest Split = "test"
	// SplitSeen marks cases that were in the corpus before the split was
	// frozen: they had been read, so they count as train.
	SplitSeen Split = "seen"
)

// Half is the split a case is counted in: seen cases are train.
func (s Split) Half() Split {
	if s == SplitSeen {
		return SplitTrain
	}
	return s
}

// seenBefore reports whether the case predates the split (its manifest
// follows the corpus rules of that time).
func (s Split) seenBefore() bool { return s == SplitSeen }

// testShare is the share of new cases that Assign puts in the test split:
// a case is test when the first 32 bits of the SHA-256 of its key are
// below testShare * 2^32.
const testShare = 0.4

// Assign returns the split a case gets when it is added, from its key
// alone ("bugs/<family>/<case>", "nearmiss/<family>/<case>" or
// "ordinary/<file>"); scripts/eval-case.sh split computes the same.
func Assign(key string) Split {
	sum := sha256.Sum256([]byte(key))
	if float64(binary.BigEndian.Uint32(sum[:4])) < testShare*(1<<32) {
		return SplitTest
	}
	return SplitTrain
}

// SplitFileName is the split file of a corpus directory.
const SplitFileName = "split.yaml"

// splitHeader heads split.yaml as AssignNew writes it.
const splitHeader = `# The frozen train/test split of the corpus (eval/README.md, "The split").
# One line per case: its key and its split. A case added to the corpus gets
# Assign(key) (the SHA-256 of the key, about 40% test) when it is added, with
# "make eval-split"; an entry never changes afterwards. "seen" marks the cases
# that were in the corpus before the split existed: they had been read while
# the rules were written, so they count as train.
`

// SplitFile is split.yaml: every case's key and split.
type SplitFile map[string]Split

// readSplitFile reads dir/split.yaml; a missing file is nil, no error.
func readSplitFile(dir string) (SplitFile, error) {
	b, err := os.ReadFile(filepath.Join(dir, SplitFileName))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	sf := SplitFile{}
	if err := yaml.Unmarshal(b, &sf); err != nil {
		return nil, fmt.Errorf("%s: %w", SplitFileName, err)
	}
	return sf, nil
}

// write writes the split file to dir, keys sorted.
func (sf SplitFile) write(dir string) error {
	var b bytes.Buffer
	b.WriteString(splitHeader)
	keys := make([]string, 0, len(sf))
	for k := range sf {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(&b, "%s: %s\n", k, sf[k])
	}
	return os.WriteFile(filepath.Join(dir, SplitFileName), b.Bytes(), 0o644)
}

// caseKey is the split key of a bug case or near miss.
func caseKey(cs *Case) string {
	if cs.NearMiss {
		return "nearmiss/" + cs.Name
	}
	return "bugs/" + cs.Name
}

// ordinaryKey is the split key of an ordinary patch.
func ordinaryKey(o *Ordinary) string { return "ordinary/" + o.Name }

// applySplit sets each case's split from sf and reports cases missing from
// it, entries of no case, unknown values and entries that disagree with
// Assign. A corpus without a split file (nil sf) has every case split by
// Assign, with no problem: only the corpus of record must freeze its split.
func (c *Corpus) applySplit(sf SplitFile) {
	known := map[string]bool{}
	set := func(key string, dst *Split) {
		known[key] = true
		s, ok := sf[key]
		if sf == nil {
			*dst = Assign(key)
			return
		}
		if !ok {
			c.problem("%s: not in %s (run make eval-split)", key, SplitFileName)
			*dst = Assign(key)
			return
		}
		*dst = s
	}
	for _, cs := range c.Bugs {
		set(caseKey(cs), &cs.Split)
	}
	for _, cs := range c.NearMisses {
		set(caseKey(cs), &cs.Split)
	}
	for _, o := range c.Ordinary {
		set(ordinaryKey(o), &o.Split)
	}
	keys := make([]string, 0, len(sf))
	for k := range sf {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		s := sf[k]
		switch {
		case s != SplitTrain && s != SplitTest && s != SplitSeen:
			c.problem("%s: %s: split %q, want train, test or seen", SplitFileName, k, s)
		case !known[k]:
			c.problem("%s: %s: no such case", SplitFileName, k)
		case s != SplitSeen && s != Assign(k):
			c.problem("%s: %s: %s, but its key hashes to %s (the split is frozen by name: add cases with make eval-split)", SplitFileName, k, s, Assign(k))
		}
	}
}

// AssignNew adds every case of the corpus in dir that split.yaml lacks,
// with Assign, and writes the file. It returns the keys it added with
// their splits, sorted. Cases already listed keep their split.
func AssignNew(dir string) ([]string, error) {
	c, err := Load(dir)
	if err != nil {
		return nil, err
	}
	sf, err := readSplitFile(dir)
	if err != nil {
		return nil, err
	}
	if sf == nil {
		sf = SplitFile{}
	}
	var added []string
	add := func(key string) {
		if _, ok := sf[key]; !ok {
			sf[key] = Assign(key)
			added = append(added, key+": "+string(sf[key]))
		}
	}
	for _, cs := range c.Bugs {
		add(caseKey(cs))
	}
	for _, cs := range c.NearMisses {
		add(caseKey(cs))
	}
	for _, o := range c.Ordinary {
		add(ordinaryKey(o))
	}
	sort.Strings(added)
	if len(added) == 0 {
		return nil, nil
	}
	return added, sf.write(dir)
}

// FilterSplit keeps only the cases of split s ("" or "all": every case).
func (c *Corpus) FilterSplit(s string) error {
	switch s {
	case "", "all":
		return nil
	case string(SplitTrain), string(SplitTest):
	default:
		return fmt.Errorf("split %q: want train, test or all", s)
	}
	want := Split(s)
	keep := func(cs []*Case) []*Case {
		var out []*Case
		for _, x := range cs {
			if x.Split.Half() == want {
				out = append(out, x)
			}
		}
		return out
	}
	c.Bugs, c.NearMisses = keep(c.Bugs), keep(c.NearMisses)
	var ords []*Ordinary
	for _, o := range c.Ordinary {
		if o.Split.Half() == want {
			ords = append(ords, o)
		}
	}
	c.Ordinary = ords
	if want == SplitTest {
		c.Variants = nil
	}
	return nil
}
