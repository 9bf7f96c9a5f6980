package mailcmd

import (
	"strconv"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	body := "Thanks for the report.\n" +
		"#autosel ignore 0123456789ab the lock is dropped before, see foo()\n" +
		"> #autosel test quoted, not a command\n" +
		"  #autosel help  (indented: not a command)\n" +
		"#autoselect not a command\n" +
		"#autosel:test not a command\n" +
		"#autosel   TEST  v6.1  v5.15\r\n" +
		"#autosel\n" +
		"#autosel frobnicate x\x1b[31m\n"
	cs := Parse(body)
	var got []string
	for _, c := range cs {
		got = append(got, c.Verb+"|"+strings.Join(c.Args, ",")+"|"+strconv.Itoa(c.Line))
	}
	want := []string{
		"ignore|0123456789ab,the,lock,is,dropped,before,,see,foo()|2",
		"test|v6.1,v5.15|7",
		"||8",
		"frobnicate|x[31m|9",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if cs[0].Rest(1) != "the lock is dropped before, see foo()" || !cs[0].Known() || cs[3].Known() || cs[2].Known() {
		t.Errorf("rest %q / known", cs[0].Rest(1))
	}
	if cs[3].Text != "#autosel frobnicate x[31m" {
		t.Errorf("text %q", cs[3].Text)
	}
}

func TestParseLimits(t *testing.T) {
	body := strings.Repeat("#autosel help\n", 50) + "#autosel ignore " + strings.Repeat("w ", 100) + strings.Repeat("x", 5000)
	cs := Parse(body)
	if len(cs) != MaxCommands {
		t.Errorf("%d commands, want %d", len(cs), MaxCommands)
	}
	cs = Parse("#autosel ignore " + strings.Repeat("w ", 100) + strings.Repeat("é", 3000))
	if len(cs) != 1 || len(cs[0].Args) != MaxArgs || len(cs[0].Text) > MaxLine {
		t.Errorf("%d args, text of %d bytes", len(cs[0].Args), len(cs[0].Text))
	}
}

func TestHelpTextIsNoCommand(t *testing.T) {
	if cs := Parse(HelpText()); len(cs) != 0 {
		t.Errorf("the help text holds commands: %+v", cs)
	}
}

func FuzzParse(f *testing.F) {
	f.Add("#autosel ignore 0123456789ab reason\n> #autosel test\n#autosel\n")
	f.Add("#autosel\ttest\x00 v6.1\r\n#autosel \xff\xfe")
	f.Fuzz(func(t *testing.T, body string) {
		cs := Parse(body)
		if len(cs) > MaxCommands {
			t.Fatalf("%d commands", len(cs))
		}
		for _, c := range cs {
			if len(c.Args) > MaxArgs || len(c.Text) > MaxLine || !strings.HasPrefix(c.Text, Prefix) {
				t.Fatalf("command %+v", c)
			}
			if strings.ContainsAny(c.Text, "\n\r\x00\x1b") || strings.ContainsAny(c.Verb, " \t\n") {
				t.Fatalf("control characters in %+v", c)
			}
		}
	})
}
