package runner

import (
	"bufio"
	"bytes"
	_ "embed"
	"fmt"
	"strings"
)

// baseFragment is the config fragment merged over `make tinyconfig`.
//
//go:embed kconfig/autosel.config
var baseFragment []byte

// kconfigOption is one CONFIG_ assignment of a fragment or .config.
type kconfigOption struct {
	Name  string
	Value string // "n" for "# CONFIG_X is not set"
}

// parseKconfig reads CONFIG_X=v and "# CONFIG_X is not set" lines.
func parseKconfig(b []byte) []kconfigOption {
	var out []kconfigOption
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		l := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(l, "# CONFIG_") && strings.HasSuffix(l, " is not set") {
			out = append(out, kconfigOption{Name: strings.TrimSuffix(l[2:], " is not set"), Value: "n"})
			continue
		}
		if !strings.HasPrefix(l, "CONFIG_") {
			continue
		}
		name, val, ok := strings.Cut(l, "=")
		if ok {
			out = append(out, kconfigOption{Name: name, Value: val})
		}
	}
	return out
}

// missingOptions lists the fragment options that did not survive into
// the final .config (a dependency was missing, or the option does not
// exist in this tree), as "CONFIG_X=y (got n)".
func missingOptions(fragment, dotconfig []byte) []string {
	have := map[string]string{}
	for _, o := range parseKconfig(dotconfig) {
		have[o.Name] = o.Value
	}
	var out []string
	for _, o := range parseKconfig(fragment) {
		got, ok := have[o.Name]
		if !ok {
			got = "n"
		}
		if got != o.Value {
			out = append(out, fmt.Sprintf("%s=%s (got %s)", o.Name, o.Value, got))
		}
	}
	return out
}
