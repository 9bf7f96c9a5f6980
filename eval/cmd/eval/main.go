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
	"runtime/pprof"
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
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of the run to `FILE` (go tool pprof)")
	memProfile := flag.String("memprofile", "", "write a heap profile to `FILE` (go tool pprof) after the cases ran, while the index and its caches are still live")
	flag.Parse()
	stopProfile := func() {}
	if *cpuProfile != "" {
		var err error
		if stopProfile, err = startCPUProfile(*cpuProfile); err != nil {
			fmt.Fprintln(os.Stderr, "eval:", err)
			os.Exit(2)
		}
	}
	if *memLimit > 0 && os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(int64(*memLimit) << 20)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	var err error
	if *assign {
		err = assignNew(*dir)
	} else {
		err = run(ctx, runOptions{dir: *dir, tree: *tree, split: *split, jobs: *jobs, warm: *warm,
			verbose: *verbose, summaries: *summaries, showTest: *showTest, explain: *explain, memProfile: *memProfile})
	}
	stopProfile()
	if err != nil {
		fmt.Fprintln(os.Stderr, "eval:", err)
		os.Exit(2)
	}
}

// startCPUProfile starts a CPU profile written to path; the returned
// function stops it and closes the file.
func startCPUProfile(path string) (func(), error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("cpu profile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("cpu profile %s: %w", path, err)
	}
	return func() {
		pprof.StopCPUProfile()
		if err := f.Close(); err != nil {
			fmt.Fprintln(os.Stderr, "eval: cpu profile:", err)
		}
	}, nil
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

// runOptions are the flags of a measuring run.
type runOptions struct {
	dir, tree, split    string
	jobs, warm          int
	verbose, summaries  bool
	showTest            bool
	explain, memProfile string
}

func run(ctx context.Context, o runOptions) error {
	c, err := eval.Load(o.dir)
	if err != nil {
		return err
	}
	if err := c.FilterSplit(o.split); err != nil {
		return err
	}
	tree := o.tree
	if tree == "" {
		if tree, err = testkernel.Prepare(); err != nil {
			return fmt.Errorf("kernel tree: %w", err)
		}
	}
	log := slog.New(slog.DiscardHandler)
	if o.verbose {
		log = slog.New(slog.NewTextHandler(os.Stderr, nil))
	}
	start := time.Now()
	ix, err := index.Open(ctx, tree, index.Options{Logger: log})
	if err != nil {
		return fmt.Errorf("index %s: %w", tree, err)
	}
	fmt.Printf("index of %s opened in %s\n", tree, time.Since(start).Round(100*time.Millisecond))
	ev, err := eval.NewEvaluator(eval.Options{Tree: tree, Index: ix, Jobs: o.jobs, Summaries: o.summaries, IndexWarm: o.warm})
	if err != nil {
		return err
	}
	res, err := ev.Run(ctx, c)
	if err != nil {
		return err
	}
	if o.memProfile != "" {
		if err := writeHeap(o.memProfile); err != nil {
			return err
		}
		runtime.KeepAlive(ev)
	}
	res.ShowTest = o.showTest
	if err := res.Write(os.Stdout); err != nil {
		return err
	}
	if o.explain == "" {
		return nil
	}
	fmt.Println()
	return res.Explain(os.Stdout, strings.Split(o.explain, ","), o.showTest)
}

// writeHeap collects and writes the heap profile to path: in use is the
// live heap now, alloc everything the run allocated.
func writeHeap(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("heap profile: %w", err)
	}
	runtime.GC()
	if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
		f.Close()
		return fmt.Errorf("heap profile %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("heap profile %s: %w", path, err)
	}
	return nil
}
