#!/usr/bin/env bash
# LAVA for the lava backend's integration tests (package runner/lava):
# Debian's lava-server and lava-dispatcher, configured for loopback only
# and never started here. The tests start PostgreSQL, gunicorn, the
# publisher, the scheduler and one lava-worker themselves
# (runner/lava/lavatest) and stop them afterwards; nothing runs under
# systemd. Lab: a superuser "autosel" with an API token, a worker "vm",
# device type qemu and two devices qemu-01/qemu-02 (TCG: no_kvm). The URL
# and both tokens are left in /var/lib/lava-server/autosel-ci.json (0600).
# Idempotent.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
# lava-server's maintainer scripts run python3 from PATH: Debian's first.
export PATH=/usr/bin:/bin:/usr/sbin:/sbin:$PATH
if ! dpkg -s lava-server lava-dispatcher >/dev/null 2>&1; then
  apt-get -o DPkg::Lock::Timeout=600 update -qq
  apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends lava-server lava-dispatcher postgresql >/dev/null
fi
# Package scripts may have started system instances (with systemd): the
# tests run their own.
if command -v service >/dev/null; then
  for svc in lava-server-gunicorn lava-publisher lava-scheduler lava-worker apache2; do
    service "$svc" stop >/dev/null 2>&1 || true
  done
fi
pgver=$(pg_lsclusters -h | awk 'NR==1{print $1}')
started_pg=""
if ! pg_lsclusters -h | awk '{print $4}' | grep -q online; then
  pg_ctlcluster "$pgver" main start
  started_pg=1
fi
stop_pg() { if [ -n "$started_pg" ]; then pg_ctlcluster "$pgver" main stop || true; fi; }
trap stop_pg EXIT
if [ ! -f /etc/lava-server/settings.d/00-database.yaml ]; then
  dpkg-reconfigure -fnoninteractive lava-server
fi
# Events on loopback (the publisher's default binds every address); the
# scheduler and worker react to events instead of their 20 s intervals.
cat > /etc/lava-server/settings.d/50-autosel-ci.yaml <<'YAML'
EVENT_NOTIFICATION: true
EVENT_SOCKET: "tcp://127.0.0.1:5500"
INTERNAL_EVENT_SOCKET: "ipc:///tmp/lava.events"
ALLOWED_HOSTS: ["127.0.0.1", "localhost", "[::1]"]
YAML
manage() { lava-server manage "$@"; }
# has LIST WORD: whether a manage listing names WORD (read whole first:
# grep -q closing the pipe early would fail it under pipefail).
has() { local out; out=$(manage $1 list 2>/dev/null || true); grep -qw -- "$2" <<<"$out"; }
manage migrate --noinput >/dev/null
if ! has users autosel; then
  manage users add autosel --superuser --staff --passwd "$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')" >/dev/null
fi
token=$(manage tokens list --user autosel --csv | awk -F, 'NR==2{print $2}')
if [ -z "$token" ]; then
  manage tokens add --user autosel --description autosel-ci >/dev/null
  token=$(manage tokens list --user autosel --csv | awk -F, 'NR==2{print $2}')
fi
has workers vm || manage workers add vm --description "autosel CI worker" >/dev/null
wtoken=$(manage workers details vm | awk '/^token/{print $3}')
has device-types qemu || manage device-types add qemu >/dev/null
for d in qemu-01 qemu-02; do
  cat > "/etc/lava-server/dispatcher-config/devices/$d.jinja2" <<'J2'
{% extends 'qemu.jinja2' %}
{% set no_kvm = True %}
{% set mac_addr = '52:54:00:12:34:59' %}
J2
  chown lavaserver: "/etc/lava-server/dispatcher-config/devices/$d.jinja2" 2>/dev/null || true
  has devices "$d" || manage devices add "$d" --device-type qemu --worker vm >/dev/null
  manage devices update "$d" --health GOOD >/dev/null
done
umask 077
cat > /var/lib/lava-server/autosel-ci.json <<JSON
{"url": "http://127.0.0.1:8000/", "token": "$token", "user": "autosel", "worker": "vm", "worker_token": "$wtoken", "device_type": "qemu"}
JSON
