#!/bin/sh
# Installs the Debian packages pinchpoint needs: `tools` (the storage tools the collectors run and
# the tests exercise, and sysstat's iostat that `stats diff` is checked against) or `python`
# (the venv module on a bare Debian/Ubuntu). Idempotent.
set -eu
what="${1:-tools}"
case "$what" in
  tools)
    need=""
    command -v sg_ses >/dev/null 2>&1 || need="$need sg3-utils"
    command -v smartctl >/dev/null 2>&1 || need="$need smartmontools"
    command -v ethtool >/dev/null 2>&1 || [ -x /usr/sbin/ethtool ] || [ -x /sbin/ethtool ] || need="$need ethtool"
    command -v lsscsi >/dev/null 2>&1 || need="$need lsscsi"
    command -v multipath >/dev/null 2>&1 || [ -x /sbin/multipath ] || [ -x /usr/sbin/multipath ] || need="$need multipath-tools"
    command -v iostat >/dev/null 2>&1 || need="$need sysstat"
    # promtool checks the alert rules and the dashboard's queries; the server runs them
    # against a real service (tests/test_prometheus.py)
    { command -v promtool && command -v prometheus; } >/dev/null 2>&1 || need="$need prometheus"
    command -v chromium >/dev/null 2>&1 || need="$need chromium"  # the web view's end-to-end tests
    # the completion scripts `--install-completion zsh|fish` writes are tested in those shells
    command -v zsh >/dev/null 2>&1 || need="$need zsh"
    command -v fish >/dev/null 2>&1 || need="$need fish"
    # the kernel latency recorder (bpf/, docs/ebpf.md): built with clang, bpftool and libbpf;
    # fio drives the loop devices its tests record
    command -v clang >/dev/null 2>&1 || need="$need clang"
    command -v bpftool >/dev/null 2>&1 || [ -x /usr/sbin/bpftool ] || need="$need bpftool"
    [ -f /usr/include/bpf/libbpf.h ] || need="$need libbpf-dev"
    command -v fio >/dev/null 2>&1 || need="$need fio"
    ;;
  python)
    need="python3-venv python3-pip"
    ;;
  bench)
    need=""
    command -v hey >/dev/null 2>&1 || need="$need hey"  # the HTTP load generator of bench/api_load_bench.py
    ;;
  *)
    echo "usage: $0 tools|python|bench" >&2
    exit 2
    ;;
esac
[ -z "$need" ] && exit 0
if [ "$(id -u)" -eq 0 ]; then sudo=""; elif command -v sudo >/dev/null 2>&1; then sudo="sudo"; else
  echo "install-system-deps: need root to install:$need" >&2
  exit 1
fi
echo "install-system-deps: installing$need"
$sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
# shellcheck disable=SC2086
$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $need >/dev/null
