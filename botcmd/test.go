package botcmd

import (
	"context"
	"fmt"
	"strings"

	"github.com/autosel-bot/autosel-bot/mailcmd"
	"github.com/autosel-bot/autosel-bot/reply"
)

// test runs "#autosel test [tree ...]": the series again with the VM
// suite, and on the stable trees named.
func (h *Handler) test(ctx context.Context, j *Job, c mailcmd.Command) string {
	if h.Test == nil {
		return "I cannot run the VM suite here: this bot has no VM runner configured (runner.tree)."
	}
	known := map[string]bool{}
	for _, t := range h.Trees {
		known[t] = true
	}
	var unknown []string
	for _, t := range c.Args {
		if !known[t] {
			unknown = append(unknown, t)
		}
	}
	if len(unknown) > 0 {
		mine := "none"
		if len(h.Trees) > 0 {
			mine = strings.Join(h.Trees, ", ")
		}
		return fmt.Sprintf("I know no stable tree %s (mine: %s); nothing was run.", strings.Join(unknown, ", "), mine)
	}
	if j.Series == nil {
		return "I no longer have the messages of this series; nothing was run."
	}
	s, err := j.Series(ctx)
	if err != nil {
		return fmt.Sprintf("I could not assemble the series again: %v; nothing was run.", err)
	}
	r, err := h.Test(ctx, s, c.Args)
	if err != nil {
		return fmt.Sprintf("The run failed: %v", err)
	}
	cmd := ""
	if h.TestCommand != "" {
		cmd = h.TestCommand + " " + s.ID
	}
	return reply.TestBody(r, cmd)
}
