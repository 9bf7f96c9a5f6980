#!/usr/bin/env bash
# Mail servers for the watch integration tests (package daemon): dovecot
# (IMAP + LMTP) and public-inbox come from .ci/packages.txt; postfix is
# installed here because its debconf question ("General type of mail
# configuration") must be preseeded before apt runs, or the install asks.
# The tests start every server themselves on 127.0.0.1 (random ports,
# configs in temp dirs) and stop them; nothing is left running here.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
if ! dpkg -s postfix >/dev/null 2>&1; then
  echo "postfix postfix/main_mailer_type select Local only" | debconf-set-selections
  echo "postfix postfix/mailname string localhost" | debconf-set-selections
  apt-get -o DPkg::Lock::Timeout=600 update -qq
  apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends postfix >/dev/null
fi
# Package scripts may have started the system instances; the tests use
# their own, so stop these.
if command -v service >/dev/null; then
  for svc in postfix dovecot; do
    service "$svc" stop >/dev/null 2>&1 || true
  done
fi
# The tests run dovecot and postfix under these accounts.
for u in dovecot dovenull postfix; do
  getent passwd "$u" >/dev/null || { echo "setup: user $u missing" >&2; exit 1; }
done
