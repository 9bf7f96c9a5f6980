#!/usr/bin/env bash
# Installs everything the test suite needs on a fresh Debian machine (as
# root): Debian packages, Go (if missing), and the shared kernel tree. Each
# part of the project may add a script .ci/setup.d/NN-name.sh; they run in
# order after the packages are installed. Idempotent. Every apt-get here and
# in setup.d waits up to 10 minutes for the dpkg lock
# (-o DPkg::Lock::Timeout=600) instead of failing when another apt
# (unattended-upgrades on a fresh machine) runs; ci_test.go checks it.
set -euo pipefail
cd "$(dirname "$0")/.."
export DEBIAN_FRONTEND=noninteractive
pkgs=$(grep -hv '^#' .ci/packages.txt | tr '\n' ' ')
missing=""
for p in $pkgs; do dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"; done
if [ -n "$missing" ]; then
  apt-get -o DPkg::Lock::Timeout=600 update -qq
  apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends $missing >/dev/null
fi
# Go: the language version go.mod names (1.N or 1.N.0; 1.N means its first
# release, 1.N.0), at /usr/local/go. Machines of this kind ship
# it; otherwise Debian's (older) go fetches that toolchain as a module from
# the Go module proxy and it is installed at /usr/local/go.
export PATH=/usr/local/go/bin:$PATH
need=$(sed -n 's/^go //p' go.mod)
case "$need" in *.*.*) ;; *) need=$need.0 ;; esac
have=$(go env GOVERSION 2>/dev/null | sed 's/^go//')
if [ -z "$have" ] || [ "$(printf '%s\n%s\n' "$need" "$have" | sort -V | head -1)" != "$need" ]; then
  echo "setup: installing Go $need (found: ${have:-none})"
  apt-get -o DPkg::Lock::Timeout=600 install -y -qq golang-go >/dev/null
  tmp=$(mktemp -d)
  dir=$(cd "$tmp" && GOFLAGS= GOPATH=$tmp/gopath /usr/lib/go/bin/go mod download -json \
    "golang.org/toolchain@v0.0.1-go$need.linux-amd64" | sed -n 's/.*"Dir": "\(.*\)",/\1/p')
  [ -x "$dir/bin/go" ] || [ -f "$dir/bin/go" ] || { echo "setup: Go $need toolchain not found" >&2; exit 1; }
  rm -rf /usr/local/go && cp -r "$dir" /usr/local/go && chmod -R u+w /usr/local/go
  chmod +x /usr/local/go/bin/* /usr/local/go/pkg/tool/*/*
  chmod -R u+w "$tmp" && rm -rf "$tmp"
fi
for f in .ci/setup.d/*.sh; do
  [ -e "$f" ] || continue
  echo "setup: $f"
  bash "$f"
done
