package main

import (
	"errors"

	"github.com/spf13/cobra"
)

// newCheckCmd builds the "check" command. (Placeholder until its issue lands.)
func newCheckCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "check",
		Short: "(not yet available)",
		RunE: func(cmd *cobra.Command, args []string) error {
			return &exitError{2, errors.New("check: not yet available")}
		},
	}
}
