// Command eval measures the rules on an evaluation corpus (eval/README.md)
// and prints recall, false alarms, variants and per-case tables, for the
// train and the test split. It is a measurement, not a test: it exits 0
// whatever the numbers are, and non-zero only when it cannot run.
// `make eval` runs it; `make eval-split` runs it with -assign.
//
//	go run ./eval/cmd/eval [-dir eval] [-tree DIR] [-j N] [-split all|train|test] [-show-test]
//	go run ./eval/cmd/eval -assign [-dir eval]
//
// The corpus directory defaults to $EVAL_DIR, else eval/; the split to
// $EVAL_SPLIT, else all; the tree to $AUTOSEL_KERNEL_SRC, else the shared
// Linux 6.1 tree of internal/testkernel (extracted on first use). The test
// split's per-case rows are printed only with -show-test (or
// EVAL_SHOW_TEST=1): whoever designs a rule reads only its numbers.
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"strings"
	"time"

	"github.com/autosel-bot/autosel-bot/eval"
	"github.com/autosel-bot/autosel-bot/index"
	"github.com/autosel-bot/autosel-bot/internal/testkernel"
)

func main() {
	def := os.Getenv("EVAL_DIR")
	if def == "" {
		def = "eval"
	}
	dir := flag.String("dir", def, "corpus directory (default $EVAL_DIR, else eval)")
	tree := flag.String("tree", "", "Linux 6.1 tree (default $AUTOSEL_KERNEL_SRC, else the shared test tree)")
	jobs := flag.Int("j", runtime.GOMAXPROCS(0), "cases analysed at once")
	verbose := flag.Bool("v", false, "log index progress")
	summaries := flag.Bool("summaries", true, "store whole-tree summaries first (index.summaries)")
	memLimit := flag.Int("memlimit", 2304, "soft limit of the Go heap in MiB (runtime/debug.SetMemoryLimit), so that the collector runs before the process nears 3 GB; 0: none; GOMEMLIMIT in the environment wins")
	warm := flag.Int("warm", index.DefaultSettings().Warm, "functions of the index kept decoded between cases, as index.warm (0: all)")
	split := flag.String("split", os.Getenv("EVAL_SPLIT"), "cases to run: all, train or test (default $EVAL_SPLIT, else all)")
	showTest := flag.Bool("show-test", os.Getenv("EVAL_SHOW_TEST") == "1", "print the test split's per-case rows too (default: $EVAL_SHOW_TEST=1)")
	assign := flag.Bool("assign", false, "add the cases split.yaml lacks to it (by the hash of their names) and exit")
	explain := flag.String("explain", "", "comma-separated case names: print their findings with messages and chains after the report (test cases only with -show-test)")
	flag.Parse()
	if *memLimit > 0 && os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(int64(*memLimit) << 20)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	var err error
	if *assign {
		err = assignNew(*dir)
	} else {
		err = run(ctx, *dir, *tree, *split, *jobs, *warm, *verbose, *summaries, *showTest, *explain)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "eval:", err)
		os.Exit(2)
	}
}

// assignNew adds the new cases of dir to its split file and prints how
// many went to each split (not which: the test split's names are for
// eval's eyes).
func assignNew(dir string) error {
	added, err := eval.AssignNew(dir)
	if err != nil {
		return err
	}
	n := map[string]int{}
	for _, a := range added {
		_, s, _ := strings.Cut(a, ": ")
		n[s]++
	}
	fmt.Printf("%s: %d cases added (train %d, test %d)\n", eval.SplitFileName, len(added), n["train"], n["test"])
	return nil
}

func run(ctx context.Context, dir, tree, split string, jobs, warm int, verbose, summaries, showTest bool, explain string) error {
	c, err := eval.Load(dir)
	if err != nil {
		return err
	}
	if err := c.FilterSplit(split); err != nil {
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
	ev, err := eval.NewEvaluator(eval.Options{Tree: tree, Index: ix, Jobs: jobs, Summaries: summaries, IndexWarm: warm})
	if err != nil {
		return err
	}
	res, err := ev.Run(ctx, c)
	if err != nil {
		return err
	}
	res.ShowTest = showTest
	if err := res.Write(os.Stdout); err != nil {
		return err
	}
	if explain == "" {
		return nil
	}
	fmt.Println()
	return res.Explain(os.Stdout, strings.Split(explain, ","), showTest)
}
