# Sourced by the measuring scripts (bench-oneshot.sh, bench-process.sh,
# findings-golden.sh) after their options are read: sets tree (the Linux
# 6.1 tree, $AUTOSEL_KERNEL_SRC or the shared test tree, prepared when
# missing), tmp (a directory removed on exit) and bot ($BOT, or the bot
# built from this checkout into tmp).
tree=${AUTOSEL_KERNEL_SRC:-/var/tmp/autosel-bot/linux-6.1}
[ -e "$tree/.git" ] || go run ./internal/testkernel/cmd/prepare
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bot=${BOT:-}
if [ -z "$bot" ]; then
  go build -o "$tmp/autosel-bot" ./cmd/autosel-bot
  bot=$tmp/autosel-bot
fi
