package main

import (
	"github.com/spf13/cobra"
)

// flagValues are the values offered by shell completion, per command and
// flag ("" matches any command).
var flagValues = []struct {
	cmd, flag string
	values    []string
}{
	{"check", "format", []string{"text\tkernel-mail style report", "json\tJSON Lines, report/schema.json", "email\tmbox of the replies", "terse\tPATCH: file:line: severity: rule: message", "sarif\tSARIF 2.1.0"}},
	{"check", "fail-on", []string{"note\tany finding", "risk\tonly risks"}},
	{"test", "format", []string{"text\tVM report", "json\tVMReport as JSON", "kcidb\tKCIDB I/O (checkouts, builds, tests)"}},
	{"test", "accel", []string{"auto", "kvm", "tcg"}},
	{"test", "backend", []string{"local\tQEMU on this machine", "lava\ta LAVA lab (runner.lava)"}},
}

// dirFlags are the flags whose value is a directory: completion offers
// directories only.
var dirFlags = []string{"tree", "repo", "dir"}

// registerCompletions registers the value completions of flagValues (and
// directories for dirFlags) on
// the commands of root that have the flag (cobra's `completion`
// command then completes them in bash, zsh, fish and PowerShell).
func registerCompletions(root *cobra.Command) {
	for _, c := range root.Commands() {
		for _, fv := range flagValues {
			if fv.cmd != "" && fv.cmd != c.Name() {
				continue
			}
			if c.Flags().Lookup(fv.flag) == nil {
				continue
			}
			values := fv.values
			_ = c.RegisterFlagCompletionFunc(fv.flag, func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
				return values, cobra.ShellCompDirectiveNoFileComp
			})
		}
		for _, name := range dirFlags {
			if c.Flags().Lookup(name) == nil {
				continue
			}
			_ = c.RegisterFlagCompletionFunc(name, func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
				return nil, cobra.ShellCompDirectiveFilterDirs
			})
		}
	}
}
