package suppress

import (
	"strings"
	"testing"

	"github.com/autosel-bot/autosel-bot/report"
)

var known = Known{
	"sleep-in-atomic": {"sleep-in-atomic", "sleep-needs-tree"},
	"wakeup":          {"wakeup-exclusive", "lost-wakeup"},
}

func TestParseSpec(t *testing.T) {
	tests := []struct {
		in, want, err string
	}{
		{"sleep-in-atomic", "sleep-in-atomic", ""},
		{" wakeup/lost-wakeup ", "wakeup/lost-wakeup", ""},
		{"Wakeup/Lost-Wakeup", "wakeup/lost-wakeup", ""},
		{"lost-wakeup", "wakeup/lost-wakeup", ""},
		{"sleep-in-atomic/sleep-in-atomic", "sleep-in-atomic/sleep-in-atomic", ""},
		{"", "", "empty"},
		{"wakeup/", "", "RULE/CATEGORY"},
		{"/lost-wakeup", "", "RULE/CATEGORY"},
		{"wakeup/lost wakeup", "", "letters, digits"},
		{"a/b/c", "", "letters, digits"},
		{"bogus", "", `no rule "bogus"`},
		{"wakeup/bogus", "", `no category "bogus"`},
	}
	for _, tc := range tests {
		sp, err := ParseSpec(tc.in, "--ignore")
		if err == nil {
			sp, err = known.Resolve(sp)
		}
		switch {
		case tc.err != "":
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: error %v, want one saying %q", tc.in, err, tc.err)
			}
		case err != nil:
			t.Errorf("%q: %v", tc.in, err)
		case sp.String() != tc.want || sp.Source != "--ignore":
			t.Errorf("%q: %q from %q, want %q", tc.in, sp.String(), sp.Source, tc.want)
		}
	}
	specs, err := ParseSpecs([]string{"wakeup/lost-wakeup,sleep-in-atomic", "wakeup"}, "check.ignore")
	if err != nil || len(specs) != 3 || specs[1].Rule != "sleep-in-atomic" {
		t.Errorf("ParseSpecs: %v %v", specs, err)
	}
	if _, err := ParseSpecs([]string{"ok", "bad name"}, "check.ignore"); err == nil || !strings.HasPrefix(err.Error(), "check.ignore ") {
		t.Errorf("ParseSpecs error %v does not name its source", err)
	}
}

func TestSpecMatches(t *testing.T) {
	lost := &report.Finding{Rule: "wakeup", Category: "lost-wakeup"}
	excl := &report.Finding{Rule: "wakeup", Category: "wakeup-exclusive"}
	sleep := &report.Finding{Rule: "sleep-in-atomic"}
	for _, tc := range []struct {
		spec Spec
		f    *report.Finding
		want bool
	}{
		{Spec{Rule: "wakeup"}, lost, true},
		{Spec{Rule: "wakeup"}, sleep, false},
		{Spec{Rule: "wakeup", Category: "lost-wakeup"}, lost, true},
		{Spec{Rule: "wakeup", Category: "lost-wakeup"}, excl, false},
		{Spec{Rule: "sleep-in-atomic", Category: "sleep-in-atomic"}, sleep, true},
	} {
		if got := tc.spec.Matches(tc.f); got != tc.want {
			t.Errorf("%s matches %s/%s: %v", tc.spec, tc.f.Rule, tc.f.Category, got)
		}
	}
}

func TestParseFile(t *testing.T) {
	data := "# known-safe constructs of this tree\n" +
		"\n" +
		"gsm_send   sleep-in-atomic   the timer is deleted before the mutex is taken\r\n" +
		"drivers/tty/n_gsm.c:gsm_dlci_*  wakeup/lost-wakeup  one waiter by design\n" +
		"lonely_function sleep-in-atomic\n" +
		"f bad!rule reason\n" +
		":f wakeup reason\n" +
		"f[ wakeup reason\n"
	es, errs := ParseFile(FileName, []byte(data))
	if len(es) != 2 {
		t.Fatalf("entries %+v", es)
	}
	if es[0].Func != "gsm_send" || es[0].Spec.String() != "sleep-in-atomic" || es[0].Reason != "the timer is deleted before the mutex is taken" || es[0].Line != 3 {
		t.Errorf("entry 1 %+v", es[0])
	}
	if es[1].File != "drivers/tty/n_gsm.c" || es[1].Func != "gsm_dlci_*" || es[1].Spec.Category != "lost-wakeup" || es[1].Line != 4 {
		t.Errorf("entry 2 %+v", es[1])
	}
	var got []string
	for _, e := range errs {
		got = append(got, e.Error())
	}
	want := []string{".autosel-ignore:5: ", ".autosel-ignore:6: ", ".autosel-ignore:7: ", ".autosel-ignore:8: "}
	if len(got) != len(want) {
		t.Fatalf("errors %q", got)
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("error %q, want it to start with %q", got[i], want[i])
		}
	}
	if !strings.Contains(got[0], "function  rule/category  reason") {
		t.Errorf("a line without a reason: %q", got[0])
	}
}

func TestSetMatch(t *testing.T) {
	es, errs := ParseFile(FileName, []byte("drivers/tty/n_gsm.c:gsm_*  sleep-in-atomic  safe\nother  wakeup  fine\n"))
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	set := &Set{Specs: []Spec{{Rule: "wakeup", Category: "lost-wakeup", Source: "--ignore"}}, Entries: es}
	for _, tc := range []struct {
		f      report.Finding
		by     string
		inTree bool
	}{
		{report.Finding{Rule: "sleep-in-atomic", File: "drivers/tty/n_gsm.c", Func: "gsm_send"}, ".autosel-ignore:1", true},
		{report.Finding{Rule: "sleep-in-atomic", File: "drivers/tty/other.c", Func: "gsm_send"}, "", false},
		{report.Finding{Rule: "wakeup", Category: "lost-wakeup", File: "fs/pipe.c", Func: "other"}, "--ignore wakeup/lost-wakeup", false},
		{report.Finding{Rule: "wakeup", Category: "wakeup-exclusive", File: "fs/pipe.c", Func: "other"}, ".autosel-ignore:2", true},
		{report.Finding{Rule: "wakeup", Category: "wakeup-exclusive", File: "fs/pipe.c", Func: "others"}, "", false},
	} {
		by, reason, inTree, ok := set.Match(&tc.f, nil)
		if by != tc.by || ok != (tc.by != "") || inTree != tc.inTree {
			t.Errorf("%s %s(): by %q (%q, in tree %v), want %q", tc.f.File, tc.f.Func, by, reason, inTree, tc.by)
		}
	}
	if !(&Set{}).Empty() || set.Empty() {
		t.Error("Empty")
	}
}

func FuzzParseFile(f *testing.F) {
	f.Add("gsm_send sleep-in-atomic reason\n# c\n\nx:y wakeup/lost-wakeup r r\n")
	f.Add("a:b:c d/e f\r\n[ x y\n")
	f.Fuzz(func(t *testing.T, data string) {
		es, errs := ParseFile(FileName, []byte(data))
		for _, e := range es {
			if e.Func == "" || e.Reason == "" || e.Spec.Rule == "" || e.Line < 1 {
				t.Fatalf("incomplete entry %+v", e)
			}
		}
		for _, err := range errs {
			if !strings.HasPrefix(err.Error(), FileName+":") {
				t.Fatalf("error %q does not name the file", err)
			}
		}
	})
}
