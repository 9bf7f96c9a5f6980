package sleep

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/rules/lockctx"
)

// fileSleepRow lists primitives that sleep depending on the file calling
// them (the "file_sleep" rows of the table): they sleep when the file
// calls one of the Setup calls (names or prefixes: the file creates the
// object they work on, such as a regmap on a sleeping bus) and its source
// holds none of the Unless texts (whitespace-insensitive: ".fast_io =
// true", an MMIO regmap).
type fileSleepRow struct {
	Names  []string `yaml:"names"`
	Setup  []string `yaml:"setup"`
	Unless []string `yaml:"unless"`
	Why    string   `yaml:"why"`
}

// fileSleepFacts are the facts of one file for each file_sleep row: the
// setup call found (with its line) when the row's primitives sleep there,
// noSleepSetup when the file sets up their object so that they do not,
// "" when it sets up none.
type fileSleepFacts []string

// noSleepSetup is a fileSleepFacts entry of a file whose setup call does
// not make the row's primitives sleep (an Unless text holds).
const noSleepSetup = "-"

// compileFileSleep indexes the rows by primitive name.
func (m *sleeper) compileFileSleep(rows []fileSleepRow) error {
	m.fileSleep = rows
	m.fileSleepOf = map[string]int{}
	for i, r := range rows {
		if len(r.Setup) == 0 || r.Why == "" {
			return fmt.Errorf("sleep.file_sleep[%d]: needs setup and why", i)
		}
		for _, n := range r.Names {
			m.fileSleepOf[n] = i
		}
	}
	return nil
}

// FileDependent reports whether c is a file_sleep primitive.
func (m *sleeper) FileDependent(c cscan.Call) bool {
	_, ok := m.fileSleepOf[c.Name]
	return ok
}

// FileFacts finds, per row, the first setup call of a file whose source
// holds none of the row's Unless texts.
func (m *sleeper) FileFacts(path string, src []byte) any {
	facts := make(fileSleepFacts, len(m.fileSleep))
	var flat []byte
	for i, r := range m.fileSleep {
		setup, line := firstSetupCall(src, r.Setup)
		if setup == "" {
			continue
		}
		if flat == nil {
			flat = lockctx.Flatten(src)
		}
		facts[i] = noSleepSetup
		if !lockctx.FlatHoldsAny(flat, r.Unless) {
			facts[i] = setup + " at " + path + ":" + line
		}
	}
	return facts
}

// firstSetupCall returns "name()" and the line of the first call in src to
// one of names ("foo" exactly, "foo*" as a prefix), "" when there is none.
func firstSetupCall(src []byte, names []string) (string, string) {
	for i := 0; i < len(src); i++ {
		if !cscan.IsIdentChar(src[i]) || i > 0 && cscan.IsIdentChar(src[i-1]) {
			continue
		}
		j := i
		for j < len(src) && cscan.IsIdentChar(src[j]) {
			j++
		}
		word := string(src[i:j])
		k := j
		for k < len(src) && (src[k] == ' ' || src[k] == '\t') {
			k++
		}
		if k < len(src) && src[k] == '(' && setupMatch(word, names) {
			return word + "()", fmt.Sprint(1 + bytes.Count(src[:i], []byte("\n")))
		}
		i = j
	}
	return "", ""
}

func setupMatch(word string, names []string) bool {
	for _, n := range names {
		if p, ok := strings.CutSuffix(n, "*"); ok {
			if strings.HasPrefix(word, p) {
				return true
			}
		} else if word == n {
			return true
		}
	}
	return false
}

// ReachesIn reports whether file_sleep primitive c sleeps in a file with
// those facts.
func (m *sleeper) ReachesIn(c cscan.Call, facts any) (string, bool) {
	i, ok := m.fileSleepOf[c.Name]
	f, _ := facts.(fileSleepFacts)
	if !ok || i >= len(f) || f[i] == "" || f[i] == noSleepSetup {
		return "", false
	}
	return m.fileSleep[i].Why + " (set up by " + f[i] + ")", true
}

// Undecided reports whether file_sleep primitive c is left open by a file
// with those facts: the file makes no setup call of c's row.
func (m *sleeper) Undecided(c cscan.Call, facts any) bool {
	i, ok := m.fileSleepOf[c.Name]
	f, _ := facts.(fileSleepFacts)
	return ok && i < len(f) && f[i] == ""
}
