package sleep

import (
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/autosel-bot/autosel-bot/rules"
)

// TestReadFilesAsSequential: argSites' concurrent reads fill the patch's
// caches with what reading the files one by one gives (the same word sets,
// the same argument uses of the same functions), for a directory of the
// kernel in which a file passes the name searched for.
func TestReadFilesAsSequential(t *testing.T) {
	_, ix := kernelIndexFor(t)
	var files []string
	for _, p := range ix.Paths() {
		if strings.HasPrefix(p, "kernel/time/") && strings.HasSuffix(p, ".c") && !strings.Contains(p[len("kernel/time/"):], "/") {
			files = append(files, p)
		}
	}
	sort.Strings(files)
	if len(files) < 10 {
		t.Fatalf("kernel/time has %d C files", len(files))
	}
	// timer.c passes process_timeout to timer_setup_on_stack().
	const name = "process_timeout"
	seq := &checker{p: &rules.Pass{Index: ix}}
	for _, p := range files {
		if seq.spells(p, name) {
			seq.argUsesOf(p)
		}
	}
	par := &checker{p: &rules.Pass{Index: ix}}
	par.readFiles(files, name)
	if len(par.words) != len(files) {
		t.Errorf("read %d of %d files' words", len(par.words), len(files))
	}
	for _, p := range files {
		if !reflect.DeepEqual(par.words[p], seq.words[p]) {
			t.Errorf("%s: words differ", p)
		}
	}
	if !reflect.DeepEqual(par.argUses, seq.argUses) {
		t.Errorf("argument uses differ: read for %d files, one by one for %d", len(par.argUses), len(seq.argUses))
	}
	if len(seq.argUses["kernel/time/timer.c"][name]) == 0 {
		t.Fatal("timer.c: no argument use of process_timeout found")
	}
	// A second name: the words are not read again, and the arguments of
	// the files that spell it are read as one by one.
	const name2 = "clockevents_program_event"
	for _, p := range files {
		if seq.spells(p, name2) {
			seq.argUsesOf(p)
		}
	}
	before := len(par.argUses)
	par.readFiles(files, name2)
	if len(par.words) != len(files) {
		t.Errorf("a second search reads again: %d word sets", len(par.words))
	}
	if !reflect.DeepEqual(par.argUses, seq.argUses) {
		t.Errorf("second name: argument uses read for %d files, one by one for %d", len(par.argUses), len(seq.argUses))
	}
	if len(par.argUses) == before {
		t.Errorf("second name: no file's arguments read (%d before and after)", before)
	}
}
