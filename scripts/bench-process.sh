#!/usr/bin/env bash
# Whole-process benchmarks of the cold and worst paths (issue #36), each
# command measured with GNU time -v over --runs runs (default 3): the
# median wall time, the median and largest peak RSS, and the median CPU
# time (user + system) are printed. Run from `make bench` when
# AUTOSEL_BENCH_PROCESS is set (to "all" or to the names below), since
# together they take many minutes and several GB.
#
#   cold       `check --tree` of one small patch on a fresh cache directory
#              (XDG_CACHE_HOME): the index, struct typing and the
#              whole-tree summaries are all built. Target <= 60 s wall on
#              2 idle cores and <= 1.5 GB peak.
#   cold-index `index build --summaries=false` on a fresh cache directory:
#              the index store alone (the first stage of cold).
#   worst      one-shot `check --tree` of the slowest series of the
#              corpus's train split (warm cache; listed below; find others
#              with scripts/bench-oneshot.sh --train).
#              Target <= 1 s and <= 300 MB each.
#   multifile  one-shot `check --tree` of testdata/bench/treewide-dev-err.patch
#              (24 driver files; made by scripts/gen-treewide-patch) and the
#              tree's scripts/checkpatch.pl on the same patch. Target: the
#              check <= 2x checkpatch.
#   eval       `make eval` (the evaluator built first, so the build is not
#              measured). Target <= 3 min and <= 3 GB.
#
# usage: scripts/bench-process.sh [--runs N] [cold|cold-index|worst|multifile|eval|all]...
# env:   AUTOSEL_KERNEL_SRC (tree, default /var/tmp/autosel-bot/linux-6.1)
#        BOT (a built autosel-bot to measure instead of building one)
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=$PATH:/usr/local/go/bin LC_ALL=C
usage() { echo "usage: $0 [--runs N] [cold|cold-index|worst|multifile|eval|all]..." >&2; exit 2; }
runs=3
what=()
while [ $# -gt 0 ]; do
  case $1 in
    --runs) [ $# -ge 2 ] || usage; runs=$2; shift ;;
    cold|cold-index|worst|multifile|eval) what+=("$1") ;;
    all) what+=(cold cold-index worst multifile eval) ;;
    *) usage ;;
  esac
  shift
done
[[ $runs =~ ^[1-9][0-9]*$ ]] || usage
[ ${#what[@]} -gt 0 ] || what=(cold worst multifile eval)
[ -x /usr/bin/time ] || { echo "$0: needs GNU time (apt-get install time)" >&2; exit 2; }
. scripts/lib-bot.sh

# The worst series of the train split (one-shot, warm: the largest peak
# RSS and CPU time of a sweep over the train split's bugs, near misses
# and part of the ordinary cases on 2026-12-02; check refuses the
# variants, which are bare diffs), and an ordinary patch to widely
# included headers (include/linux/pgtable.h) found by the groups of
# scripts/bench-oneshot.sh on 2026-12-06, and an ordinary patch changing
# two functions of one file (drivers/char/agp/generic.c) found by a sweep
# of every series on 2026-12-07: each dirtied every stored summary above
# it (a config stub taken for the real function; a change read by another
# change taken for a cycle) and took 6 and 9 s.
worst=(
  eval/bugs/sleep/ext2-get-group-desc-error/bug.patch
  eval/nearmiss/sleep/gfs2-flock-holder-uninit-f-lock/patch
  eval/nearmiss/sleep/bcm-kona-wdt-spinlock-to-mutex/patch
  eval/nearmiss/wakeup/xsk-tx-writeable-half-ring-wake/patch
  eval/bugs/sleep/n-gsm-tx-lock-to-mutex/bug.patch
  eval/bugs/wakeup/tracing-buffers-flush-wake-readers/bug.patch
  eval/ordinary/1069-mm-introduce-and-use-pgd-p4d-populate-kernel.patch
  eval/ordinary/0020-agp-fix-oom-and-buffer-overflow.patch
)

# seconds H:MM:SS|M:SS.ss: the number of seconds.
seconds() {
  awk -F: '{ s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; printf "%.2f\n", s }' <<< "$1"
}

# run1 OUT CMD...: runs CMD once under time -v and appends
# "wall_s rss_kb cpu_s exit" to OUT. Exit status 1 (findings at the fail
# level, checkpatch's errors) is expected; a larger one stops the bench.
run1() {
  local out=$1 rc=0
  shift
  /usr/bin/time -v -o "$tmp/time" "$@" > /dev/null 2> "$tmp/err" || rc=$?
  if [ $rc -gt 1 ]; then
    echo "$0: $* failed (exit $rc):" >&2
    tail -5 "$tmp/err" >&2
    exit 1
  fi
  local wall rss user sys
  wall=$(seconds "$(sed -n 's/.*Elapsed (wall clock) time.*: //p' "$tmp/time")")
  rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$tmp/time")
  user=$(sed -n 's/.*User time (seconds): //p' "$tmp/time")
  sys=$(sed -n 's/.*System time (seconds): //p' "$tmp/time")
  echo "$wall $rss $(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }') $rc" >> "$out"
}

# median FILE COL: the median of column COL (the lower middle one for an
# even count, so that it is a measured value).
median() {
  sort -n -k"$2" "$1" | awk -v c="$2" '{ v[NR] = $c } END { print v[int((NR + 1) / 2)] }'
}

# report NAME FILE: one line of medians for a results file.
report() {
  local max
  max=$(sort -n -k2 "$2" | awk 'END { print $2 }')
  printf '%-40s wall %7.2f s  cpu %7.2f s  rss %5d MB (max %5d MB)  runs %d\n' "$1" \
    "$(median "$2" 1)" "$(median "$2" 3)" "$(( $(median "$2" 2) / 1024 ))" "$(( max / 1024 ))" "$(wc -l < "$2")"
}

# measure NAME CMD...: --runs runs of CMD, reported as NAME.
measure() {
  local name=$1
  shift
  : > "$tmp/runs"
  for _ in $(seq "$runs"); do run1 "$tmp/runs" "$@"; done
  report "$name" "$tmp/runs"
}

small=testdata/seeds/004-epoll-autoremove.mbox
check=("$bot" check --format terse --tree "$tree")
# fresh NAME CMD...: --runs runs of CMD, each on its own empty cache (and
# no user configuration), reported as NAME.
fresh() {
  local name=$1
  shift
  : > "$tmp/runs"
  for i in $(seq "$runs"); do
    mkdir -p "$tmp/cold$i/config"
    XDG_CACHE_HOME=$tmp/cold$i XDG_CONFIG_HOME=$tmp/cold$i/config run1 "$tmp/runs" "$@"
    rm -rf "$tmp/cold$i"
  done
  report "$name" "$tmp/runs"
}

for w in "${what[@]}"; do
  case $w in
    cold)
      fresh "cold check --tree (fresh cache)" "${check[@]}" "$small"
      ;;
    cold-index)
      fresh "cold index build (fresh cache)" "$bot" index build --summaries=false --tree "$tree"
      ;;
    worst)
      "${check[@]}" "$small" > /dev/null || [ $? = 1 ] # the warm-up
      for s in "${worst[@]}"; do measure "${s#eval/}" "${check[@]}" "$s"; done
      ;;
    multifile)
      p=$PWD/testdata/bench/treewide-dev-err.patch
      "${check[@]}" "$small" > /dev/null || [ $? = 1 ]
      measure "multifile check --tree ($(grep -c '^diff --git' "$p") files)" "${check[@]}" "$p"
      measure "multifile checkpatch.pl" bash -c 'cd "$1" && exec perl scripts/checkpatch.pl -q --no-signoff "$2"' _ "$tree" "$p"
      ;;
    eval)
      go build -o "$tmp/eval" ./eval/cmd/eval
      measure "make eval" "$tmp/eval" -dir eval
      ;;
  esac
done
