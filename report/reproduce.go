package report

import "strings"

// Where a Reproduce.Base came from.
const (
	// BaseCommit: the series' base-commit (git format-patch --base), read
	// from the tree's git objects.
	BaseCommit = "base-commit"
	// BaseRange: the base of the analysed range (check --range).
	BaseRange = "range"
	// BaseHead: the tree's working directory, whose HEAD was Base.
	BaseHead = "head"
)

// Reproduce says how to get a report again: what it was analysed
// against, by which version of the bot, and the command that gives the
// same result.
type Reproduce struct {
	// Base is the full hash of the commit the series was analysed against;
	// empty without a tree (patch-only) or when the tree is no git
	// checkout.
	Base string `json:"base,omitempty"`
	// BaseFrom says where Base came from: "base-commit" (git format-patch
	// --base), "range" (the base of check --range) or "head" (the tree's
	// working directory, at that HEAD).
	BaseFrom string `json:"base_from,omitempty"`
	// Tree names the tree analysed (its directory's name, never its path
	// on the bot's machine); empty for a patch-only analysis.
	Tree string `json:"tree,omitempty"`
	// Version is the bot's version.
	Version string `json:"version"`
	// Command is the command line that gives the same result.
	Command string `json:"command"`
}

// BaseText says what was analysed: "base-commit 0123456789ab",
// "the tree's HEAD at 0123456789ab (linux-6.1)", or that there was no
// tree.
func (r *Reproduce) BaseText() string {
	short := r.Base
	if len(short) > 12 {
		short = short[:12]
	}
	tree := ""
	if r.Tree != "" {
		tree = " (" + r.Tree + ")"
	}
	switch {
	case r.Tree == "":
		return "no tree: the patches alone (patch-only analysis)"
	case r.Base == "":
		return "the working directory of " + r.Tree + " (not a git checkout)"
	case r.BaseFrom == BaseCommit:
		return "base-commit " + short + tree
	case r.BaseFrom == BaseRange:
		return "the base of the range, " + short + tree
	}
	return "the tree's HEAD at " + short + tree
}

// Lines renders the reproduction as "base: ...", "bot: ..." and
// "command: ..." lines.
func (r *Reproduce) Lines() []string {
	v := r.Version
	if v == "" {
		v = "unknown"
	}
	return []string{
		"base: " + r.BaseText(),
		"bot: autosel-bot " + v,
		"command: " + r.Command,
	}
}

// CheckCommand is the check command line that analyses the series whose
// Message-ID is msgID (a file stands in for a series without a real one)
// on the named tree ("" for none) with the given suppressions.
func CheckCommand(msgID, tree string, ignore []string) string {
	var b strings.Builder
	b.WriteString("autosel-bot check ")
	if msgID == "" || strings.HasSuffix(msgID, ".invalid") {
		b.WriteString("PATCH-FILE")
	} else {
		b.WriteString(shellWord(msgID))
	}
	if tree != "" {
		b.WriteString(" --tree " + shellWord(tree))
	}
	for _, ig := range ignore {
		b.WriteString(" --ignore " + shellWord(ig))
	}
	return b.String()
}

// ShellLine joins words into a command line a shell reads back as them.
func ShellLine(words []string) string {
	out := make([]string, len(words))
	for i, w := range words {
		out[i] = shellWord(w)
	}
	return strings.Join(out, " ")
}

// shellWord quotes w for a POSIX shell when it needs it.
func shellWord(w string) string {
	if w != "" && strings.IndexFunc(w, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("@%+=:,./_-", r))
	}) < 0 {
		return w
	}
	return "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
}
