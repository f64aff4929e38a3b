#!/usr/bin/env bash
# perf/daemon/epoch_compare.sh: lincoll-ecd with one lincoll context per
# membership epoch (this tree) against a daemon that builds a context per
# group operation (the daemon of revision -R, default main before epochs:
# b30cd72), interleaved in one run, medians.
#
#   perf/daemon/epoch_compare.sh [-b BUILD_DIR] [-R REV] [-o OUT_DIR] [-n NODES]
#                                [-d SECONDS] [-r REPS] [-c "1 4 16"]
#                                [-s "4k 1m"] [-k KILL_CLIENTS]
#                                [-a "DAEMON ARGS"] [-L "BASE NEW"]
#
# The baseline: daemon/ of REV (git archive), compiled with the flags of
# BUILD_DIR's lincoll-ecd and linked against the same liblincoll.a, so the
# two differ in the daemon only.  Every repetition runs, for each daemon in
# turn, perf/daemon/load.sh -p "bench small" (NODES daemons, default 12,
# RS(4,2), --daemon-args "--direct-max 0": every put forms its group, 4 KiB
# ones too (-a: other daemon flags, "" for the defaults); for every C of -c and size of -s a fresh cluster, C clients
# putting for -d seconds, then getting), then once per daemon the kill
# phase (-k clients, default 16, 4 -d seconds, two daemons killed and
# restarted; -k 0: none).  -L: the two daemons' names in the runs and
# tables (default "context-per-op epoch").  Output in OUT_DIR (default docs/perf/DATE-storage-epoch):
# runs/DAEMON-rREP/ (load.sh's files), and perf/daemon/epoch_table.py's
# table.md, medians.csv, latency.png and throughput.png.  `uptime` goes
# with every run: the machine may be shared.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
build=$top/build
rev=b30cd7211f6a9ceae2bf295fc22602c8d8610281
out=
nodes=12
dur=5
reps=2
clients="1 4 16"
sizes="4k 1m"
kcl=16
dargs="--direct-max 0"
labels="context-per-op epoch"
while [ $# -gt 0 ]; do
  case $1 in
    -b) build=$2; shift 2 ;;
    -R) rev=$2; shift 2 ;;
    -o) out=$2; shift 2 ;;
    -n) nodes=$2; shift 2 ;;
    -d) dur=$2; shift 2 ;;
    -r) reps=$2; shift 2 ;;
    -c) clients=$2; shift 2 ;;
    -s) sizes=$2; shift 2 ;;
    -k) kcl=$2; shift 2 ;;
    -a) dargs=$2; shift 2 ;;
    -L) labels=$2; shift 2 ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "epoch_compare: unknown argument '$1' (-h for usage)" >&2; exit 2 ;;
  esac
done
case $build in /*) ;; *) build=$PWD/$build ;; esac
[ -n "$out" ] || out=$top/docs/perf/$(date +%F)-storage-epoch
case $out in /*) ;; *) out=$PWD/$out ;; esac
[ -x "$build/bin/lincoll-ecd" ] || { echo "epoch_compare: $build/bin/lincoll-ecd not found (deploy/build.sh)" >&2; exit 1; }
mkdir -p "$out/runs"
T=$(mktemp -d /tmp/ecd_epoch_cmp.XXXXXX)
trap 'rm -rf "$T"' EXIT

# the baseline daemon: REV's daemon/, same flags, same library
"$top/perf/daemon/build_base.sh" "$rev" "$build" "$T/base/bin"
echo "epoch_compare: baseline daemon of $(git -C "$top" rev-parse --short "$rev") built; $(uptime)" >&2

run() { # daemon-name bin-dir rep phases seconds
  local o=$out/runs/$1-r$3
  rm -rf "$o"
  echo "$(uptime)" >"$T/up"
  "$top/perf/daemon/load.sh" -b "$2" -o "$o" -n "$nodes" -p "$4" -c "$clients" -s "$sizes" \
    -d "$5" -k "$kcl" --repair-wait 0 --preload 8 --daemon-args "$dargs" >/dev/null ||
    echo "epoch_compare: load.sh $1 r$3 exited $? (see $o)" >&2
  { cat "$T/up"; uptime; } >"$o/uptime.txt"
}
read -r base_name new_name <<<"$labels"
for r in $(seq 1 "$reps"); do
  run "$base_name" "$T/base/bin" "$r" "bench small" "$dur"
  run "$new_name" "$build/bin" "$r" "bench small" "$dur"
done
if [ "$kcl" -gt 0 ]; then
  run "$base_name" "$T/base/bin" kill kill $((4 * dur))
  run "$new_name" "$build/bin" kill kill $((4 * dur))
fi
python3 "$top/perf/daemon/epoch_table.py" "$out" "$base_name" "$new_name" \
  "$base_name (the daemon of $(git -C "$top" rev-parse --short "$rev")) vs $new_name"
echo "epoch_compare: wrote $out/table.md" >&2
