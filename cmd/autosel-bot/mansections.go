package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	autoselbot "github.com/autosel-bot/autosel-bot"
	"github.com/autosel-bot/autosel-bot/config"
)

// exitStatus is the EXIT STATUS section of a command's page, by the
// command's name ("" for the others).
var exitStatus = map[string]string{
	"check": ".TP\n0\nno finding at or above --fail-on\n" +
		".TP\n1\nat least one finding at or above --fail-on\n" +
		".TP\n2\nusage or configuration error, or nothing in the input could be analysed\n",
	"test": ".TP\n0\nno regression\n" +
		".TP\n1\nthe patched kernel regressed against the baseline\n" +
		".TP\n2\nusage or configuration error, or the run failed\n",
	"": ".TP\n0\nsuccess\n" +
		".TP\n2\nusage or configuration error, or a failure (stderr says which)\n",
}

// manEnvironment is the ENVIRONMENT section of every page.
const manEnvironment = `.TP
AUTOSEL_BOT_\fISECTION\fP_\fIKEY\fP
overrides one configuration key (check.fail_on: AUTOSEL_BOT_CHECK_FAIL_ON); an unknown one is an error
.TP
XDG_CONFIG_HOME
where the default configuration file is looked for (default ~/.config)
.TP
XDG_STATE_HOME
where the state database and the outbox are kept (default ~/.local/state)
.TP
XDG_CACHE_HOME
where the tree indexes are cached, unless index.cache_dir says (default ~/.cache)
.TP
GOGC, GOMEMLIMIT
when set, check --tree and index build keep them instead of their own garbage collector setting
`

// manFiles is the FILES section of every page.
var manFiles = `.TP
$XDG_CONFIG_HOME/autosel-bot/config.yaml
the configuration read when --config is not given; see \fBautosel-bot.yaml\fP(5)
.TP
` + config.SystemFile + `
the system-wide configuration, read when there is no user file
.TP
$XDG_STATE_HOME/autosel-bot/state.db
the SQLite state of watch and replay (watch.store)
.TP
$XDG_STATE_HOME/autosel-bot/outbox
the replies composed by watch and replay (a Maildir)
.TP
$XDG_CACHE_HOME/autosel-bot
the tree indexes and summaries (index.cache_dir)
.TP
\&.autosel-ignore
known-safe constructs of a kernel tree, at its root
`

// addManSections adds EXIT STATUS, ENVIRONMENT and FILES to the section 1
// page of cmdName in text (before SEE ALSO) and returns it.
func addManSections(text []byte, cmdName string) []byte {
	status, ok := exitStatus[cmdName]
	if !ok {
		status = exitStatus[""]
	}
	extra := ".SH EXIT STATUS\n" + status + ".SH ENVIRONMENT\n" + manEnvironment + ".SH FILES\n" + manFiles
	if i := bytes.Index(text, []byte("\n.SH SEE ALSO")); i >= 0 {
		return append(append(append([]byte{}, text[:i+1]...), extra...), text[i+1:]...)
	}
	return append(text, extra...)
}

// finishManPages adds the sections of addManSections to every page of
// dir, and writes autosel-bot.yaml.5 beside them.
func finishManPages(dir, source string) error {
	pages, err := filepath.Glob(filepath.Join(dir, "autosel-bot*.1"))
	if err != nil {
		return err
	}
	for _, p := range pages {
		text, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		name := strings.TrimSuffix(filepath.Base(p), ".1")
		name = strings.TrimPrefix(strings.TrimPrefix(name, "autosel-bot"), "-")
		if err := os.WriteFile(p, addManSections(text, name), 0o644); err != nil {
			return err
		}
	}
	return os.WriteFile(filepath.Join(dir, "autosel-bot.yaml.5"), configManPage(source), 0o644)
}

// configManPage is autosel-bot.yaml(5): where the configuration is read
// from, how it is merged and checked, and every key with its default and
// documentation (the shipped config.yaml).
func configManPage(source string) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, ".TH \"AUTOSEL-BOT.YAML\" \"5\" \"\" %q \"autosel-bot manual\"\n", source)
	b.WriteString(".SH NAME\nautosel-bot.yaml \\- configuration of autosel-bot\n")
	b.WriteString(".SH SYNOPSIS\n$XDG_CONFIG_HOME/autosel-bot/config.yaml, " + config.SystemFile + ", or \\fB\\-\\-config\\fP \\fIFILE\\fP\n")
	b.WriteString(".SH DESCRIPTION\nThe configuration is YAML. The built-in defaults below are merged with " +
		"the file given by \\fB\\-\\-config\\fP or, without it, the first of the files above that exists; " +
		"AUTOSEL_BOT_\\fISECTION\\fP_\\fIKEY\\fP environment variables override single keys. " +
		"Loading is strict: an unknown key is an error naming its line and the closest known key, " +
		"and a value that cannot be decoded is an error naming where it came from.\n")
	b.WriteString(".SH DEFAULTS\nEvery key, with its default and what it does:\n.PP\n.nf\n")
	for _, l := range strings.Split(strings.TrimRight(string(autoselbot.DefaultConfig), "\n"), "\n") {
		l = strings.ReplaceAll(l, `\`, `\e`)
		if strings.HasPrefix(l, ".") || strings.HasPrefix(l, "'") {
			l = `\&` + l
		}
		b.WriteString(l + "\n")
	}
	b.WriteString(".fi\n.SH FILES\n" + manFiles)
	b.WriteString(".SH SEE ALSO\n\\fBautosel-bot\\fP(1), \\fBautosel-bot-watch\\fP(1), \\fBautosel-bot-check\\fP(1)\n")
	return []byte(b.String())
}
