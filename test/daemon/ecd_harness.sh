# test/daemon/ecd_harness.sh: what the daemon test scripts share, sourced
# with the script's name:
#
#   . "$(dirname "$0")/ecd_harness.sh" NAME
#
# W, a fresh directory /tmp/NAME.XXXXXX; pids, the processes the script
# starts (append to it): every one is killed on exit, success or not, after
# ecd_on_exit (a function the script may define), and W is removed; say
# (a line with the seconds since the start) and fail (the reason and the
# tail of every log in W, exit 1).
W=$(mktemp -d "/tmp/$1.XXXXXX")
pids=()
ecd_on_exit() { :; }
cleanup() {
  for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null; done
  ecd_on_exit
  wait 2>/dev/null
  rm -rf "$W"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
t0=$(date +%s)
say() { echo "[$(( $(date +%s) - t0 ))s] $*"; }
fail() {
  echo "FAIL: $*"
  for f in "$W"/log*; do [ -e "$f" ] && { echo "--- $f"; tail -15 "$f"; }; done
  exit 1
}
