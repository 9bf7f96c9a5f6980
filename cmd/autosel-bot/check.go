package main

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/autosel-bot/autosel-bot/gitsrc"
	"github.com/autosel-bot/autosel-bot/index"
	"github.com/autosel-bot/autosel-bot/internal/textfmt"
	"github.com/autosel-bot/autosel-bot/mail"
	"github.com/autosel-bot/autosel-bot/pipeline"
	"github.com/autosel-bot/autosel-bot/reply"
	"github.com/autosel-bot/autosel-bot/report"
	"github.com/autosel-bot/autosel-bot/rules/all"
	"github.com/autosel-bot/autosel-bot/series"
)

// checkFlags are the check command's flags; unset ones fall back to the
// check section of the configuration.
type checkFlags struct {
	format  string
	failOn  string
	tree    string
	repo    string
	rng     string
	workers int
	ignore  []string
	gcc     bool
}

const checkLong = `Analyse kernel patches and print a report per series.

Input is any of: single patches (git format-patch output, with or without
--base), plain "git diff", "git show" or "git log -p" output (one patch per
commit; --no-prefix diffs too), quilt/DEP-3 patch files, mbox files with
one or many messages (gzipped too: b4's and lore's .mbox.gz), Maildir
directories (git mailsplit -o output too), git format-patch -o directories
(their *.patch files in name order), "-" for stdin, the commits of a local git range (--repo
DIR --range A..B; the range is one series), or a Message-ID or message URL:
like "b4 mbox", the whole thread is fetched from the public-inbox server
(check.lore_url, lore.kernel.org by default; a URL names its own server).
Messages are grouped into series (cover letter, numbered parts, versions,
diffs proposed inline in review replies), every patch's diff is parsed and
mapped to the C functions it changes, and every rule runs on it. With --tree
DIR (a kernel checkout) each patch is applied to the tree in memory (the
tree is never written; patches of a series stack) and the rules see the
whole tree. Up to --workers series, and patches of a series, are analysed
at once (check.workers, 2 by default); the report is the same as one at a
time, in the input's order. With several patches and --tree, the garbage
collector trades memory for time (as GOGC=400, within three quarters of
the machine's memory), and with one patch it keeps the heap under a soft
limit of 1400 MiB (as GOMEMLIMIT), unless GOGC or GOMEMLIMIT is set.

Output formats: text (kernel-mail style), json (JSON Lines: one object per
series, schema in report/schema.json), email (the replies the bot would
send, as an mbox with full headers: git send-email, mutt -f and git
mailsplit read it), terse (one line per finding, "PATCH: file:line:
severity: rule: message [id]", like checkpatch --terse, for editors and CI
logs; PATCH is the file that held the patch, or its <Message-ID>; with
--gcc-severities "file:line: warning: rule: message [id] [PATCH]" as gcc
prints diagnostics, risk as warning, note as note, for editors' problem
matchers), sarif (SARIF 2.1.0, call chains as code flows, for
code-scanning services).

Suppressions: --ignore RULE[/CATEGORY] (repeatable; added to check.ignore)
keeps the findings of a rule, or of one of its categories, out of the
report, like checkpatch's --ignore; a file .autosel-ignore at the root of
the tree (read from the base commit when one is used, never from what the
patches make of it) holds "function  rule/category  reason" lines for
known-safe constructs ("path/file.c:function" for one file; '*' globs).
Suppressed findings are never dropped silently: they are counted in the
text and mail summaries and on stderr, listed under "suppressed" in JSON
and as results with a suppression in SARIF, and do not count for
--fail-on.

Problems with single messages or patches (unparseable mail, malformed or
whitespace-damaged diffs) are printed on stderr, naming the file, line and
Message-ID; everything else is still analysed.

Exit status:
  0  no finding at or above --fail-on
  1  at least one finding at or above --fail-on
  2  usage error, or nothing in the input could be analysed (no readable
     patch at all); partial input errors alone do not change the status`

// newCheckCmd builds the "check" command.
func newCheckCmd(a *app) *cobra.Command {
	var f checkFlags
	cmd := &cobra.Command{
		Use:   "check [FILE...|MESSAGE-ID...|URL...|-]",
		Short: "Analyse patches (files, mbox, Maildir, stdin, a lore thread or a git range) and print a report",
		Long:  checkLong,
		Example: `  autosel-bot check testdata/seeds/002-watch-queue-v5.mbox
  autosel-bot check 20230811010309.20196-2-zhanghongchen@loongson.cn
  autosel-bot check https://lore.kernel.org/all/20230811010309.20196-2-zhanghongchen@loongson.cn/
  git format-patch -3 --stdout | autosel-bot check --format json -
  autosel-bot check --repo ~/linux --range v6.1..my-branch --tree ~/linux-6.1`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runCheck(cmd, a, f, args)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.format, "format", "", "output format: text, json, email (mbox of the replies), terse (PATCH: file:line: severity: rule: message) or sarif (SARIF 2.1.0) (default from config check.format)")
	fl.StringVar(&f.failOn, "fail-on", "", "exit 1 when a finding is at or above this severity: note or risk (default from config check.fail_on)")
	fl.StringVar(&f.tree, "tree", "", "kernel checkout to apply patches onto in memory and index (default from config check.tree; empty: patch-only)")
	fl.StringVar(&f.repo, "repo", "", "git repository for --range (default: current directory)")
	fl.StringVar(&f.rng, "range", "", "analyse the commits A..B of --repo as one series")
	fl.IntVar(&f.workers, "workers", 0, "series, and patches of a series, analysed at once; the report is the same (default from config check.workers)")
	fl.BoolVar(&f.gcc, "gcc-severities", false, "with --format terse: write lines as gcc prints diagnostics (file:line: warning:/note:, the patch at the end) for editors' problem matchers")
	fl.StringSliceVar(&f.ignore, "ignore", nil, "suppress the findings of RULE or RULE/CATEGORY (repeatable, or comma-separated; added to config check.ignore); suppressed findings are counted, not reported")
	return cmd
}

func usageErr(format string, args ...any) error {
	return &exitError{2, fmt.Errorf("check: "+format, args...)}
}

func runCheck(cmd *cobra.Command, a *app, f checkFlags, args []string) error {
	cfg := a.cfg.Check
	if cmd.Flags().Changed("format") || cfg.Format == "" {
		cfg.Format = f.format
	}
	if cmd.Flags().Changed("fail-on") || cfg.FailOn == "" {
		cfg.FailOn = f.failOn
	}
	if cmd.Flags().Changed("tree") {
		cfg.Tree = f.tree
	}
	if err := pipeline.ValidateFormat(cfg.Format); err != nil {
		return usageErr("%s %v", settingName(cmd, a, "format", "check.format"), err)
	}
	if err := pipeline.ValidateFailOn(cfg.FailOn); err != nil {
		return usageErr("%s %v", settingName(cmd, a, "fail-on", "check.fail_on"), err)
	}
	if cmd.Flags().Changed("workers") {
		cfg.Workers = f.workers
	}
	if err := pipeline.ValidateWorkers(cfg.Workers); err != nil {
		return usageErr("%s %v", settingName(cmd, a, "workers", "check.workers"), err)
	}
	failOn := report.Severity(cfg.FailOn)
	if cfg.Tree != "" {
		if err := index.ValidateProgress(a.cfg.Index.Progress); err != nil {
			return usageErr("%s %v", keyName(a, "index.progress"), err)
		}
	}
	if f.rng == "" && f.repo != "" {
		return usageErr("--repo needs --range A..B")
	}
	if f.rng != "" && len(args) > 0 {
		return usageErr("give either files or --range, not both")
	}
	if f.rng == "" && len(args) == 0 {
		return usageErr("no input: give FILE..., - for stdin, or --repo DIR --range A..B")
	}

	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt)
	defer stop()
	stderr := cmd.ErrOrStderr()

	var msgs []*mail.Message
	inputErrs := 0
	if f.rng != "" {
		repo := f.repo
		if repo == "" {
			repo = "."
		}
		m, err := gitsrc.Range(ctx, repo, f.rng)
		if err != nil && len(m) == 0 {
			return usageErr("%v", err)
		}
		if err != nil {
			fmt.Fprintf(stderr, "autosel-bot: check: %v\n", err)
			inputErrs++
		}
		msgs = m
	} else {
		fetched, paths, ferrs := fetchThreads(ctx, cfg, args)
		for _, e := range ferrs {
			fmt.Fprintf(stderr, "autosel-bot: check: %s\n", report.EscapeControls(e.Error()))
		}
		inputErrs += len(ferrs)
		m, errs := mail.LoadWith(ctx, paths, cmd.InOrStdin(), mail.LoadOptions{Thin: true, Fetched: fetched})
		for _, e := range errs {
			fmt.Fprintf(stderr, "autosel-bot: check: %v\n", e)
		}
		inputErrs += len(errs)
		msgs = m
	}
	if err := ctx.Err(); err != nil {
		return &exitError{2, err}
	}
	ss := series.Assemble(msgs, series.Options{})
	if len(ss) == 0 {
		if inputErrs > 0 {
			return usageErr("nothing could be processed (%d input errors)", inputErrs)
		}
		return usageErr("no patches found in the input (%d messages read)", len(msgs))
	}

	if cfg.Tree != "" && wantProgress(a.cfg.Index.Progress, cfg.Format, stderr) {
		a.progress = newProgressBars(stderr)
		defer a.progress.wait()
	}
	p, err := newPipeline(a, cfg.Tree, cfg.Workers, f.ignore, a.log)
	if err != nil {
		return usageErr("%v", err)
	}
	repo := f.repo
	if repo == "" {
		repo = "."
	}
	bt, baseNote := baseTree(ctx, cfg.Tree, repo, f.rng, msgs)
	if bt != nil {
		setBaseTree(p, bt, f.rng)
	}
	patches := 0
	for _, s := range ss {
		patches += len(pipeline.Patches(s))
	}
	defer batchGC(patches, cfg.Tree != "")()
	// The rules' typing and summaries of the tree are drawn as stages
	// after the indexing.
	reports, err := p.RunAll(a.progress.stages(ctx), ss, cfg.Workers)
	a.progress.wait()
	if err != nil {
		return &exitError{2, fmt.Errorf("check: %w", err)}
	}
	compareVersions(ss, reports)
	analysed := 0
	for _, r := range reports {
		for _, pr := range r.Patches {
			if pr.Error == "" {
				analysed++
			} else {
				fmt.Fprintf(stderr, "autosel-bot: check: %s\n", report.EscapeControls(pr.Error))
			}
		}
		if baseNote != "" {
			r.Notes = append(r.Notes, baseNote)
		}
		if r.Reproduce != nil {
			r.Reproduce.Command = commandLine(cmd, args)
		}
	}

	replyOpts := a.cfg.Reply
	out := cmd.OutOrStdout()
	tool := report.SARIFTool{Name: "autosel-bot", Version: buildVersion(), InformationURI: projectURL}
	if cfg.Format == "sarif" {
		rs, err := all.Rules(a.cfg.Rules)
		if err != nil {
			return &exitError{2, err}
		}
		tool.Rules = pipeline.SARIFRules(rs)
	}
	if err := render(out, cfg.Format, reports, ss, replyOpts, report.TerseOptions{GCC: f.gcc}, tool); err != nil {
		return &exitError{2, fmt.Errorf("check: %w", err)}
	}
	if analysed == 0 {
		return usageErr("no patch could be analysed")
	}
	if s := suppressedSummary(reports); s != "" {
		fmt.Fprintf(stderr, "autosel-bot: check: %s\n", s)
	}
	n := 0
	for _, r := range reports {
		for _, pr := range r.Patches {
			for _, fd := range pr.Findings {
				if fd.Severity.Rank() >= failOn.Rank() {
					n++
				}
			}
		}
	}
	if n > 0 {
		return &exitError{1, fmt.Errorf("check: %s at or above %s", textfmt.Plural(n, "finding", "findings"), failOn)}
	}
	return nil
}

// compareVersions gives each report whose series supersedes another one
// of the input (v2 after v1 in the same thread or files) the changes
// since that version.
func compareVersions(ss []*series.Series, reports []*report.Report) {
	byID := map[string]*report.Report{}
	for i, s := range ss {
		if reports[i] != nil {
			byID[s.ID] = reports[i]
		}
	}
	for i, s := range ss {
		if prev := byID[s.Supersedes]; prev != nil && s.Supersedes != "" && reports[i] != nil {
			reports[i].Changes = report.Compare(prev, reports[i])
		}
	}
}

// neutralFlags do not change a report: the command line that reproduces
// it leaves them out.
var neutralFlags = map[string]bool{"workers": true, "verbose": true, "cpuprofile": true, "memprofile": true}

// commandLine is the command as run: "autosel-bot check", the flags given
// (but those that do not change the report) and the arguments, quoted for
// a shell.
func commandLine(cmd *cobra.Command, args []string) string {
	words := strings.Fields(cmd.CommandPath())
	if len(words) > 0 {
		words[0] = "autosel-bot"
	}
	cmd.Flags().Visit(func(f *pflag.Flag) {
		if neutralFlags[f.Name] {
			return
		}
		if sv, ok := f.Value.(pflag.SliceValue); ok {
			for _, v := range sv.GetSlice() {
				words = append(words, "--"+f.Name, v)
			}
			return
		}
		words = append(words, "--"+f.Name+"="+f.Value.String())
	})
	return report.ShellLine(append(words, args...))
}

// suppressedSummary says how many findings were suppressed and by what
// ("3 findings suppressed (--ignore wakeup: 2, .autosel-ignore:4: 1)"),
// or "" when none were.
func suppressedSummary(reports []*report.Report) string {
	counts := map[string]int{}
	var order []string
	n := 0
	for _, r := range reports {
		for _, p := range r.Patches {
			for _, sp := range p.Suppressed {
				if counts[sp.By] == 0 {
					order = append(order, sp.By)
				}
				counts[sp.By]++
				n++
			}
		}
	}
	if n == 0 {
		return ""
	}
	var parts []string
	for _, by := range order {
		parts = append(parts, fmt.Sprintf("%s: %d", by, counts[by]))
	}
	return fmt.Sprintf("%s suppressed, not reported (%s)", textfmt.Plural(n, "finding", "findings"), report.EscapeControls(strings.Join(parts, ", ")))
}

// render writes the reports in format; email uses the reply section of the
// configuration (reply.Options), sarif describes the tool and its rules
// with tool.
func render(w io.Writer, format string, reports []*report.Report, ss []*series.Series, opts reply.Options, terse report.TerseOptions, tool report.SARIFTool) error {
	switch format {
	case "json":
		return report.WriteJSON(w, reports)
	case "terse":
		return report.WriteTerse(w, reports, terse)
	case "sarif":
		return report.WriteSARIF(w, reports, tool)
	case "email":
		// One mbox of every reply, in series order.
		var mails []*reply.Mail
		for i, r := range reports {
			ms, err := reply.Compose(r, ss[i], opts)
			if err != nil {
				return fmt.Errorf("series <%s>: %w", r.SeriesID, err)
			}
			mails = append(mails, ms...)
		}
		return reply.WriteMbox(w, mails)
	}
	return report.WriteText(w, reports)
}
