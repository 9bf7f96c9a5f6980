package eval

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Expect is what a bug case's analysis must report.
type Expect struct {
	// Severity is the expected severity ("risk").
	Severity string `yaml:"severity"`
	// Function is the function the finding must name (its Func).
	Function string `yaml:"function"`
	// File is the file of the finding (optional).
	File string `yaml:"file"`
	// Category is the finding's sub-check (optional).
	Category string `yaml:"category"`
	// Alt are other functions the finding may name instead (optional):
	// functions the patch changes on the same chain, e.g. a new helper
	// that sleeps and the function that now calls it under the lock.
	Alt []string `yaml:"alt"`
}

// names reports whether fn is the expected function or one of its Alt.
func (e Expect) names(fn string) bool { return fn == e.Function || slices.Contains(e.Alt, fn) }

// Manifest is a case.yaml: the fields of bug cases and near misses.
type Manifest struct {
	Family    string `yaml:"family"`
	Fix       string `yaml:"fix"`
	Fixes     string `yaml:"fixes"`
	Subject   string `yaml:"subject"`
	Subsystem string `yaml:"subsystem"`
	Mechanism string `yaml:"mechanism"`
	Summary   string `yaml:"summary"`
	Source    string `yaml:"source"`
	// InTree marks a near miss whose patch the tree already contains: it
	// reverse-applies, and the evaluation analyses it on top of its own
	// reversal, as it does ordinary patches.
	InTree bool   `yaml:"in_tree"`
	Expect Expect `yaml:"expect"`
}

// Case is one bug case or near miss.
type Case struct {
	// Name is "<family dir>/<case dir>".
	Name string
	// Dir is the case directory.
	Dir string
	// NearMiss is set for nearmiss/ cases.
	NearMiss bool
	// Family is the family of the case's directory.
	Family *Family
	Manifest
	// Bug is bug.patch (bug cases) or patch (near misses).
	Bug *PatchFile
	// Fix is fix.patch (bug cases only).
	Fix *PatchFile
	// Split is the case's split (split.yaml).
	Split Split
}

// Ordinary is one ordinary patch.
type Ordinary struct {
	// Name is the file name under ordinary/.
	Name string `yaml:"name"`
	// Upstream is the upstream commit id or "shape of: <subject>".
	Upstream string `yaml:"upstream"`
	// Kind is refactor, fix, cleanup, feature or backport.
	Kind string `yaml:"kind"`
	// Patch is the parsed file.
	Patch *PatchFile `yaml:"-"`
	// Split is the patch's split (split.yaml).
	Split Split `yaml:"-"`
}

// Corpus is a loaded corpus directory.
type Corpus struct {
	// Dir is the corpus root (eval/).
	Dir string
	// Vocab is the vocabulary the corpus was checked against.
	Vocab *Vocab
	// Bugs and NearMisses are sorted by Name.
	Bugs, NearMisses []*Case
	// Ordinary lists ordinary/index.yaml in file order.
	Ordinary []*Ordinary
	// Variants are the variant cases (variants/), sorted by Name.
	Variants []*Variant
	// Problems are what makes the corpus ill-formed; cases with a problem
	// that prevents evaluating them are left out of the lists above.
	Problems []error
}

// Load reads the corpus in dir. Missing bugs/, nearmiss/ or ordinary/
// directories are not an error; malformed cases are reported in
// Corpus.Problems.
func Load(dir string) (*Corpus, error) {
	v, err := LoadVocab()
	if err != nil {
		return nil, err
	}
	if st, err := os.Stat(dir); err != nil {
		return nil, fmt.Errorf("corpus: %w", err)
	} else if !st.IsDir() {
		return nil, fmt.Errorf("corpus %s: not a directory", dir)
	}
	c := &Corpus{Dir: dir, Vocab: v}
	c.Bugs = c.loadCases(filepath.Join(dir, "bugs"), false)
	c.NearMisses = c.loadCases(filepath.Join(dir, "nearmiss"), true)
	c.loadOrdinary(filepath.Join(dir, "ordinary"))
	c.Variants = c.loadVariants(filepath.Join(dir, "variants"))
	sf, err := readSplitFile(dir)
	if err != nil {
		c.problem("%w", err)
	}
	c.applySplit(sf)
	return c, nil
}

func (c *Corpus) problem(format string, args ...any) {
	c.Problems = append(c.Problems, fmt.Errorf(format, args...))
}

// loadCases reads every <family>/<case>/ under root.
func (c *Corpus) loadCases(root string, nearMiss bool) []*Case {
	fams, err := os.ReadDir(root)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		c.problem("%w", err)
		return nil
	}
	var out []*Case
	for _, fd := range fams {
		if !fd.IsDir() {
			continue
		}
		fam := c.Vocab.Families[fd.Name()]
		if fam == nil {
			c.problem("%s: unknown family directory (known: %v)", filepath.Join(root, fd.Name()), sortedKeys(c.Vocab.Families))
			continue
		}
		cases, err := os.ReadDir(filepath.Join(root, fd.Name()))
		if err != nil {
			c.problem("%w", err)
			continue
		}
		for _, cd := range cases {
			if !cd.IsDir() {
				continue
			}
			cs := &Case{Name: fd.Name() + "/" + cd.Name(), Dir: filepath.Join(root, fd.Name(), cd.Name()), NearMiss: nearMiss, Family: fam}
			if c.loadCase(cs) {
				out = append(out, cs)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

var (
	hexIDRE = regexp.MustCompile(`^[0-9a-f]{12,40}$`)
	identRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
)

// validID reports whether s is a commit id or a "shape of: <subject>".
func validID(s string) bool {
	if rest, ok := strings.CutPrefix(s, "shape of:"); ok {
		return strings.TrimSpace(rest) != ""
	}
	return hexIDRE.MatchString(s)
}

// loadCase reads and checks one case; it returns false when the case
// cannot be evaluated.
func (c *Corpus) loadCase(cs *Case) bool {
	where := cs.Dir
	b, err := os.ReadFile(filepath.Join(cs.Dir, "case.yaml"))
	if err != nil {
		c.problem("%s: %w", where, err)
		return false
	}
	if err := yaml.Unmarshal(b, &cs.Manifest); err != nil {
		c.problem("%s/case.yaml: %w", where, err)
		return false
	}
	m := &cs.Manifest
	ok := true
	if m.Family != cs.Family.Rule {
		c.problem("%s: family %q, want %q (the rule of directory %s)", where, m.Family, cs.Family.Rule, cs.Family.Dir)
	}
	if !cs.Family.HasMechanism(m.Mechanism) {
		c.problem("%s: mechanism %q is not in the %s vocabulary", where, m.Mechanism, cs.Family.Dir)
	}
	for field, v := range map[string]string{"subsystem": m.Subsystem, "summary": m.Summary} {
		if strings.TrimSpace(v) == "" {
			c.problem("%s: %s missing", where, field)
		}
	}
	patchName := "bug.patch"
	if cs.NearMiss {
		patchName = "patch"
		if strings.TrimSpace(m.Source) == "" {
			c.problem("%s: source missing", where)
		}
		if m.InTree {
			patchName = "patch"
		}
	} else {
		if m.InTree {
			c.problem("%s: in_tree is for near misses", where)
		}
		if !validID(m.Fix) {
			c.problem("%s: fix %q is neither a 12+ hex commit id nor \"shape of: <subject>\"", where, m.Fix)
		}
		if m.Fixes != "" && !validID(m.Fixes) {
			c.problem("%s: fixes %q is neither a 12+ hex commit id nor \"shape of: <subject>\"", where, m.Fixes)
		}
		if strings.TrimSpace(m.Subject) == "" {
			c.problem("%s: subject missing", where)
		}
		if m.Expect.Severity != "risk" && m.Expect.Severity != "note" {
			c.problem("%s: expect.severity %q, want risk or note", where, m.Expect.Severity)
		}
		if !identRE.MatchString(m.Expect.Function) {
			c.problem("%s: expect.function %q is not a C identifier", where, m.Expect.Function)
			ok = false
		}
		for _, a := range m.Expect.Alt {
			if !identRE.MatchString(a) {
				c.problem("%s: expect.alt %q is not a C identifier", where, a)
			}
		}
	}
	if cs.Bug, err = readPatchFile(filepath.Join(cs.Dir, patchName)); err != nil {
		c.problem("%s: %w", where, err)
		ok = false
	}
	if !cs.NearMiss {
		if cs.Fix, err = readPatchFile(filepath.Join(cs.Dir, "fix.patch")); err != nil {
			c.problem("%s: %w", where, err)
			ok = false
		} else if cs.Fix.Subject == "" || cs.Fix.Headers["Subject"] == "" {
			c.problem("%s: fix.patch has no Subject header (want git format-patch form)", where)
		}
	}
	return ok
}

// readPatchFile reads and splits one patch file.
func readPatchFile(path string) (*PatchFile, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	p, err := ParsePatchFile(string(b))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Base(path), err)
	}
	return p, nil
}

// loadOrdinary reads ordinary/index.yaml and the patches it lists.
func (c *Corpus) loadOrdinary(dir string) {
	b, err := os.ReadFile(filepath.Join(dir, "index.yaml"))
	if errors.Is(err, os.ErrNotExist) {
		if ents, _ := os.ReadDir(dir); len(ents) > 0 {
			c.problem("%s: patches without index.yaml", dir)
		}
		return
	}
	if err != nil {
		c.problem("%w", err)
		return
	}
	var list []*Ordinary
	if err := yaml.Unmarshal(b, &list); err != nil {
		c.problem("%s/index.yaml: %w", dir, err)
		return
	}
	listed := map[string]bool{}
	for i, o := range list {
		where := fmt.Sprintf("%s/index.yaml entry %d (%s)", dir, i+1, o.Name)
		if o.Name == "" || strings.ContainsAny(o.Name, `/\`) || !strings.HasSuffix(o.Name, ".patch") {
			c.problem("%s: name must be a .patch file name in ordinary/", where)
			continue
		}
		if listed[o.Name] {
			c.problem("%s: listed twice", where)
			continue
		}
		listed[o.Name] = true
		if !validID(o.Upstream) {
			c.problem("%s: upstream %q is neither a 12+ hex commit id nor \"shape of: <subject>\"", where, o.Upstream)
		}
		if !slices.Contains(c.Vocab.OrdinaryKinds, o.Kind) {
			c.problem("%s: kind %q, want one of %v", where, o.Kind, c.Vocab.OrdinaryKinds)
		}
		if o.Patch, err = readPatchFile(filepath.Join(dir, o.Name)); err != nil {
			c.problem("%s: %w", where, err)
			continue
		}
		c.Ordinary = append(c.Ordinary, o)
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		c.problem("%w", err)
		return
	}
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".patch") && !listed[e.Name()] {
			c.problem("%s/%s: not listed in index.yaml", dir, e.Name())
		}
	}
}
