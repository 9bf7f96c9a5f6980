package main

import "github.com/spf13/cobra"

// addWorkflowCommands adds what fits the bot into a maintainer's tools:
// --version and `version` (build info), and completion of flag values.
func addWorkflowCommands(root *cobra.Command) {
	root.Version = buildVersion()
	root.SetVersionTemplate(versionText())
	root.AddCommand(newVersionCmd(), newManCmd(root))
	registerCompletions(root)
}

// settingName names where a setting's value came from, for an error about
// it: the flag when given, else the configuration key and its source
// (environment variable, config file and line, or the built-in defaults).
func settingName(cmd *cobra.Command, a *app, flag, key string) string {
	if cmd.Flags().Changed(flag) || a.cfg == nil || a.cfg.Sources == nil {
		return "--" + flag
	}
	return keyName(a, key)
}

// keyName names a configuration key that has no flag, and its source
// when known.
func keyName(a *app, key string) string {
	if a.cfg == nil || a.cfg.Sources == nil {
		return key
	}
	return key + " (" + a.cfg.Sources.Of(key) + ")"
}
