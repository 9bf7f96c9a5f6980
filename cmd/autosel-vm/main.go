// Command autosel-vm is the entry point of the autosel-vm workflow
// (.github/workflows/autosel-vm.yml): it boots a kernel + suite bundle
// built by autosel-bot's github-actions runner backend with the runner's
// QEMU command line and watchdog, and leaves console.log, results.log and
// outcome.json in --out for the workflow to upload. It exits 1 when the
// boot could not run at all (an infrastructure failure, also recorded in
// outcome.json), 2 on bad usage, and 0 for every guest outcome.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/autosel-bot/autosel-bot/runner/actions"
)

func main() {
	bundle := flag.String("bundle", "", "bundle (tar.gz) to boot")
	out := flag.String("out", "results", "directory for console.log, results.log and outcome.json")
	qemu := flag.String("qemu", "qemu-system-x86_64", "QEMU binary")
	flag.Parse()
	if *bundle == "" || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: autosel-vm --bundle FILE [--out DIR] [--qemu BINARY]")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	o, err := actions.RunBundle(ctx, *bundle, *out, *qemu)
	if err != nil {
		fmt.Fprintln(os.Stderr, "autosel-vm:", err)
		os.Exit(1)
	}
	fmt.Printf("autosel-vm: %s (stopped=%v) in %s\n", o.Why, o.Stopped, o.Elapsed)
}
