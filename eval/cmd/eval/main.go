// Command eval measures the rules on an evaluation corpus (eval/README.md)
// and prints recall, false alarms and per-case tables. It is a measurement,
// not a test: it exits 0 whatever the numbers are, and non-zero only when
// it cannot run. `make eval` runs it.
//
//	go run ./eval/cmd/eval [-dir eval] [-tree DIR] [-j N]
//
// The corpus directory defaults to $EVAL_DIR, else eval/; the tree to
// $AUTOSEL_KERNEL_SRC, else the shared Linux 6.1 tree of internal/testkernel
// (extracted on first use).
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"runtime"
	"time"

	"github.com/autosel-bot/autosel-bot/eval"
	"github.com/autosel-bot/autosel-bot/index"
	"github.com/autosel-bot/autosel-bot/internal/testkernel"
	"github.com/autosel-bot/autosel-bot/rules"
)

func main() {
	def := os.Getenv("EVAL_DIR")
	if def == "" {
		def = "eval"
	}
	dir := flag.String("dir", def, "corpus directory (default $EVAL_DIR, else eval)")
	tree := flag.String("tree", "", "Linux 6.1 tree (default $AUTOSEL_KERNEL_SRC, else the shared test tree)")
	jobs := flag.Int("j", runtime.GOMAXPROCS(0), "cases analysed at once")
	depth := flag.Int("depth", 4, "rules.depth, as in config.yaml")
	verbose := flag.Bool("v", false, "log index progress")
	summaries := flag.Bool("summaries", true, "store whole-tree summaries first (index.summaries)")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, *dir, *tree, *jobs, *depth, *verbose, *summaries); err != nil {
		fmt.Fprintln(os.Stderr, "eval:", err)
		os.Exit(2)
	}
}

func run(ctx context.Context, dir, tree string, jobs, depth int, verbose, summaries bool) error {
	c, err := eval.Load(dir)
	if err != nil {
		return err
	}
	if tree == "" {
		if tree, err = testkernel.Prepare(); err != nil {
			return fmt.Errorf("kernel tree: %w", err)
		}
	}
	log := slog.New(slog.DiscardHandler)
	if verbose {
		log = slog.New(slog.NewTextHandler(os.Stderr, nil))
	}
	start := time.Now()
	ix, err := index.Open(ctx, tree, index.Options{Logger: log})
	if err != nil {
		return fmt.Errorf("index %s: %w", tree, err)
	}
	fmt.Printf("index of %s opened in %s\n", tree, time.Since(start).Round(100*time.Millisecond))
	ev, err := eval.NewEvaluator(eval.Options{Tree: tree, Index: ix, RuleOptions: rules.Options{Depth: depth}, Jobs: jobs, Summaries: summaries})
	if err != nil {
		return err
	}
	res, err := ev.Run(ctx, c)
	if err != nil {
		return err
	}
	return res.Write(os.Stdout)
}
