package config

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/keys.golden")

// TestKeys: the configuration keys are what users write in their files
// and AUTOSEL_BOT_* variables, so moving an options type between packages
// must not change them. A new or renamed key is a deliberate change:
// rewrite the golden file with -update (and document the key in
// config.yaml).
func TestKeys(t *testing.T) {
	golden := filepath.Join("testdata", "keys.golden")
	got := strings.Join(NewSchema().Keys(), "\n") + "\n"
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got == string(want) {
		return
	}
	have := map[string]bool{}
	for _, k := range strings.Fields(got) {
		have[k] = true
	}
	known := map[string]bool{}
	for _, k := range strings.Fields(string(want)) {
		known[k] = true
		if !have[k] {
			t.Errorf("key %s is gone", k)
		}
	}
	for k := range have {
		if !known[k] {
			t.Errorf("new key %s", k)
		}
	}
}
