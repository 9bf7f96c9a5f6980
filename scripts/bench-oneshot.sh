#!/usr/bin/env bash
# Measures `check --tree` as a maintainer runs it (not a timed test): one
# process per series over every series of the evaluation corpus and the
# seeds, with a warm index and stored summaries, and then the same series
# 20 at a time in one process (in sorted order, so a bug and its fix share
# a group). Targets: one patch <= 1 s wall and <= 300 MB peak RSS; 20
# patches in one process <= 3 s. It prints the percentiles, every series
# and group over a target, and the slowest of each. The first run of a new
# tree or model prepares the index and the summaries (about a minute).
#
# --train leaves out the cases of the corpus's test split (eval/split.yaml):
# only train and seen cases, eval/variants and the seeds are run, so that
# the slowest series can be named and studied without reading held-out
# cases.
#
# usage: scripts/bench-oneshot.sh [--runs N] [--groups-only] [--train]
# env:   AUTOSEL_KERNEL_SRC (tree, default /var/tmp/autosel-bot/linux-6.1)
#        BOT (a built autosel-bot to measure instead of building one)
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=$PATH:/usr/local/go/bin LC_ALL=C
usage() { echo "usage: $0 [--runs N] [--groups-only] [--train]" >&2; exit 2; }
runs=1 groups_only=0 train=0
while [ $# -gt 0 ]; do
  case $1 in
    --runs) [ $# -ge 2 ] || usage; runs=$2; shift ;;
    --groups-only) groups_only=1 ;;
    --train) train=1 ;;
    *) usage ;;
  esac
  shift
done
[[ $runs =~ ^[1-9][0-9]*$ ]] || usage
[ -x /usr/bin/time ] || { echo "$0: needs GNU time (apt-get install time)" >&2; exit 2; }
. scripts/lib-bot.sh
# eval/testdata holds the evaluator's own test fixtures, not series.
{ find eval -path eval/testdata -prune -o \( -name '*.patch' -o -name patch \) -print; ls testdata/seeds/*.mbox; } |
  sort > "$tmp/series"
if [ $train = 1 ]; then
  # A case's key is its directory under eval/; split.yaml lists "key: split".
  awk -F': ' '$2 == "test" { print "eval/" $1 "/" }' eval/split.yaml > "$tmp/test-dirs"
  grep -v -F -f "$tmp/test-dirs" "$tmp/series" > "$tmp/series.train" || true
  mv "$tmp/series.train" "$tmp/series"
fi
n=$(wc -l < "$tmp/series")

# measure OUT ARGS...: one check process; appends "wall_s rss_kb" to OUT.
# Exit status 1 is findings at or above the fail level. A series check
# refuses as input (no patch in it: some ordinary cases are discussions)
# returns 3 with the reason in $tmp/err; any other failure (a crash, the
# OOM killer, an error opening the index) stops the measurement.
measure() {
  local out=$1 rc=0
  shift
  /usr/bin/time -o "$tmp/time" -f "%e %M" "$bot" check --format terse --tree "$tree" "$@" \
    > /dev/null 2> "$tmp/err" || rc=$?
  if [ $rc -gt 1 ]; then
    if [ $rc = 2 ] && grep -qE 'check: (no patches found in the input|nothing could be processed)' "$tmp/err"; then
      return 3
    fi
    echo "$0: check $* failed (exit $rc):" >&2
    cat "$tmp/time" >&2
    tail -5 "$tmp/err" >&2
    exit 1
  fi
  tail -1 "$tmp/time" >> "$out"
}

# median FILE: the median of column 1 (the mean of the middle two for an
# even count).
median() {
  sort -n -k1 "$1" | awk '{ v[NR] = $1 } END {
    if (NR % 2) print v[(NR + 1) / 2]; else printf "%.2f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# pct FILE COL P: the P-th percentile of column COL (nearest rank).
pct() {
  sort -n -k"$2" "$1" | awk -v c="$2" -v p="$3" '{ v[NR] = $c } END {
    i = int((p * NR + 99) / 100); if (i < 1) i = 1; print v[i] }'
}

# percentiles FILE P...: wall and RSS percentiles of a results file.
percentiles() {
  local f=$1 p
  shift
  for p in "$@"; do
    printf '  p%-3s %5.2f s %5d MB\n' "$p" "$(pct "$f" 1 "$p")" "$(( $(pct "$f" 2 "$p") / 1024 ))"
  done
}

# The warm-up: opens (or prepares) the index and the stored summaries.
: > "$tmp/warm"
measure "$tmp/warm" "$(head -1 "$tmp/series")" || { tail -5 "$tmp/err" >&2; exit 1; }

if [ $groups_only = 0 ]; then
  : > "$tmp/one"
  : > "$tmp/skipped"
  while read -r s; do
    : > "$tmp/runs"
    for _ in $(seq "$runs"); do
      if ! measure "$tmp/runs" "$s"; then
        echo "$s: $(grep -v '^[[:space:]]*$' "$tmp/err" | tail -1)" >> "$tmp/skipped"
        : > "$tmp/runs"
        break
      fi
    done
    [ -s "$tmp/runs" ] || continue
    # The median of the runs (wall), with the largest RSS seen.
    echo "$(median "$tmp/runs") $(sort -n -k2 "$tmp/runs" | awk 'END { print $2 }') $s" >> "$tmp/one"
  done < "$tmp/series"
  echo "one process per series: $(wc -l < "$tmp/one") of $n series, median of $runs run(s) each"
  sed 's/^/  not measured: /' "$tmp/skipped"
  if [ -s "$tmp/one" ]; then
    percentiles "$tmp/one" 50 95 99 100
    awk '$1 > 1 || $2 > 300 * 1024 { printf "  over a target: %5.2f s %5d MB  %s\n", $1, $2 / 1024, $3 }' "$tmp/one"
    echo "  slowest:"
    sort -rn -k1 "$tmp/one" | awk 'NR <= 5 { printf "    %5.2f s %5d MB  %s\n", $1, $2 / 1024, $3 }'
  fi
fi

# A series check refuses does not end a process that has others to
# analyse, so the groups take every series.
split -l 20 -d -a 3 "$tmp/series" "$tmp/group."
: > "$tmp/groups"
for g in "$tmp"/group.*; do
  mapfile -t files < "$g"
  : > "$tmp/runs"
  for _ in $(seq "$runs"); do
    measure "$tmp/runs" "${files[@]}" || { echo "$0: group from ${files[0]}:" >&2; tail -5 "$tmp/err" >&2; exit 1; }
  done
  echo "$(median "$tmp/runs") $(sort -n -k2 "$tmp/runs" | awk 'END { print $2 }') ${#files[@]} ${files[0]}" >> "$tmp/groups"
done
echo "one process per group of up to 20 series (sorted order): $(wc -l < "$tmp/groups") groups, median of $runs run(s) each"
percentiles "$tmp/groups" 50 95 100
awk '$1 > 3 { printf "  over 3 s: %5.2f s %5d MB  %d series from %s\n", $1, $2 / 1024, $3, $4 }' "$tmp/groups"
echo "  slowest:"
sort -rn -k1 "$tmp/groups" | awk 'NR <= 3 { printf "    %5.2f s %5d MB  %d series from %s\n", $1, $2 / 1024, $3, $4 }'
