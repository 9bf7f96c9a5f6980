#!/usr/bin/env bash
# Helpers for writing eval/ cases (eval/README.md) without building the bot.
#
#   scripts/eval-case.sh split NAME       the split a new case of that name gets:
#                                         NAME is "bugs/<family>/<case>",
#                                         "nearmiss/<family>/<case>" or
#                                         "ordinary/<file>.patch"
#   scripts/eval-case.sh check DIR...     check case directories: bug.patch
#                                         applies to the tree, bug.patch +
#                                         fix.patch give the tree back (near
#                                         misses and variants: patch or
#                                         bug.patch applies; a near miss
#                                         with in_tree: true reverse-applies)
#
# The tree is $AUTOSEL_KERNEL_SRC, else /var/tmp/autosel-bot/linux-6.1 (the
# shared Linux 6.1.192 tree of internal/testkernel). The tree is never
# modified: patches are applied to copies of the files they touch.
# `go test ./eval/...` makes the same checks and more; this is the quick one.
set -euo pipefail
tree=${AUTOSEL_KERNEL_SRC:-/var/tmp/autosel-bot/linux-6.1}

# split prints train or test: the first 32 bits of SHA-256 of NAME, below
# 0.4 * 2^32, is test (eval/split.go's Assign does the same).
split() {
	local h
	h=$(printf '%s' "$1" | sha256sum | cut -c1-8)
	if (( 16#$h < 1717986918 )); then echo test; else echo train; fi
}

# files lists the paths a diff touches (its --- a/ and +++ b/ lines).
files() {
	sed -n -e 's|^--- [ab]/||p' -e 's|^+++ [ab]/||p' "$1" | sed 's/\t.*//' | sort -u
}

check() {
	local dir=$1 first second work f
	if [ -f "$dir/bug.patch" ]; then first=$dir/bug.patch; else first=$dir/patch; fi
	second=
	[ -f "$dir/fix.patch" ] && second=$dir/fix.patch
	[ -f "$first" ] || { echo "$dir: no bug.patch or patch" >&2; return 1; }
	local rev=
	if [ -f "$dir/case.yaml" ] && grep -q '^in_tree: *true' "$dir/case.yaml"; then rev=-R; fi
	if ! git -C "$tree" apply --check $rev "$(realpath "$first")" >/dev/null 2>&1; then
		git -C "$tree" apply --check $rev "$(realpath "$first")" 2>&1 | sed "s|^|$dir: |" >&2 || true
		return 1
	fi
	[ -n "$second" ] || { echo "$dir: ok"; return 0; }
	work=$(mktemp -d)
	trap 'rm -rf "$work"' RETURN
	(cd "$work" && git init -q .)
	for f in $(files "$first") $(files "$second"); do
		[ -f "$tree/$f" ] || continue
		mkdir -p "$work/$(dirname "$f")"
		cp "$tree/$f" "$work/$f"
	done
	(cd "$work" && git add -A && git -c user.name=x -c user.email=x@x commit -qm base --allow-empty)
	if ! (cd "$work" && git apply "$(cd "$OLDPWD" && realpath "$first")"); then
		echo "$dir: bug.patch does not apply to the copied files" >&2
		return 1
	fi
	if ! (cd "$work" && git apply "$(cd "$OLDPWD" && realpath "$second")"); then
		echo "$dir: fix.patch does not apply on top of bug.patch" >&2
		return 1
	fi
	if ! (cd "$work" && git diff --quiet HEAD -- . && [ -z "$(git status --porcelain)" ]); then
		echo "$dir: bug.patch + fix.patch does not give back the tree:" >&2
		(cd "$work" && git status --short && git diff HEAD | head -40) >&2
		return 1
	fi
	echo "$dir: ok"
}

case ${1:-} in
split)
	shift
	for n in "$@"; do echo "$n $(split "$n")"; done
	;;
check)
	shift
	rc=0
	for d in "$@"; do check "${d%/}" || rc=1; done
	exit $rc
	;;
*)
	sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'
	exit 2
	;;
esac
