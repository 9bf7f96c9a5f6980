#!/usr/bin/env bash
# Writes what `check --tree --format json` reports for every series of the
# evaluation corpus and the seeds, one file per series, so that two versions
# of the bot can be compared byte for byte (a refactor must not change a
# finding; a rule change lists what it changed):
#
#   scripts/findings-golden.sh OUT          # with a bot built from this tree
#   BOT=/tmp/old-bot scripts/findings-golden.sh OLD
#   diff -r OLD OUT
#
# Only findings are kept (rule, category, severity, file, function, line,
# message, evidence, chain): timings and versions are dropped. Series that
# check refuses as input (no patch in them) get the error line instead.
# env: AUTOSEL_KERNEL_SRC (tree, default /var/tmp/autosel-bot/linux-6.1),
#      BOT (a built autosel-bot), JOBS (processes at once, default 2)
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=$PATH:/usr/local/go/bin LC_ALL=C
[ $# = 1 ] || { echo "usage: $0 OUTDIR" >&2; exit 2; }
out=$1
command -v jq >/dev/null || { echo "$0: needs jq" >&2; exit 2; }
. scripts/lib-bot.sh
mkdir -p "$out"
{ find eval -path eval/testdata -prune -o \( -name '*.patch' -o -name patch \) -print; ls testdata/seeds/*.mbox; } |
  sort > "$tmp/series"
# The first run prepares the index and the stored summaries.
"$bot" check --format json --tree "$tree" "$(head -1 "$tmp/series")" > /dev/null 2>&1 || true
export bot tree out
one() {
  local s=$1 f rc=0
  f=$out/$(echo "$s" | tr / _).json
  "$bot" check --format json --tree "$tree" "$s" > "$f.raw" 2> "$f.err" || rc=$?
  if [ $rc -gt 1 ]; then
    grep -v '^[[:space:]]*$' "$f.err" | tail -1 > "$f"
  else
    jq -S -c '[.patches[]? | {number, notes, findings: [.findings[]? | del(.id?)]}]' "$f.raw" > "$f"
  fi
  rm -f "$f.raw" "$f.err"
}
export -f one
xargs -P "${JOBS:-2}" -I{} bash -c 'one "$@"' _ {} < "$tmp/series"
echo "$(wc -l < "$tmp/series") series written to $out"
