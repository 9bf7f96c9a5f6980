package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/autosel-bot/autosel-bot/internal/textfmt"
	"github.com/autosel-bot/autosel-bot/rules"
	"github.com/autosel-bot/autosel-bot/rules/all"
)

func newRulesCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "rules",
		Short: "List every rule family and its categories with their documentation",
		Long: `List every rule family the analysis runs, in report order, with its
description and the categories (sub-checks) its findings carry in the
"category" field of the JSON output. Tables given in rules.tables of the
configuration are loaded, so a bad table file is reported here too.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			rs, err := all.Rules(a.cfg.Rules)
			if err != nil {
				return &exitError{2, err}
			}
			writeRules(cmd.OutOrStdout(), rs)
			return nil
		},
	}
}

// writeRules prints each rule's name and doc, then its categories.
func writeRules(w io.Writer, rs []*rules.Rule) {
	for i, r := range rs {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "%s\n%s\n", r.Name, wrap(r.Doc, "    ", 76))
		for _, c := range r.Categories {
			fmt.Fprintf(w, "  %s\n%s\n", c.Name, wrap(c.Doc, "      ", 76))
		}
	}
}

// wrap fills s into lines of at most width display columns after indent
// ("" for no words).
func wrap(s, indent string, width int) string {
	if strings.TrimSpace(s) == "" {
		return ""
	}
	return strings.Join(textfmt.Fill(s, width, indent, indent), "\n")
}
