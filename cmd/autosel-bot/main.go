// Command autosel-bot reviews Linux kernel patch series: it parses patch
// mail, flags sleeping calls in atomic context and changed wakeup patterns,
// tries the patch on stable trees, boots it in VMs, and replies the way the
// kernel's stable bot does.
package main

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/spf13/cobra"
	"github.com/spf13/viper"

	"github.com/autosel-bot/autosel-bot/config"
)

// exitError carries a process exit code through cobra.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }

// app is the state shared by the subcommands: viper and the loaded config.
type app struct {
	v          *viper.Viper
	configFile string
	verbose    bool
	cfg        *config.Config
	log        *slog.Logger
	// progress, when set, shows indexing progress (see progress.go).
	progress *progressBars
	// collectors are the metrics of backends built for the pipeline
	// (lava), registered on the daemon's /metrics.
	collectors []prometheus.Collector
	// cpuProfile and memProfile are where --cpuprofile and --memprofile
	// write the command's profiles; stopProfile ends them (profile.go).
	cpuProfile  string
	memProfile  string
	stopProfile func() error
}

// load reads the configuration once flags are parsed: --config, else the
// first default file that exists (config.DefaultPaths), else the built-in
// defaults alone. The log goes to stderr; -v says which file was read.
func (a *app) load(stderr io.Writer) error {
	level := slog.LevelWarn
	if a.verbose {
		level = slog.LevelDebug
	}
	a.log = slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	file, from := a.configFile, "--config"
	if file == "" {
		searched := config.DefaultPaths()
		f, err := config.FindDefault(searched)
		if err != nil {
			return &exitError{2, err}
		}
		file, from = f, "default ("+strings.Join(searched, ", ")+")"
	}
	cfg, err := config.Load(a.v, file)
	if err != nil {
		return &exitError{2, err}
	}
	a.cfg = cfg
	if file == "" {
		file = "none (built-in defaults)"
	}
	a.log.Debug("configuration", "file", file, "from", from)
	return nil
}

func newRoot(a *app) *cobra.Command {
	root := &cobra.Command{
		Use:   "autosel-bot",
		Short: "Review Linux kernel patches for lock and wakeup bugs, stable applicability and VM regressions",
		Long: `autosel-bot reads kernel patch series (mbox, Maildir, single patches, a git
range, or IMAP lists), analyses each patch for sleeping calls in atomic context
and changed wakeup patterns, tries it on configured stable trees, runs a
regression suite in QEMU, and replies in the thread like the stable bot.

Configuration: built-in defaults (config.yaml), merged with --config FILE
or, without it, the first of $XDG_CONFIG_HOME/autosel-bot/config.yaml
(~/.config/autosel-bot/config.yaml) and /etc/autosel-bot/config.yaml that
exists (-v logs which), then AUTOSEL_BOT_<SECTION>_<KEY> environment
variables.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, args []string) error {
			if err := a.load(cmd.ErrOrStderr()); err != nil {
				return err
			}
			return a.startProfile()
		},
	}
	root.PersistentFlags().StringVar(&a.configFile, "config", "", "configuration file (YAML) merged over the built-in defaults (default: $XDG_CONFIG_HOME/autosel-bot/config.yaml, else /etc/autosel-bot/config.yaml, if there)")
	root.PersistentFlags().BoolVarP(&a.verbose, "verbose", "v", false, "debug logging on stderr")
	root.PersistentFlags().StringVar(&a.cpuProfile, "cpuprofile", "", "write a CPU profile of the command to `FILE` (go tool pprof)")
	root.PersistentFlags().StringVar(&a.memProfile, "memprofile", "", "write a heap profile taken at the command's end to `FILE` (go tool pprof)")
	_ = root.PersistentFlags().MarkHidden("cpuprofile")
	_ = root.PersistentFlags().MarkHidden("memprofile")
	root.AddCommand(newCheckCmd(a), newTestCmd(a), newWatchCmd(a), newReplayCmd(a), newServeCmd(a), newRulesCmd(a), newIndexCmd(a))
	addWorkflowCommands(root)
	return root
}

// execute runs the command line root was given, and ends the profiles it
// asked for, also when the command fails.
func execute(a *app, root *cobra.Command) error {
	err := root.Execute()
	if perr := a.endProfile(); perr != nil && err == nil {
		err = perr
	}
	return err
}

func main() {
	v, err := config.New()
	if err != nil {
		fmt.Fprintln(os.Stderr, "autosel-bot:", err)
		os.Exit(2)
	}
	a := &app{v: v}
	if err := execute(a, newRoot(a)); err != nil {
		fmt.Fprintln(os.Stderr, "autosel-bot:", err)
		var ee *exitError
		if errors.As(err, &ee) {
			os.Exit(ee.code)
		}
		os.Exit(2)
	}
}
