# perf/daemon/two_clusters.sh, sourced by small_compare.sh and
# repair_compare.sh: two local clusters of lincoll-ecd side by side, one of
# another revision's daemon, one of this build's.
#
#   two_clusters PROG REV BUILD_DIR NODES BASE NEW
#
# Builds REV's daemon into $W/base-bin (build_base.sh: REV's daemon/, this
# build's flags and library), then starts NODES daemons of each (RS(4,2),
# --insecure, 127.0.0.1, port 0, --timeout 10, --scrub-interval 0) with
# their directories, logs and port files in $W/BASE and $W/NEW, waits for
# every port and writes each cluster's file ($W/LABEL/cluster).  Uses the
# caller's top and W, and adds every daemon to its pids array.  A daemon
# that does not start ends the script with a line naming PROG.
two_clusters() {
  local prog=$1 rev=$2 build=$3 nodes=$4 base=$5 new=$6 d i
  "$top/perf/daemon/build_base.sh" "$rev" "$build" "$W/base-bin"
  local -A bindir=([$base]=$W/base-bin [$new]=$build/bin)
  for d in "$base" "$new"; do
    mkdir -p "$W/$d"
    for i in $(seq 0 $((nodes - 1))); do
      "${bindir[$d]}/lincoll-ecd" --insecure --node "$i" --dir "$W/$d/d$i" --cluster "$W/$d/cluster" \
        --listen 127.0.0.1:0 --port-file "$W/$d/p$i" --timeout 10 --die-with-parent \
        --scrub-interval 0 >>"$W/$d/log$i" 2>&1 &
      pids+=($!)
    done
    for i in $(seq 0 $((nodes - 1))); do
      for _ in $(seq 1 300); do [ -s "$W/$d/p$i" ] && break; sleep 0.1; done
      [ -s "$W/$d/p$i" ] || { echo "$prog: $d node $i did not start (log: $(tail -2 "$W/$d/log$i"))" >&2; exit 1; }
    done
    { echo "code 4 2"; for i in $(seq 0 $((nodes - 1))); do echo "node $i 127.0.0.1:$(cat "$W/$d/p$i")"; done; } \
      >"$W/$d/cluster"
  done
}
