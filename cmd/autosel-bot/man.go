package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
)

// newManCmd builds the hidden "man" command: write the man pages of every
// command (section 1) into a directory (`make man`).
func newManCmd(root *cobra.Command) *cobra.Command {
	var dir string
	cmd := &cobra.Command{
		Use:    "man --dir DIR",
		Short:  "Write the man pages (section 1) of every command into DIR",
		Hidden: true,
		Args:   cobra.NoArgs,
		// No configuration is needed to write documentation.
		PersistentPreRunE: func(*cobra.Command, []string) error { return nil },
		RunE: func(cmd *cobra.Command, args []string) error {
			if dir == "" {
				return &exitError{2, fmt.Errorf("man: --dir is required")}
			}
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return &exitError{2, err}
			}
			hdr := &doc.GenManHeader{Title: "AUTOSEL-BOT", Section: "1", Source: "autosel-bot " + buildVersion(), Manual: "autosel-bot manual"}
			root.DisableAutoGenTag = true
			return doc.GenManTree(root, hdr, dir)
		},
	}
	cmd.Flags().StringVar(&dir, "dir", "", "directory to write the pages into")
	return cmd
}
