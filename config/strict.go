package config

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// Strict configuration: every key of a configuration file and every
// AUTOSEL_BOT_* environment variable must name a setting, and a value
// that cannot be decoded names where it came from. Unknown keys are most
// often typos ("chekc:", "watch: {imapp: ...}"), which a lenient loader
// silently ignores.

// EnvPrefix is the prefix of environment variables that set keys.
const EnvPrefix = "AUTOSEL_BOT_"

// keyKind is what a known key holds.
type keyKind int

const (
	kindLeaf    keyKind = iota // a scalar or a list of scalars
	kindSection                // a struct: its keys are known
	kindList                   // a list of structs: items' keys are "key[].x"
	kindOpen                   // a map or free-form value: anything below
)

// Schema is the set of known configuration keys, dotted ("watch.imap";
// items of a list of structs as "watch.imap[].addr").
type Schema struct {
	keys map[string]keyKind
}

// NewSchema returns the keys of Config, from their mapstructure tags.
func NewSchema() *Schema {
	s := &Schema{keys: map[string]keyKind{}}
	s.addStruct("", reflect.TypeFor[Config]())
	return s
}

var durationType = reflect.TypeFor[time.Duration]()

func (s *Schema) addStruct(prefix string, t reflect.Type) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, opts, _ := strings.Cut(f.Tag.Get("mapstructure"), ",")
		if name == "-" {
			continue
		}
		if strings.Contains(opts, "squash") {
			s.addStruct(prefix, f.Type)
			continue
		}
		if name == "" {
			name = strings.ToLower(f.Name)
		}
		key := name
		if prefix != "" {
			key = prefix + "." + name
		}
		s.addType(key, f.Type)
	}
}

func (s *Schema) addType(key string, t reflect.Type) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case t == durationType || t == reflect.TypeFor[time.Time]():
		s.keys[key] = kindLeaf
	case t.Kind() == reflect.Struct:
		s.keys[key] = kindSection
		s.addStruct(key, t)
	case t.Kind() == reflect.Slice && elem(t).Kind() == reflect.Struct && elem(t) != durationType:
		s.keys[key] = kindList
		s.addStruct(key+"[]", elem(t))
	case t.Kind() == reflect.Map || t.Kind() == reflect.Interface:
		s.keys[key] = kindOpen
	default:
		s.keys[key] = kindLeaf
	}
}

func elem(t reflect.Type) reflect.Type {
	e := t.Elem()
	for e.Kind() == reflect.Pointer {
		e = e.Elem()
	}
	return e
}

// Keys returns the known keys, sorted.
func (s *Schema) Keys() []string {
	out := make([]string, 0, len(s.keys))
	for k := range s.keys {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// UnknownKeyError is a configuration key (or environment variable) that
// names no setting.
type UnknownKeyError struct {
	// Source is where it was found: "FILE:LINE" or "environment".
	Source string
	// Key is the unknown key as written ("watch.imapp") or the
	// environment variable's name.
	Key string
	// Suggest is the closest known key (or variable), if any is close.
	Suggest string
}

// Error implements error.
func (e *UnknownKeyError) Error() string {
	var s string
	if e.Source == "environment" {
		s = fmt.Sprintf("environment variable %s names no configuration key", e.Key)
	} else {
		s = fmt.Sprintf("config file %s: unknown key %q", e.Source, e.Key)
	}
	if e.Suggest != "" {
		s += fmt.Sprintf(" (did you mean %q?)", e.Suggest)
	}
	return s
}

// checkYAML reports every unknown key of a YAML configuration document
// (name is used in the errors). Lines index the keys found, for naming
// where a bad value came from.
func (s *Schema) checkYAML(name string, data []byte, lines map[string]int) error {
	var doc yaml.Node
	if err := yaml.NewDecoder(bytes.NewReader(data)).Decode(&doc); err != nil {
		if errors.Is(err, errEOF) || strings.Contains(err.Error(), "EOF") {
			return nil
		}
		return fmt.Errorf("config %s: %w", name, err)
	}
	if len(doc.Content) == 0 {
		return nil
	}
	var errs []error
	s.walk(name, doc.Content[0], "", "", lines, &errs)
	return errors.Join(errs...)
}

var errEOF = errors.New("EOF")

// walk checks the keys of mapping n found under key prefix (schema path
// spath: list items are "[]").
func (s *Schema) walk(file string, n *yaml.Node, prefix, spath string, lines map[string]int, errs *[]error) {
	if n.Kind != yaml.MappingNode {
		return
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		key, sk := k.Value, k.Value
		if prefix != "" {
			key, sk = prefix+"."+k.Value, spath+"."+k.Value
		}
		kind, ok := s.keys[sk]
		if !ok {
			*errs = append(*errs, &UnknownKeyError{Source: fmt.Sprintf("%s:%d", file, k.Line), Key: key, Suggest: s.closest(sk)})
			continue
		}
		if lines != nil {
			lines[strings.ToLower(key)] = k.Line
		}
		switch kind {
		case kindSection:
			s.walk(file, v, key, sk, lines, errs)
		case kindList:
			if v.Kind == yaml.SequenceNode {
				for j, item := range v.Content {
					s.walk(file, item, fmt.Sprintf("%s[%d]", key, j), sk+"[]", lines, errs)
				}
			}
		}
	}
}

// checkEnv reports every AUTOSEL_BOT_* variable in environ that sets no
// key.
func (s *Schema) checkEnv(environ []string) error {
	known := map[string]bool{}
	var names []string
	for k, kind := range s.keys {
		if strings.Contains(k, "[]") || kind == kindSection {
			continue
		}
		n := envName(k)
		known[n] = true
		names = append(names, n)
	}
	sort.Strings(names)
	var errs []error
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if !strings.HasPrefix(name, EnvPrefix) || known[name] {
			continue
		}
		errs = append(errs, &UnknownKeyError{Source: "environment", Key: name, Suggest: closestOf(name, names)})
	}
	return errors.Join(errs...)
}

// envName is the environment variable that sets key.
func envName(key string) string {
	return EnvPrefix + strings.ToUpper(strings.ReplaceAll(key, ".", "_"))
}

// closest is the known key nearest to sk: among its siblings first, then
// among all keys.
func (s *Schema) closest(sk string) string {
	parent := ""
	if i := strings.LastIndexByte(sk, '.'); i >= 0 {
		parent = sk[:i]
	}
	var siblings, all []string
	for k := range s.keys {
		all = append(all, k)
		p := ""
		if i := strings.LastIndexByte(k, '.'); i >= 0 {
			p = k[:i]
		}
		if p == parent {
			siblings = append(siblings, k)
		}
	}
	sort.Strings(siblings)
	sort.Strings(all)
	if c := closestOf(sk, siblings); c != "" {
		return c
	}
	return closestOf(sk, all)
}

// closestOf returns the candidate with the smallest edit distance to s,
// if it is close enough to be a typo (at most a third of s, at least 2).
func closestOf(s string, candidates []string) string {
	best, bestD := "", -1
	for _, c := range candidates {
		d := editDistance(strings.ToLower(s), strings.ToLower(c))
		if bestD < 0 || d < bestD {
			best, bestD = c, d
		}
	}
	if bestD < 0 || bestD > max(2, len(s)/3) {
		return ""
	}
	return best
}

// editDistance is the Damerau-Levenshtein (optimal string alignment)
// distance: insertions, deletions, substitutions and swaps of two
// neighbours ("chekc") cost 1.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}

// Sources says where each key's value came from, for error messages.
type Sources struct {
	// File is the --config file ("" when none) and FileLines the line of
	// each key set in it (lower-case dotted keys).
	File      string
	FileLines map[string]int
	// Environ is the process environment.
	Environ []string
}

// Of names where key's value came from: an environment variable, the
// --config file (with the line), or the built-in defaults.
func (s *Sources) Of(key string) string {
	key = strings.ToLower(key)
	name := envName(key)
	for _, kv := range s.Environ {
		if n, _, _ := strings.Cut(kv, "="); n == name {
			return "environment variable " + name
		}
	}
	if s.File != "" {
		if l, ok := s.FileLines[key]; ok {
			return fmt.Sprintf("config file %s:%d", s.File, l)
		}
	}
	return "built-in defaults (config.yaml)"
}

// decodeKeyRe finds the key a mapstructure decoding error names.
var decodeKeyRe = regexp.MustCompile(`'([A-Za-z0-9_.\[\]]+)'`)

// valueError rewrites a decoding error so that each bad key says where
// its value came from.
func (s *Sources) valueError(err error) error {
	msg := err.Error()
	var lines []string
	for _, l := range strings.Split(msg, "\n") {
		l = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(l), "*"))
		if l == "" || strings.HasPrefix(l, "decoding failed") || strings.HasSuffix(l, "error(s) decoding:") {
			continue
		}
		if m := decodeKeyRe.FindStringSubmatch(l); m != nil {
			l = fmt.Sprintf("%s: %s", s.Of(m[1]), l)
		}
		lines = append(lines, l)
	}
	if len(lines) == 0 {
		return err
	}
	return fmt.Errorf("bad configuration value: %s", strings.Join(lines, "; "))
}
