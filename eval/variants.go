package eval

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"
)

// VariantManifest is a variant's case.yaml.
type VariantManifest struct {
	Family    string `yaml:"family"`
	Mechanism string `yaml:"mechanism"`
	// Axis is what the variant moves the mechanism's bug along (vocab.yaml
	// `axes`).
	Axis    string `yaml:"axis"`
	Summary string `yaml:"summary"`
	// OK says why ok.patch is correct (with ok.patch only).
	OK     string `yaml:"ok"`
	Expect Expect `yaml:"expect"`
}

// Variant is one variant case: a bug of a mechanism written along one axis
// (deeper, through an ops struct, with another waiting API...), as a patch
// to the tree written from kernel knowledge, with an optional correct
// counterpart. Variants are design targets, in neither split.
type Variant struct {
	// Name is "<family dir>/<mechanism>/<variant dir>".
	Name   string
	Dir    string
	Family *Family
	VariantManifest
	// Bug is bug.patch: applies to the tree and introduces the bug.
	Bug *PatchFile
	// OKPatch is ok.patch (nil when absent): the same edit made correctly.
	OKPatch *PatchFile
}

// loadVariants reads every <family>/<mechanism>/<variant>/ under root.
func (c *Corpus) loadVariants(root string) []*Variant {
	fams, err := os.ReadDir(root)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		c.problem("%w", err)
		return nil
	}
	var out []*Variant
	for _, fd := range fams {
		if !fd.IsDir() {
			continue
		}
		fam := c.Vocab.Families[fd.Name()]
		if fam == nil {
			c.problem("%s: unknown family directory (known: %v)", filepath.Join(root, fd.Name()), sortedKeys(c.Vocab.Families))
			continue
		}
		mechs, err := os.ReadDir(filepath.Join(root, fd.Name()))
		if err != nil {
			c.problem("%w", err)
			continue
		}
		for _, md := range mechs {
			if !md.IsDir() {
				continue
			}
			if !fam.HasMechanism(md.Name()) {
				c.problem("%s: mechanism %q is not in the %s vocabulary", filepath.Join(root, fd.Name(), md.Name()), md.Name(), fam.Dir)
				continue
			}
			vs, err := os.ReadDir(filepath.Join(root, fd.Name(), md.Name()))
			if err != nil {
				c.problem("%w", err)
				continue
			}
			for _, vd := range vs {
				if !vd.IsDir() {
					continue
				}
				v := &Variant{Name: fd.Name() + "/" + md.Name() + "/" + vd.Name(), Dir: filepath.Join(root, fd.Name(), md.Name(), vd.Name()), Family: fam}
				if c.loadVariant(v, md.Name(), vd.Name()) {
					out = append(out, v)
				}
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// loadVariant reads and checks one variant; false when it cannot be
// evaluated.
func (c *Corpus) loadVariant(v *Variant, mech, dir string) bool {
	where := v.Dir
	b, err := os.ReadFile(filepath.Join(v.Dir, "case.yaml"))
	if err != nil {
		c.problem("%s: %w", where, err)
		return false
	}
	if err := yaml.Unmarshal(b, &v.VariantManifest); err != nil {
		c.problem("%s/case.yaml: %w", where, err)
		return false
	}
	m := &v.VariantManifest
	ok := true
	if m.Family != v.Family.Rule {
		c.problem("%s: family %q, want %q (the rule of directory %s)", where, m.Family, v.Family.Rule, v.Family.Dir)
	}
	if m.Mechanism != mech {
		c.problem("%s: mechanism %q, but the directory is %s", where, m.Mechanism, mech)
	}
	if !slices.Contains(c.Vocab.Axes[v.Family.Dir], m.Axis) {
		c.problem("%s: axis %q is not in the %s axes %v", where, m.Axis, v.Family.Dir, c.Vocab.Axes[v.Family.Dir])
	} else if dir != m.Axis && !strings.HasPrefix(dir, m.Axis+"-") {
		c.problem("%s: directory %q is not axis %q or %q-<suffix>", where, dir, m.Axis, m.Axis)
	}
	if strings.TrimSpace(m.Summary) == "" {
		c.problem("%s: summary missing", where)
	}
	if m.Expect.Severity != "risk" && m.Expect.Severity != "note" {
		c.problem("%s: expect.severity %q, want risk or note", where, m.Expect.Severity)
	}
	if !identRE.MatchString(m.Expect.Function) {
		c.problem("%s: expect.function %q is not a C identifier", where, m.Expect.Function)
		ok = false
	}
	if v.Bug, err = readPatchFile(filepath.Join(v.Dir, "bug.patch")); err != nil {
		c.problem("%s: %w", where, err)
		ok = false
	}
	okPath := filepath.Join(v.Dir, "ok.patch")
	if _, err := os.Stat(okPath); err == nil {
		if v.OKPatch, err = readPatchFile(okPath); err != nil {
			c.problem("%s: %w", where, err)
			ok = false
		}
		if strings.TrimSpace(m.OK) == "" {
			c.problem("%s: ok.patch without an `ok:` line saying why it is correct", where)
		}
	}
	return ok
}
