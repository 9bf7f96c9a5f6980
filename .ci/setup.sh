#!/usr/bin/env bash
# Installs everything the test suite needs on a fresh Debian machine (as
# root): Debian packages, Go (if missing), and the shared kernel tree. Each
# part of the project may add a script .ci/setup.d/NN-name.sh; they run in
# order after the packages are installed. Idempotent.
set -euo pipefail
cd "$(dirname "$0")/.."
export DEBIAN_FRONTEND=noninteractive
pkgs=$(grep -hv '^#' .ci/packages.txt | tr '\n' ' ')
missing=""
for p in $pkgs; do dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"; done
if [ -n "$missing" ]; then
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi
if ! command -v go >/dev/null; then
  if [ -x /usr/local/go/bin/go ]; then export PATH=$PATH:/usr/local/go/bin
  else apt-get install -y -qq golang-go >/dev/null; fi
fi
for f in .ci/setup.d/*.sh; do
  [ -e "$f" ] || continue
  echo "setup: $f"
  bash "$f"
done
