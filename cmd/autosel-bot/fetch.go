package main

import (
	"context"
	"fmt"
	"os"

	"github.com/autosel-bot/autosel-bot/config"
	"github.com/autosel-bot/autosel-bot/lore"
)

// fetchThreads downloads the thread of every argument that is not a file
// but a Message-ID or a message URL (see lore.ParseRef), keyed by the
// argument, and the arguments left to load (a failed download is not
// loaded again as a file). An argument that is neither stays for the mail
// loader, which reports it missing. Failed downloads are returned as
// errors naming the argument.
func fetchThreads(ctx context.Context, cfg config.CheckConfig, args []string) (map[string][]byte, []string, []error) {
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
