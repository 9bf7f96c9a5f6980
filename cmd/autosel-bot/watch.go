package main

import (
	"errors"

	"github.com/spf13/cobra"
)

// newWatchCmd builds the "watch" command. (Placeholder until its issue lands.)
func newWatchCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "watch",
		Short: "(not yet available)",
		RunE: func(cmd *cobra.Command, args []string) error {
			return &exitError{2, errors.New("watch: not yet available")}
		},
	}
}
