// Package mailcmd reads the commands people give the bot by mail: lines
// starting with "#autosel" in a reply to the bot's mail or to a patch,
// like syzbot's "#syz" lines. Quoted lines ("> #autosel ...") and lines
// that do not start with the prefix are not commands.
package mailcmd

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Prefix starts a command line.
const Prefix = "#autosel"

// The verbs the bot knows.
const (
	// Test runs the VM suite (and the stable trees named) on the series.
	Test = "test"
	// Ignore stops reporting a finding for the series and its next
	// versions.
	Ignore = "ignore"
	// Unignore reports an ignored finding again.
	Unignore = "unignore"
	// Explain sends a finding's whole chain, interleaving and evidence.
	Explain = "explain"
	// Help lists the commands.
	Help = "help"
)

// Limits on what one mail can ask.
const (
	// MaxCommands bounds the commands read from one mail.
	MaxCommands = 10
	// MaxArgs bounds the words of one command after its verb.
	MaxArgs = 32
	// MaxLine bounds a command line's length (the rest is cut).
	MaxLine = 1000
)

// Command is one "#autosel verb args..." line.
type Command struct {
	// Verb is the command's first word, in lower case ("" when the line
	// is the prefix alone).
	Verb string
	// Args are the words after the verb.
	Args []string
	// Line is the command's 1-based line in the body.
	Line int
	// Text is the line as written (trimmed, control characters dropped,
	// cut at MaxLine).
	Text string
}

// Known reports whether the verb is one the bot knows.
func (c Command) Known() bool {
	switch c.Verb {
	case Test, Ignore, Unignore, Explain, Help:
		return true
	}
	return false
}

// Rest is the text after the first n arguments (a reason), white space
// collapsed.
func (c Command) Rest(n int) string {
	if n >= len(c.Args) {
		return ""
	}
	return strings.Join(c.Args[n:], " ")
}

// Parse returns the commands of a mail body, in order, at most
// MaxCommands: every line that starts with Prefix followed by white
// space or the end of the line. Lines of a quoted reply start with '>'
// and are never commands.
func Parse(body string) []Command {
	var out []Command
	for i, l := range strings.Split(body, "\n") {
		if len(out) == MaxCommands {
			break
		}
		if !strings.HasPrefix(l, Prefix) {
			continue
		}
		rest := l[len(Prefix):]
		if r, _ := utf8.DecodeRuneInString(rest); rest != "" && !unicode.IsSpace(r) {
			continue // "#autoselect", "#autosel:" are not commands
		}
		text := clean(l)
		words := strings.Fields(clean(rest))
		c := Command{Line: i + 1, Text: text}
		if len(words) > 0 {
			c.Verb = strings.ToLower(words[0])
			c.Args = words[1:]
			if len(c.Args) > MaxArgs {
				c.Args = c.Args[:MaxArgs]
			}
		}
		out = append(out, c)
	}
	return out
}

// clean trims s, drops control characters and invalid UTF-8, and cuts it
// at MaxLine bytes.
func clean(s string) string {
	s = strings.Map(func(r rune) rune {
		if r == utf8.RuneError || (unicode.IsControl(r) && r != '\t') {
			return -1
		}
		return r
	}, s)
	s = strings.TrimSpace(s)
	if len(s) > MaxLine {
		s = s[:MaxLine]
		for !utf8.ValidString(s) {
			s = s[:len(s)-1]
		}
	}
	return s
}

// HelpText lists the commands, one per line, indented, for the bot's
// replies (never at the start of a line: a reply quoting it gives no
// command).
func HelpText() string {
	return `    #autosel test [tree ...]
        run the VM regression suite on the series (and try it on the
        stable trees named); the result comes as a reply to the command
    #autosel ignore <finding-id> [reason]
        stop reporting the finding for this series and its next versions
    #autosel unignore <finding-id>
        report it again
    #autosel explain <finding-id>
        the finding's whole call chain, interleaving and evidence lines
    #autosel help
        this list
    Commands are lines that start with "#autosel" in a reply to the bot's
    mail or to the patch; each mail is answered once. Only the people the
    bot's configuration trusts on the list (maintainers, the series'
    author) can give them.
`
}
