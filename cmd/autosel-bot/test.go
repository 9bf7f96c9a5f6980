package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/autosel-bot/autosel-bot/internal/git"
	"github.com/autosel-bot/autosel-bot/report"
	"github.com/autosel-bot/autosel-bot/runner"
	"github.com/autosel-bot/autosel-bot/runner/lava"
)

// newTestCmd builds the "test" command: build the patched kernel, boot it
// in QEMU with the regression suite, compare with the baseline.
func newTestCmd(a *app) *cobra.Command {
	var (
		tree, rng, baseline, format, accel, backend string
		patches, tests                              []string
		list                                        bool
	)
	cmd := &cobra.Command{
		Use:   "test --tree DIR [--patch FILE...|--range A..B] [--baseline REF]",
		Short: "Build a patched kernel, run the regression suite in QEMU, compare with the baseline",
		Long: `test applies patches (or a commit range) to a kernel tree in a persistent
worktree, builds it (tinyconfig + the runner's debug config fragment, ccache,
incremental), boots it in QEMU with the regression suite in its initramfs,
does the same for the unpatched baseline, and prints the VM section of the
report: per-test verdicts (pass, fail, hang, crash), regressions, metric
changes (median and spread of several runs) and kernel splats.

Patches that change host build code (Makefiles, Kconfig, scripts/, ...) are
refused before building (runner.deny_paths / runner.allow_paths).

Exit status: 0 no regression, 1 regression, build failure, refused or
unappliable patch, or boot failure, 2 usage or infrastructure error.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg := a.cfg.Runner
			if tree == "" {
				tree = cfg.Tree
			}
			if tree == "" {
				return &exitError{2, errors.New("test: --tree is required (or runner.tree in the config)")}
			}
			if len(patches) > 0 && rng != "" {
				return &exitError{2, errors.New("test: use --patch or --range, not both")}
			}
			if format != "text" && format != "json" && format != "kcidb" {
				return &exitError{2, fmt.Errorf("test: --format %q: want text, json or kcidb", format)}
			}
			if accel != "" {
				cfg.Accel = accel
			}
			if len(tests) > 0 {
				cfg.Tests = tests
			}
			var ps []runner.Patch
			for _, f := range patches {
				if tps, ok, err := threadPatches(cmd.Context(), a.cfg.Check, f); ok {
					if err != nil {
						return &exitError{2, fmt.Errorf("test: patch: %w", err)}
					}
					ps = append(ps, tps...)
					continue
				}
				b, err := readPatch(f, cmd.InOrStdin())
				if err != nil {
					return &exitError{2, err}
				}
				ps = append(ps, runner.Patch{Name: filepath.Base(f), Diff: b})
			}
			if rng != "" {
				from, to, ok := strings.Cut(rng, "..")
				if !ok || from == "" || to == "" || strings.HasPrefix(from, "-") || strings.HasPrefix(to, "-") {
					return &exitError{2, fmt.Errorf("test: --range %q: want A..B", rng)}
				}
				d, err := gitDiff(cmd.Context(), tree, from, to)
				if err != nil {
					return &exitError{2, err}
				}
				ps = append(ps, runner.Patch{Name: rng, Diff: d})
				if baseline == "" {
					baseline = from
				}
			}
			if baseline == "" {
				baseline = cfg.Baseline
			}
			level := slog.LevelInfo
			if a.verbose {
				level = slog.LevelDebug
			}
			opts := cfg.Options.WithDefaults()
			opts.Sandbox = a.cfg.Sandbox
			opts.Log = slog.New(slog.NewTextHandler(cmd.ErrOrStderr(), &slog.HandlerOptions{Level: level}))
			if format == "text" {
				// Bars only around the human report (runner draws them
				// only on a terminal); machine formats stay quiet.
				opts.Progress = cmd.ErrOrStderr()
			}
			if err := opts.Validate(); err != nil {
				return &exitError{2, fmt.Errorf("test: %w", err)}
			}
			suite, err := runner.SelectTests(opts.Tests)
			if err != nil {
				return &exitError{2, err}
			}
			if list {
				return listTests(cmd.Context(), cmd.OutOrStdout(), opts, tree, baseline, ps, suite)
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			if backend == "" {
				backend = cfg.Backend
			}
			var be runner.Backend
			switch backend {
			case "", "local":
			case "lava":
				lb, err := lava.NewWithLocal(cfg.Lava, opts, opts.Log)
				if err != nil {
					return &exitError{2, err}
				}
				defer lb.Close()
				be = lb
			default:
				return &exitError{2, fmt.Errorf("test: --backend %q: want local or lava", backend)}
			}
			vm, err := runner.New(opts, be).Compare(ctx, tree, baseline, ps)
			if err != nil {
				return &exitError{2, err}
			}
			if err := printVM(cmd.OutOrStdout(), vm, format, kcidbOptions(ps)); err != nil {
				return &exitError{2, err}
			}
			switch vm.Status {
			case report.VMOK:
				return nil
			case report.VMInfraError:
				return &exitError{2, errors.New("test: infrastructure error")}
			default:
				return &exitError{1, fmt.Errorf("test: %s", vm.Summary)}
			}
		},
	}
	f := cmd.Flags()
	f.StringVar(&tree, "tree", "", "kernel git checkout (never modified; default runner.tree)")
	f.StringArrayVar(&patches, "patch", nil, "patch file to apply (repeatable, in order; - for stdin), or a Message-ID or lore URL whose thread's series is fetched (check.lore_url)")
	f.StringVar(&rng, "range", "", "test the commits A..B of the tree (baseline A unless --baseline)")
	f.StringVar(&baseline, "baseline", "", "baseline ref the patches apply to (default runner.baseline)")
	f.StringVar(&format, "format", "text", "output format: text, json or kcidb (KCIDB I/O v4: checkouts, builds, tests)")
	f.StringVar(&accel, "accel", "", "QEMU accelerator: auto, kvm or tcg (default runner.accel)")
	f.StringSliceVar(&tests, "tests", nil, "suite tests to run (default all)")
	f.BoolVar(&list, "list", false, "print the tests that would run for the patches and why (the suite, the kselftest targets the touched files call for, what the time budget drops), without building")
	f.StringVar(&backend, "backend", "", "where the kernels boot: local or lava (default runner.backend; lava: runner.lava.*)")
	return cmd
}

// listTests prints what test would run for ps and why.
func listTests(ctx context.Context, w io.Writer, opts runner.Options, tree, baseline string, ps []runner.Patch, suite []runner.Test) error {
	if baseline == "" {
		baseline = "HEAD"
	}
	plan, err := opts.KselftestPlan(ctx, tree, baseline, ps)
	if err != nil {
		return &exitError{2, fmt.Errorf("test: %w", err)}
	}
	var names []string
	for _, t := range suite {
		names = append(names, t.Name)
	}
	_, err = io.WriteString(w, plan.Text(names))
	return err
}

func readPatch(name string, stdin io.Reader) ([]byte, error) {
	if name == "-" {
		return io.ReadAll(io.LimitReader(stdin, 64<<20))
	}
	b, err := os.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("test: patch: %w", err)
	}
	return b, nil
}

func gitDiff(ctx context.Context, tree, from, to string) ([]byte, error) {
	out, err := git.New(tree).Diff(ctx, from, to)
	if err != nil {
		var ge *git.Error
		if errors.As(err, &ge) {
			return nil, fmt.Errorf("test: git diff %s..%s: %s", from, to, git.Stderr(err))
		}
		return nil, fmt.Errorf("test: git diff: %w", err)
	}
	return out, nil
}

func printVM(w io.Writer, vm *report.VMReport, format string, kopts report.KCIDBOptions) error {
	if format == "kcidb" {
		return report.WriteKCIDB(w, vm, kopts)
	}
	if format == "json" {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(vm)
	}
	// The text quotes guest console output: escape sequences it holds
	// must not reach the terminal.
	_, err := io.WriteString(w, report.EscapeText(vm.Text()))
	return err
}
