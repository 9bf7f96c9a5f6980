#!/usr/bin/env bash
# Runs the project's Go benchmarks and prints their results. Each package
# that has targets adds its benchmarks; results are quoted in issue notes.
# Benchmarks that build kernels (runner: BenchmarkSandboxRebuild, the build
# sandbox's overhead) skip unless AUTOSEL_BENCH_KERNEL=1 is set, as
# scripts/bench-runner.sh --sandbox does.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=$PATH:/usr/local/go/bin
go test -run '^$' -bench . -benchmem -benchtime "${BENCHTIME:-3x}" ./... 2>&1 | grep -E '^(Benchmark|ok|PASS|FAIL|---)' || true
