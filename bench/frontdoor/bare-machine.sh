#!/usr/bin/env bash
# The front door, measured honestly: set-up and demo from a fresh clone on a bare Debian 12.
#
#   bench/frontdoor/bare-machine.sh [REPO] [WORK_DIR]       (as root; needs debootstrap)
#
# Builds a minimal Debian 12 (debootstrap --variant=minbase bookworm: no compiler, no git, no
# sudo, none of preflight's packages), with the host's apt sources and resolv.conf; clones REPO
# (default: this checkout's repository, its committed HEAD) into it; then, inside the chroot,
# with a clean environment (no ccache: a fresh machine builds in unity batches), times
#   apt-get update && ./scripts/setup.sh && ./build/preflight demo
# Every line of output is stamped with the seconds since the start, so the log shows where the
# time goes (apt, configure, compile, corpus, demo). The log and a one-line summary (date,
# commit, machine, load average before and after, wall time) go to WORK_DIR. The base system is
# kept in WORK_DIR/base and copied afresh for each run, so a rerun does not download it again
# (delete WORK_DIR to start over); its packages are never part of the time.
#
#   bench/frontdoor/bare-machine.sh --dry-run [REPO] [WORK_DIR]
# checks what the run needs (root, debootstrap, the commit to clone) and prints the steps it would
# time, building nothing (CI's smoke test of this script; exit 77, CTest's "skipped", where a
# prerequisite is missing, naming it).
set -euo pipefail
dry=0
if [[ "${1:-}" == "--dry-run" ]]; then
  dry=1
  shift
fi
here=$(cd "$(dirname "$0")" && pwd)
repo=${1:-$(git -C "$here" rev-parse --show-toplevel)}
work=${2:-/var/tmp/preflight-frontdoor}
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
missing=$((dry ? 77 : 2))

if [[ $(id -u) -ne 0 ]]; then
  echo "bare-machine: run as root (debootstrap and chroot need it)" >&2
  exit $missing
fi
command -v debootstrap >/dev/null || {
  echo "bare-machine: apt-get install debootstrap first" >&2
  exit $missing
}
if ((dry)); then
  echo "bare-machine (dry run): would time, in a chroot of Debian 12 minbase ($mirror) under $work:"
  echo "  git clone $repo  (commit $(git -C "$repo" rev-parse --short HEAD))"
  echo "  apt-get update && ./scripts/setup.sh && ./build/preflight demo"
  exit 0
fi

mkdir -p "$work"
if [[ ! -f $work/base/etc/debian_version ]]; then
  echo "bare-machine: debootstrap --variant=minbase bookworm into $work/base (not timed)"
  debootstrap --variant=minbase bookworm "$work/base" "$mirror" >"$work/debootstrap.log" 2>&1 ||
    { tail -20 "$work/debootstrap.log"; exit 1; }
fi

root=$work/root
cleanup() {
  for m in dev/pts dev proc sys; do
    mountpoint -q "$root/$m" && umount -l "$root/$m"
  done
  return 0
}
trap cleanup EXIT
cleanup
rm -rf "$root"
cp -a "$work/base" "$root"
# The apt sources of a Debian 12 machine (the host's, when it is one), and name resolution.
if [[ -f /etc/apt/sources.list.d/debian.sources ]]; then
  cp /etc/apt/sources.list.d/debian.sources "$root/etc/apt/sources.list.d/"
  : >"$root/etc/apt/sources.list"
fi
cp -L /etc/resolv.conf "$root/etc/resolv.conf"
# On a network that inspects TLS with its own authority (NODE_EXTRA_CA_CERTS set here), Node.js
# in the chroot needs that authority too to reach the npm registry; a bare machine on the open
# internet needs nothing of the kind.
node_ca=()
if [[ -n "${NODE_EXTRA_CA_CERTS:-}" && -f $NODE_EXTRA_CA_CERTS ]]; then
  cp -L "$NODE_EXTRA_CA_CERTS" "$root/etc/extra-ca.crt"
  node_ca=(NODE_EXTRA_CA_CERTS=/etc/extra-ca.crt)
fi
mount -t proc proc "$root/proc"
mount -t sysfs sys "$root/sys"
mount --bind /dev "$root/dev"
mount --bind /dev/pts "$root/dev/pts"

commit=$(git -C "$repo" rev-parse --short=12 HEAD)
git clone --quiet --no-hardlinks "$repo" "$root/preflight"
# The corpus is fetched by the set-up itself; a clone of a working copy carries no data/.

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
log=$work/run-$commit.log
start=$(date +%s.%N)
set +e
chroot "$root" /usr/bin/env -i HOME=/root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  LANG=C.UTF-8 TERM=dumb "${node_ca[@]}" /bin/bash -c \
  'cd /preflight && apt-get update -qq && ./scripts/setup.sh && ./build/preflight demo' 2>&1 |
  while IFS= read -r line; do
    printf '%7.1f  %s\n' "$(echo "$(date +%s.%N) - $start" | bc)" "$line"
  done >"$log"
status=${PIPESTATUS[0]}
set -e
end=$(date +%s.%N)
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
seconds=$(echo "$end - $start" | bc)
summary=$(printf '%s  commit %s  %s cores (%s)  load %s -> %s  exit %d  %.0f s (%d min %02d s)' \
  "$(date -u +%Y-%m-%dT%H:%MZ)" "$commit" "$(nproc)" \
  "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')" \
  "$load_before" "$load_after" "$status" "$seconds" \
  "$(echo "$seconds / 60" | bc)" "$(echo "$seconds % 60 / 1" | bc)")
echo "$summary" | tee -a "$work/summary.txt"
echo "bare-machine: log in $log"
exit "$status"
