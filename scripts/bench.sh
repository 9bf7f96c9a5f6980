#!/usr/bin/env bash
# Runs the project's Go benchmarks and prints their results. Each package
# that has targets adds its benchmarks; results are quoted in issue notes.
# Benchmarks that build kernels (runner: BenchmarkSandboxRebuild, the build
# sandbox's overhead; stable: BenchmarkStableRebuild, a cold and a warm run
# of a 2-patch series on two trees, target warm <= 1/4 of cold; each
# iteration builds two trees cold, so use BENCHTIME=1x) skip unless
# AUTOSEL_BENCH_KERNEL=1 is set, as scripts/bench-runner.sh --sandbox does:
#   AUTOSEL_BENCH_KERNEL=1 BENCHTIME=1x make bench
# The scanner benchmarks (cscan: BenchmarkScanFile, BenchmarkParseFile;
# index: BenchmarkScanAssigns, BenchmarkIndexCold, BenchmarkAssignsCold) read
# the shared Linux 6.1 tree; the first three also report cpu-ms/op, the
# process CPU time per run, which a machine shared with other jobs disturbs
# much less than ns/op. pipeline's BenchmarkAnalysisTree (check --tree on
# 1 and 20 patches, warm index and stored summaries; the 20 also two at
# once, as check --workers 2 runs them) and BenchmarkPrepare
# (the whole-tree summaries, about 30 s an iteration) read it too. The
# whole-process benchmarks of the cold and worst paths (scripts/bench-process.sh:
# the first check --tree on a fresh cache, the worst series one-shot, a
# 24-file patch against checkpatch, make eval; medians of 3 under GNU time,
# many minutes and several GB) run only when AUTOSEL_BENCH_PROCESS names
# them ("all", or some of cold cold-index worst multifile eval):
#   AUTOSEL_BENCH_PROCESS="worst multifile" make bench
# Only the scanners, for example:
#   go test -run '^$' -bench 'ScanFile|ParseFile|ScanAssigns' -benchtime 5x ./cscan ./index
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=$PATH:/usr/local/go/bin
go test -run '^$' -bench . -benchmem -benchtime "${BENCHTIME:-3x}" ./... 2>&1 | grep -E '^(Benchmark|ok|PASS|FAIL|---)' || true
if [ -n "${AUTOSEL_BENCH_PROCESS:-}" ]; then
  # shellcheck disable=SC2086 # a list of benchmark names
  bash scripts/bench-process.sh ${AUTOSEL_BENCH_PROCESS}
fi
