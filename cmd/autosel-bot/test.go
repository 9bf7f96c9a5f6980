package main

import (
	"errors"

	"github.com/spf13/cobra"
)

// newTestCmd builds the "test" command. (Placeholder until its issue lands.)
func newTestCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "test",
		Short: "(not yet available)",
		RunE: func(cmd *cobra.Command, args []string) error {
			return &exitError{2, errors.New("test: not yet available")}
		},
	}
}
