// Package runner builds a patched kernel, boots it in QEMU with a small
// regression suite in its initramfs, and compares the results with the
// unpatched baseline.
//
// The flow: a Request (tree, ref, patches) goes to a Backend. The local
// backend refuses patches that would run code on the host while building
// (patchguard.go), applies them in a persistent git worktree per tree
// (worktree.go), builds with a fixed config (tinyconfig + kconfig/*.config)
// in a persistent O= build dir with ccache (build.go, kconfig.go), packs the
// suite (suite/*.c, compiled -static on the host) and a tiny init
// (guest/init.c) into a newc initramfs (initramfs.go), and boots it
// (qemu.go, accel.go). The guest reports on a UART the kernel never prints
// to, in checksummed frames (results.go); kernel splats are attributed to
// the test that was running (splat.go) and turned into verdicts
// (verdict.go). Runner.Compare runs baseline and patched kernels and fills
// a report.VMReport with regressions and metric changes (compare.go).
package runner
