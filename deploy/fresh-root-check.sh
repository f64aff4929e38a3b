#!/usr/bin/env bash
# deploy/fresh-root-check.sh: proves that the repository brings everything its
# build, tests and benchmarks need: a fresh Debian 12 root (debootstrap
# --variant=minbase bookworm, nothing else installed but git), a clone of the
# committed HEAD inside it, and ./deploy/test.sh run there as root.  A
# developer check, not part of CI (it downloads ~1 GB and takes 15-30 min).
#   deploy/fresh-root-check.sh [--reuse] [--keep] [ROOT] [-- ctest args]
#     ROOT      where the root is made (default /var/tmp/lincoll-fresh-root);
#               removed first unless --reuse (then an existing root is kept,
#               only the clone is made afresh)
#     --keep    leave ROOT in place afterwards (mounts are always undone)
# Exit status: deploy/test.sh's inside the root.  The ctest summary is the
# last lines of the output; the whole log is ROOT.log.
#
# What the root gets from the host, and why:
#   ROOT bind-mounted onto itself: `ip netns exec` enters a new mount
#     namespace and marks "/" a slave mount, which fails (EINVAL) when the
#     chroot's "/" is a plain directory rather than a mount point;
#   /proc (a fresh procfs), /sys and /dev (recursive bind mounts, slaves):
#     processes, hwloc's topology, /dev/shm for UCX's shared-memory
#     transports, /dev/pts;
#   a tmpfs on /run: `ip netns add` (the emulated-cluster tests) bind-mounts
#     namespace files under /run/netns, which must be a mount point it can
#     mark shared; a tmpfs keeps those mounts inside the root and lets
#     umount -R take them away at the end;
#   /etc/resolv.conf and /etc/hosts (name resolution as on the host: the
#     chroot shares the host's UTS name), the host's Debian mirror, and the
#     host's apt date checks when it has turned them off (a machine whose
#     clock is past the archive's Valid-Until).
# Everything the suite needs beyond that, deploy/test.sh installs itself
# (deploy/install-deps.sh).  Processes still running inside the root at the
# end are stopped (those whose /proc/PID/root is ROOT), then the mounts are
# undone.  Needs root, and debootstrap (installed here: install-deps.sh
# devcheck).
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
reuse=0 keep=0 root=/var/tmp/lincoll-fresh-root
while [ $# -gt 0 ]; do
  case $1 in
  --reuse) reuse=1; shift ;;
  --keep) keep=1; shift ;;
  --) shift; break ;;
  -h | --help) sed -n '2,32p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
  -*) echo "fresh-root-check: unknown option $1" >&2; exit 2 ;;
  *) root=$1; shift ;;
  esac
done
[ "$(id -u)" = 0 ] || { echo "fresh-root-check: needs root (debootstrap, mounts, chroot)" >&2; exit 2; }
case $root in /*) ;; *) root=$(pwd)/$root ;; esac
root=${root%/}
case $root in / | /bin* | /boot* | /dev* | /etc* | /home | /proc* | /root | /run* | /sys* | /usr* | /work)
  echo "fresh-root-check: refusing ROOT=$root" >&2; exit 2 ;;
esac
log=$root.log
: >"$log"
say() { echo "== fresh-root-check: $*" | tee -a "$log"; }

mounted_under() { # mount points at or below ROOT, deepest first
  awk -v r="$root" '$2 == r || index($2, r "/") == 1 { print $2 }' /proc/self/mounts | sort -r
}
stop_inside() { # processes whose root directory is ROOT
  local p pids=()
  for p in /proc/[0-9]*; do
    [ "$(readlink "$p/root" 2>/dev/null)" = "$root" ] && pids+=("${p#/proc/}")
  done
  [ ${#pids[@]} -gt 0 ] || return 0
  say "stopping ${#pids[@]} process(es) left inside the root: ${pids[*]}"
  kill -TERM "${pids[@]}" 2>/dev/null
  sleep 2
  kill -KILL "${pids[@]}" 2>/dev/null
  sleep 0.5
}
undo_mounts() {
  local m
  for m in $(mounted_under); do umount -R "$m" 2>/dev/null || umount -l "$m" 2>/dev/null; done
  [ -z "$(mounted_under)" ] || { echo "fresh-root-check: still mounted: $(mounted_under | tr '\n' ' ')" >&2; return 1; }
}
cleanup() {
  local rc=$?
  stop_inside
  undo_mounts || keep=1
  if [ "$keep" = 0 ] && [ -d "$root" ]; then rm -rf --one-file-system "$root"; fi
  exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

"$top/deploy/install-deps.sh" devcheck || exit 1
# the host's mirror (first deb.sources URI or sources.list line), else Debian's
mirror=$(sed -n 's/^URIs: *\([^ ]*\).*/\1/p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | grep -v security | head -1)
[ -n "$mirror" ] || mirror=$(awk '$1 == "deb" && $3 ~ /^bookworm$/ { print $2; exit }' /etc/apt/sources.list 2>/dev/null)
[ -n "$mirror" ] || mirror=http://deb.debian.org/debian
security=${mirror%/debian}/debian-security

stop_inside
undo_mounts || exit 1
if [ "$reuse" = 0 ] || [ ! -x "$root/usr/bin/apt-get" ]; then
  rm -rf --one-file-system "$root"
  say "debootstrap --variant=minbase bookworm $root $mirror"
  debootstrap --variant=minbase bookworm "$root" "$mirror" >>"$log" 2>&1 ||
    { echo "fresh-root-check: debootstrap failed; see $log" >&2; exit 1; }
fi
say "mounts: ROOT onto itself, /proc, /sys, /dev (rbind), tmpfs /run"
mount --bind "$root" "$root" && mount --make-private "$root" &&
  mount -t proc proc "$root/proc" &&
  mount --rbind /sys "$root/sys" && mount --make-rslave "$root/sys" &&
  mount --rbind /dev "$root/dev" && mount --make-rslave "$root/dev" &&
  mount -t tmpfs -o mode=755 tmpfs "$root/run" ||
  { echo "fresh-root-check: mounting into $root failed" >&2; exit 1; }
cp /etc/resolv.conf "$root/etc/resolv.conf"
cp /etc/hosts "$root/etc/hosts"
cat >"$root/etc/apt/sources.list" <<EOF
deb $mirror bookworm main
deb $mirror bookworm-updates main
deb $security bookworm-security main
EOF
apt-config dump 2>/dev/null | grep -E '^Acquire::Check-(Valid-Until|Date) "false";' \
  >"$root/etc/apt/apt.conf.d/99lincoll-host-dates" || rm -f "$root/etc/apt/apt.conf.d/99lincoll-host-dates"

in_root() { # a clean environment: nothing of the host's PATH or tools leaks in
  chroot "$root" /usr/bin/env -i HOME=/root LANG=C.UTF-8 TERM=dumb \
    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin "$@"
}
say "apt-get install git (the only package installed by hand)"
in_root bash -c 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends git ca-certificates' \
  >>"$log" 2>&1 || { echo "fresh-root-check: apt-get in the root failed; see $log" >&2; exit 1; }

head=$(git -C "$top" rev-parse HEAD)
say "clone $top at $head into /root/lincoll"
rm -rf "$root/root/lincoll"
git clone -q --no-local "$top" "$root/root/lincoll" && git -C "$root/root/lincoll" checkout -q --detach "$head" ||
  { echo "fresh-root-check: git clone failed" >&2; exit 1; }
[ -z "$(git -C "$top" status --porcelain --untracked-files=no)" ] ||
  say "note: $top has uncommitted changes; the root tests the committed HEAD"

say "./deploy/test.sh $* (inside the root; log $log)"
t0=$SECONDS
in_root bash -c 'cd /root/lincoll && ./deploy/test.sh "$@"' test.sh "$@" 2>&1 | tee -a "$log"
rc=${PIPESTATUS[0]}
say "deploy/test.sh exited $rc after $((SECONDS - t0)) s"
exit "$rc"
