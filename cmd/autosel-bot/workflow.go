package main

import "github.com/spf13/cobra"

// addWorkflowCommands adds what fits the bot into a maintainer's tools:
// --version and `version` (build info), and completion of flag values.
func addWorkflowCommands(root *cobra.Command) {
	root.Version = buildVersion()
	root.SetVersionTemplate(versionText())
	root.AddCommand(newVersionCmd())
	registerCompletions(root)
}
