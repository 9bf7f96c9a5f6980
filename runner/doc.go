// Package runner builds a patched kernel, boots it in QEMU with a small
// regression suite in its initramfs, and compares the results with the
// unpatched baseline.
//
// The flow: a Request (tree, ref, patches) goes to a Backend. The local
// backend refuses patches that would run code on the host while building
// (internal/patchguard: git's own view of paths and modes, the tree's Kbuild
// host tools), applies them in a persistent git worktree per tree
// (worktree.go), builds with a fixed config (tinyconfig + kconfig/*.config)
// in a persistent O= build dir with ccache (build.go, kconfig.go) -- make
// and merge_config.sh run in the bwrap build sandbox (internal/sandbox) --
// packs the
// suite (suite/*.c, compiled -static on the host) and a tiny init
// (guest/init.c) into a newc initramfs (initramfs.go), and boots it
// (qemu.go, accel.go). The guest reports on a UART the kernel never prints
// to, in checksummed frames (results.go), or on the console for labs that
// record only it (ConsoleResultsArg, SplitConsole: console.go); kernel splats are attributed to
// the test that was running (splat.go) and turned into verdicts
// (verdict.go). Runner.Compare runs baseline and patched kernels and fills
// a report.VMReport with regressions and metric changes (runner.go).
package runner

// Usage:
//
//	autosel-bot test --tree ~/linux --patch fix.patch        # vs HEAD
//	autosel-bot test --tree ~/linux --range v6.1..my-branch --format json
//
// Caches live under runner.work_dir (default /var/tmp/autosel-bot/runner):
// src/<tree>/ (worktree), build/<tree>/ (O= dir), ccache/, images/<key>/
// (kernels by commit+patches+config), suite/<hash>/ (static test
// binaries), runs/<time>/ (console.log, results.log, initramfs of the last
// runs), logs/ (build logs), accel-probe.json (the KVM probe outcome).
//
// Tests: `go test ./runner/` runs unit tests, fake-QEMU tests and the
// integration tests on the shared Linux 6.1 tree (internal/testkernel):
// one cold build (~10 min on 2 cores), then one-file rebuilds. `go test
// -short` skips the integration tests. scripts/bench-runner.sh measures
// rebuild and boot + suite times (and the cold build with --cold).
