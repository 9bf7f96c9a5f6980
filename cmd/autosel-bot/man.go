package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
)

// newManCmd builds the "man" command: write the man pages of every command
// (section 1, with EXIT STATUS, ENVIRONMENT and FILES) and of the
// configuration (autosel-bot.yaml, section 5) into a directory (`make
// man`).
func newManCmd(root *cobra.Command) *cobra.Command {
	var dir string
	cmd := &cobra.Command{
		Use:     "man --dir DIR",
		Short:   "Write the man pages of every command (section 1) and of the configuration (autosel-bot.yaml, section 5) into DIR",
		Example: `  autosel-bot man --dir man && man -l man/autosel-bot-check.1`,
		Args:    cobra.NoArgs,
		// No configuration is needed to write documentation.
		PersistentPreRunE: func(*cobra.Command, []string) error { return nil },
		RunE: func(cmd *cobra.Command, args []string) error {
			if dir == "" {
				return &exitError{2, fmt.Errorf("man: --dir is required")}
			}
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return &exitError{2, err}
			}
			source := "autosel-bot " + buildVersion()
			hdr := &doc.GenManHeader{Title: "AUTOSEL-BOT", Section: "1", Source: source, Manual: "autosel-bot manual"}
			root.DisableAutoGenTag = true
			if err := doc.GenManTree(root, hdr, dir); err != nil {
				return err
			}
			return finishManPages(dir, source)
		},
	}
	cmd.Flags().StringVar(&dir, "dir", "", "directory to write the pages into")
	return cmd
}
