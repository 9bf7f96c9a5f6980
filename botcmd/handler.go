package botcmd

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/autosel-bot/autosel-bot/mail"
	"github.com/autosel-bot/autosel-bot/mailcmd"
	"github.com/autosel-bot/autosel-bot/reply"
	"github.com/autosel-bot/autosel-bot/report"
	"github.com/autosel-bot/autosel-bot/series"
	"github.com/autosel-bot/autosel-bot/store"
)

// Job is one command mail to answer, as the daemon resolved it.
type Job struct {
	// Msg is the command mail.
	Msg *mail.Message
	// Commands are its "#autosel" lines.
	Commands []mailcmd.Command
	// SeriesKey is the series the mail is about ("" when none was
	// found); Lineage its lineage, Version its version and Report its
	// report (JSON, as stored).
	SeriesKey string
	Lineage   string
	Version   int
	Report    []byte
	// Ignored are the findings of the lineage ignored so far.
	Ignored []store.Ignore
	// Series assembles the series again from the stored messages (for
	// "test"); nil when there is none.
	Series func(ctx context.Context) (*series.Series, error)
	// Refuse answers with the refusal of an untrusted sender (List names
	// the list) and runs nothing.
	Refuse bool
	List   string
	// Problem, when set, is why nothing can be run (no series found, the
	// commands kept failing): the answer says so.
	Problem string
}

// Result is the answer to a command mail and what it changes.
type Result struct {
	// Reply is the answer.
	Reply *reply.Mail
	// Ignore are findings to ignore for the lineage from now on, and
	// Unignore finding ids to report again.
	Ignore   []store.Ignore
	Unignore []string
	// Summary says what was done, one line per command (for the store
	// and the logs).
	Summary string
}

// Tester runs the series through the pipeline with the VM suite on, and
// on the stable trees named (none: no stable stage), for "#autosel test".
// The report's VM is nil when the suite could not run (its Notes say
// why).
type Tester func(ctx context.Context, s *series.Series, trees []string) (*report.Report, error)

// Handler answers command mails.
type Handler struct {
	// Reply configures the answers (sender, greeting, signature, ids).
	Reply reply.Options
	// Test runs "#autosel test"; nil: the bot cannot run it.
	Test Tester
	// Trees are the stable trees "#autosel test" may name.
	Trees []string
	// TestCommand is how to run the VM suite by hand, for the answer's
	// "how to reproduce" ("autosel-bot test --tree DIR --patch" and the
	// Message-ID); empty for that.
	TestCommand string
}

// Handle answers a command mail: one reply (threaded under it) with an
// answer per command, each after the command's line quoted.
func (h *Handler) Handle(ctx context.Context, j *Job) (*Result, error) {
	res := &Result{}
	var b strings.Builder
	var sum []string
	switch {
	case j.Refuse:
		list := j.List
		if list == "" {
			list = "this list"
		}
		b.WriteString(fmt.Sprintf("Sorry, I take commands on %s only from the people my configuration\n"+
			"trusts there (its maintainers, and the author of the series); your\n"+
			"command was not run. I will not answer your commands again today.\n", list))
		res.Reply = reply.CommandReply(j.Msg, b.String(), true, h.Reply)
		res.Summary = "refused"
		return res, nil
	case j.Problem != "":
		b.WriteString(j.Problem + "\n")
		res.Reply = reply.CommandReply(j.Msg, b.String(), false, h.Reply)
		res.Summary = j.Problem
		return res, nil
	}
	var rep *report.Report
	if len(j.Report) > 0 {
		rep = &report.Report{}
		if err := json.Unmarshal(j.Report, rep); err != nil {
			return nil, fmt.Errorf("report of %s: %w", j.SeriesKey, err)
		}
	}
	ignored := map[string]store.Ignore{}
	for _, ig := range j.Ignored {
		ignored[ig.FindingID] = ig
	}
	// changed are the finding ids the commands ignored or unignored, in
	// order; their last state (in ignored) is what the result records.
	var changed []string
	seen := map[string]bool{}
	for i, c := range j.Commands {
		if i > 0 {
			b.WriteString("\n")
		}
		b.WriteString("> " + c.Text + "\n")
		answer, done, id := h.one(ctx, j, c, rep, ignored)
		if id != "" && !seen[id] {
			seen[id] = true
			changed = append(changed, id)
		}
		b.WriteString(strings.TrimRight(answer, "\n") + "\n")
		sum = append(sum, c.Verb+": "+done)
	}
	for _, id := range changed {
		if ig, ok := ignored[id]; ok {
			res.Ignore = append(res.Ignore, ig)
		} else {
			res.Unignore = append(res.Unignore, id)
		}
	}
	res.Reply = reply.CommandReply(j.Msg, b.String(), false, h.Reply)
	res.Summary = strings.Join(sum, "; ")
	return res, nil
}

// one answers one command; done says what was done, in a few words, and
// changed names the finding it ignored or unignored (in ignored).
func (h *Handler) one(ctx context.Context, j *Job, c mailcmd.Command, rep *report.Report, ignored map[string]store.Ignore) (answer, done, changed string) {
	by := j.Msg.From.Addr
	if j.Msg.From.Name != "" {
		by = j.Msg.From.Name + " <" + j.Msg.From.Addr + ">"
	}
	switch c.Verb {
	case mailcmd.Help:
		return "The commands I know:\n" + mailcmd.HelpText(), "listed", ""
	case mailcmd.Ignore, mailcmd.Unignore, mailcmd.Explain:
		f, answer := findIn(rep, c)
		if f == nil {
			return answer, "no such finding", ""
		}
		switch c.Verb {
		case mailcmd.Explain:
			return explain(f, rep), "explained " + f.ID, ""
		case mailcmd.Ignore:
			was, had := ignored[f.ID]
			ignored[f.ID] = store.Ignore{FindingID: f.ID, Reason: c.Rest(1), By: by}
			text := fmt.Sprintf("Finding %s (%s: %s) will not be reported again for this series and its next versions.", f.ID, f.Check(), where(f))
			if had {
				text = fmt.Sprintf("Finding %s was already ignored (by %s); the reason is now this command's.", f.ID, was.By)
			}
			return text + "\n\"#autosel unignore " + f.ID + "\" reports it again.", "ignored " + f.ID, f.ID
		default:
			if _, had := ignored[f.ID]; !had {
				return fmt.Sprintf("Finding %s was not ignored: nothing to do.", f.ID), "not ignored " + f.ID, ""
			}
			delete(ignored, f.ID)
			return fmt.Sprintf("Finding %s (%s: %s) will be reported again from the next version of this series.", f.ID, f.Check(), where(f)), "unignored " + f.ID, f.ID
		}
	case mailcmd.Test:
		return h.test(ctx, j, c), "tested", ""
	}
	name := "#autosel " + c.Verb
	if c.Verb == "" {
		name = "#autosel alone"
	}
	return fmt.Sprintf("Unknown command: %q is none of mine. The commands I know:\n%s", name, mailcmd.HelpText()), "unknown", ""
}

// findIn finds the finding a command names in the series' report, or says
// why it cannot.
func findIn(rep *report.Report, c mailcmd.Command) (*report.Finding, string) {
	if len(c.Args) == 0 {
		return nil, fmt.Sprintf("\"#autosel %s\" needs the id of a finding (\"Finding id:\" in my reply).", c.Verb)
	}
	id := strings.ToLower(strings.Trim(c.Args[0], "<>[](),.;:"))
	if !report.ValidID(id) {
		return nil, fmt.Sprintf("%q is not a finding id: ids are twelve hex digits (\"Finding id:\" in my reply).", c.Args[0])
	}
	if rep == nil {
		return nil, "I have no report of this series to find it in."
	}
	if f, _ := rep.FindByID(id); f != nil {
		return f, ""
	}
	var ids []string
	for _, p := range rep.Patches {
		for _, f := range p.Findings {
			ids = append(ids, f.ID)
		}
		for _, sp := range p.Suppressed {
			ids = append(ids, sp.ID)
		}
	}
	text := fmt.Sprintf("This series (v%d) has no finding %s.", rep.Version, id)
	if len(ids) > 0 {
		text += " Its findings: " + strings.Join(ids, ", ") + "."
	}
	return nil, text
}

// explain is a finding in full, and whether it is suppressed.
func explain(f *report.Finding, rep *report.Report) string {
	text := reply.Explain(f)
	for _, p := range rep.Patches {
		for _, sp := range p.Suppressed {
			if sp.ID == f.ID {
				text += "\n(Not reported: suppressed by " + sp.By
				if sp.Reason != "" {
					text += ": " + sp.Reason
				}
				text += ".)\n"
			}
		}
	}
	return text
}

// where is "file:line func()" of a finding.
func where(f *report.Finding) string {
	s := f.File
	if f.Line > 0 {
		s += fmt.Sprintf(":%d", f.Line)
	}
	if f.Func != "" {
		s += " " + f.Func + "()"
	}
	return s
}
