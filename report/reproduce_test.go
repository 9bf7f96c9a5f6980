package report

import (
	"bytes"
	"strings"
	"testing"
)

func TestReproduce(t *testing.T) {
	const sha = "bb395d982449ad00d2227d13923176133477f6e2"
	for _, tc := range []struct {
		rp   Reproduce
		want string
	}{
		{Reproduce{}, "no tree: the patches alone (patch-only analysis)"},
		{Reproduce{Tree: "linux"}, "the working directory of linux (not a git checkout)"},
		{Reproduce{Tree: "linux", Base: sha, BaseFrom: BaseHead}, "the tree's HEAD at bb395d982449 (linux)"},
		{Reproduce{Tree: "linux", Base: sha, BaseFrom: BaseCommit}, "base-commit bb395d982449 (linux)"},
		{Reproduce{Tree: "linux", Base: sha, BaseFrom: BaseRange}, "the base of the range, bb395d982449 (linux)"},
	} {
		if got := tc.rp.BaseText(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.rp, got, tc.want)
		}
	}
	for _, tc := range []struct {
		id, tree string
		ignore   []string
		want     string
	}{
		{"20230811010309.20196-1-zhanghongchen@loongson.cn", "linux-6.1", nil, "autosel-bot check 20230811010309.20196-1-zhanghongchen@loongson.cn --tree linux-6.1"},
		{"x'y@example.org", "", []string{"wakeup/lost-wakeup"}, `autosel-bot check 'x'\''y@example.org' --ignore wakeup/lost-wakeup`},
		{"0123@autosel-bot.invalid", "t", nil, "autosel-bot check PATCH-FILE --tree t"},
	} {
		if got := CheckCommand(tc.id, tc.tree, tc.ignore); got != tc.want {
			t.Errorf("CheckCommand(%q): %q, want %q", tc.id, got, tc.want)
		}
	}
	r := sampleReports()[1]
	r.Reproduce = &Reproduce{Tree: "linux-6.1", Base: sha, BaseFrom: BaseHead, Version: "v9", Command: "autosel-bot check single@example.org --tree linux-6.1"}
	var b bytes.Buffer
	if err := WriteText(&b, []*Report{r}); err != nil {
		t.Fatal(err)
	}
	want := "reproduce:\n  base: the tree's HEAD at bb395d982449 (linux-6.1)\n  bot: autosel-bot v9\n  command: autosel-bot check single@example.org --tree linux-6.1\n"
	if !strings.Contains(b.String(), want) {
		t.Errorf("text lacks %q:\n%s", want, b.String())
	}
	b.Reset()
	if err := WriteMarkdown(&b, r, MarkdownOptions{}); err != nil {
		t.Fatal(err)
	}
	if want := "#### How to reproduce\n\n```\nbase: the tree's HEAD at bb395d982449 (linux-6.1)\n"; !strings.Contains(b.String(), want) {
		t.Errorf("markdown lacks %q:\n%s", want, b.String())
	}
}
