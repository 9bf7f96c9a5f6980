package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/autosel-bot/autosel-bot/diffcheck"
	"github.com/autosel-bot/autosel-bot/lore"
	"github.com/autosel-bot/autosel-bot/mail"
	"github.com/autosel-bot/autosel-bot/pipeline"
	"github.com/autosel-bot/autosel-bot/report"
	"github.com/autosel-bot/autosel-bot/runner"
	"github.com/autosel-bot/autosel-bot/series"
)

// fetchThreads downloads the thread of every argument that is not a file
// but a Message-ID or a message URL (see lore.ParseRef), keyed by the
// argument, and the arguments left to load (a failed download is not
// loaded again as a file). An argument that is neither stays for the mail
// loader, which reports it missing. Failed downloads are returned as
// errors naming the argument.
func fetchThreads(ctx context.Context, cfg pipeline.CheckOptions, args []string) (map[string][]byte, []string, []error) {
	var (
		out  map[string][]byte
		errs []error
		keep []string
	)
	c := &lore.Client{BaseURL: cfg.LoreURL, Timeout: cfg.LoreTimeout, UserAgent: "autosel-bot/" + buildVersion()}
	for _, arg := range args {
		ref, ok := lore.ParseRef(arg)
		if _, err := os.Lstat(arg); arg == "-" || err == nil || !ok {
			keep = append(keep, arg)
			continue
		}
		if _, dup := out[arg]; dup {
			keep = append(keep, arg)
			continue
		}
		data, err := c.Thread(ctx, ref)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", arg, err))
			continue
		}
		keep = append(keep, arg)
		if out == nil {
			out = map[string][]byte{}
		}
		out[arg] = data
	}
	return out, keep, errs
}

// threadPatches fetches the thread named by arg (a Message-ID or message
// URL that is not a file) and returns the diffs of its newest series, in
// order, for `test --patch`. ok is false when arg is not such a reference.
func threadPatches(ctx context.Context, cfg pipeline.CheckOptions, arg string) (ps []runner.Patch, ok bool, err error) {
	if _, err := os.Lstat(arg); arg == "-" || err == nil {
		return nil, false, nil
	}
	if _, isRef := lore.ParseRef(arg); !isRef {
		return nil, false, nil
	}
	fetched, _, errs := fetchThreads(ctx, cfg, []string{arg})
	if len(errs) > 0 {
		return nil, true, errs[0]
	}
	msgs, lerrs := mail.LoadWith(ctx, []string{arg}, nil, mail.LoadOptions{Fetched: fetched})
	ss := series.Assemble(msgs, series.Options{})
	var pick *series.Series
	for _, s := range ss {
		for _, p := range s.Patches {
			if p.Msg != nil && (p.Msg.MessageID == strings.Trim(arg, "<>") || strings.Contains(arg, p.Msg.MessageID)) {
				pick = s
			}
		}
	}
	if pick == nil && len(ss) > 0 {
		pick = ss[len(ss)-1]
	}
	if pick == nil {
		if len(lerrs) > 0 {
			return nil, true, lerrs[0]
		}
		return nil, true, fmt.Errorf("%s: the thread has no patch", arg)
	}
	for _, p := range pick.Patches {
		if p.Msg == nil || p.Msg.Diff == "" {
			continue
		}
		diff, _ := diffcheck.Repaired(p.Msg.Diff)
		ps = append(ps, runner.Patch{Name: fmt.Sprintf("%s (%d/%d)", p.Msg.Subject.Title, p.Number, pick.Total), Diff: []byte(diff)})
	}
	if len(ps) == 0 {
		return nil, true, fmt.Errorf("%s: the thread's series <%s> carries no diff", arg, pick.ID)
	}
	return ps, true, nil
}

// kcidbOptions describes the patches of a test run for its KCIDB output.
func kcidbOptions(ps []runner.Patch) report.KCIDBOptions {
	o := report.KCIDBOptions{Start: time.Now()}
	for _, p := range ps {
		o.Patches = append(o.Patches, p.Diff)
		o.PatchNames = append(o.PatchNames, p.Name)
	}
	return o
}
