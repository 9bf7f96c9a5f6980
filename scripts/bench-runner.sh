#!/usr/bin/env bash
# Measures the runner's speed targets on the shared Linux 6.1 tree (not a
# timed test): kernel rebuild time after a one-file patch (target <= 30 s)
# and boot + suite time under the configured accelerator (target <= 15 s
# under TCG), with `autosel-bot test` end to end. With --cold it first
# measures a cold build (empty build dir and an empty ccache: ~10 min on 2
# cores). With --sandbox it also runs BenchmarkSandboxRebuild: the same
# one-file rebuild isolated as the runner does it (bwrap sandbox, build
# user, throwaway copy of the baseline build dir) and in place as before
# isolation (unsandboxed, in the shared build dir), alternated (target:
# isolated <= 25% slower).
#
# usage: scripts/bench-runner.sh [--cold] [--runs N] [--sandbox]
# env:   AUTOSEL_KERNEL_SRC (tree, default /var/tmp/autosel-bot/linux-6.1)
#        AUTOSEL_BOT_RUNNER_WORK_DIR (cache, default /var/tmp/autosel-bot/runner)
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=$PATH:/usr/local/go/bin
cold=0 runs=3 sandbox=0
while [ $# -gt 0 ]; do
  case $1 in
    --cold) cold=1 ;;
    --runs) runs=$2; shift ;;
    --sandbox) sandbox=1 ;;
    *) echo "usage: $0 [--cold] [--runs N] [--sandbox]" >&2; exit 2 ;;
  esac
  shift
done
tree=${AUTOSEL_KERNEL_SRC:-/var/tmp/autosel-bot/linux-6.1}
work=${AUTOSEL_BOT_RUNNER_WORK_DIR:-/var/tmp/autosel-bot/runner}
export AUTOSEL_BOT_RUNNER_WORK_DIR=$work
[ -d "$tree/.git" ] || go run ./internal/testkernel/cmd/prepare
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/autosel-bot" ./cmd/autosel-bot
bot=$tmp/autosel-bot

field() { jq -r ".$2" "$1"; }

if [ $cold = 1 ]; then
  # A cold build: fresh build dir and ccache, image cache bypassed by a
  # unique patch.
  export AUTOSEL_BOT_RUNNER_BUILD_DIR=$tmp/build AUTOSEL_BOT_RUNNER_CCACHE_DIR=$tmp/ccache
  printf 'diff --git a/init/version.c b/init/version.c\n--- a/init/version.c\n+++ b/init/version.c\n@@ -1,3 +1,4 @@\n+/* autosel-bot cold build %s */\n' "$(date +%s%N)" > "$tmp/cold.patch"
  git -C "$tree" show base:init/version.c | head -3 | sed 's/^/ /' >> "$tmp/cold.patch"
  start=$(date +%s.%N)
  "$bot" test --tree "$tree" --baseline base --patch "$tmp/cold.patch" --format json --tests pipe_two_readers > "$tmp/cold.json" || true
  end=$(date +%s.%N)
  echo "cold build: $(field "$tmp/cold.json" build_seconds) s (make), $(echo "$end - $start" | bc) s end to end"
  unset AUTOSEL_BOT_RUNNER_BUILD_DIR AUTOSEL_BOT_RUNNER_CCACHE_DIR
fi

# Warm up: the baseline image and build dir exist afterwards.
"$bot" test --tree "$tree" --baseline base --format json > "$tmp/warm.json" || true
echo "baseline: status $(field "$tmp/warm.json" status), build $(field "$tmp/warm.json" build_seconds) s, boot + suite $(field "$tmp/warm.json" patched_vm_seconds) s, accel $(field "$tmp/warm.json" accel)"

line=$(git -C "$tree" show base:fs/pipe.c | grep -n '^pipe_release(struct inode \*inode, struct file \*file)$' | cut -d: -f1)
for i in $(seq 1 "$runs"); do
  # A one-file code change that ccache has never seen.
  n=$(date +%s%N)
  {
    echo "diff --git a/fs/pipe.c b/fs/pipe.c"
    echo "--- a/fs/pipe.c"
    echo "+++ b/fs/pipe.c"
    echo "@@ -$((line+2)),2 +$((line+2)),3 @@ pipe_release(struct inode *inode, struct file *file)"
    git -C "$tree" show base:fs/pipe.c | sed -n "$((line+2)),$((line+3))p" | sed '1s/^/ /; 2s/^/ /' | sed '1a+\tasm volatile("" :: "i" ('"$((n % 1000000))"'));'
  } > "$tmp/p$i.patch"
  start=$(date +%s.%N)
  "$bot" test --tree "$tree" --baseline base --patch "$tmp/p$i.patch" --format json > "$tmp/r$i.json" || true
  end=$(date +%s.%N)
  echo "run $i: status $(field "$tmp/r$i.json" status), rebuild $(field "$tmp/r$i.json" build_seconds) s, patched boot + suite $(field "$tmp/r$i.json" patched_vm_seconds) s, baseline boot + suite $(field "$tmp/r$i.json" baseline_vm_seconds) s, end to end $(echo "$end - $start" | bc) s"
done

if [ $sandbox = 1 ]; then
  # Sandboxed vs unsandboxed rebuild, alternated, same build dir and ccache.
  AUTOSEL_BENCH_KERNEL=1 AUTOSEL_RUNNER_WORKDIR=$work go test -run '^$' -bench BenchmarkSandboxRebuild \
    -benchtime "${runs}x" -timeout 60m ./runner 2>&1 | grep -E '^(Benchmark|ok|FAIL|---)|sandbox_bench_test' || true
fi
