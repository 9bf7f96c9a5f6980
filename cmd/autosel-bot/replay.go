package main

import (
	"errors"

	"github.com/spf13/cobra"
)

// newReplayCmd builds the "replay" command. (Placeholder until its issue lands.)
func newReplayCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "replay",
		Short: "(not yet available)",
		RunE: func(cmd *cobra.Command, args []string) error {
			return &exitError{2, errors.New("replay: not yet available")}
		},
	}
}
