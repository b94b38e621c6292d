#!/bin/sh
# Makes sure a PostgreSQL server answers on 127.0.0.1:5432 for the store tests: starts the
# Debian cluster when it is down, installs the server when it is missing. Idempotent.
set -eu
ready() { pg_isready -q -h 127.0.0.1 -p 5432 >/dev/null 2>&1; }
command -v pg_isready >/dev/null 2>&1 && ready && exit 0
if [ "$(id -u)" -eq 0 ]; then sudo=""; elif command -v sudo >/dev/null 2>&1; then sudo="sudo"; else
  echo "start-postgres: PostgreSQL is down and starting it needs root" >&2
  exit 1
fi
if ! ls /etc/postgresql/*/main >/dev/null 2>&1; then
  echo "start-postgres: installing postgresql"
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends postgresql >/dev/null
fi
version="$(ls /etc/postgresql | sort -V | tail -n 1)"
# trust on loopback for the tests' postgres user (the development machines are set up so)
hba="/etc/postgresql/$version/main/pg_hba.conf"
if ! grep -q "^host all all 127.0.0.1/32 trust" "$hba"; then
  $sudo sed -i '1i host all all 127.0.0.1/32 trust' "$hba"
fi
echo "start-postgres: starting cluster $version/main"
$sudo pg_ctlcluster --skip-systemctl-redirect "$version" main start || true
for _ in $(seq 1 30); do ready && exit 0; sleep 1; done
echo "start-postgres: PostgreSQL did not answer on 127.0.0.1:5432" >&2
exit 1
