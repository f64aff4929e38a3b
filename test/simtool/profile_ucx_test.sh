#!/usr/bin/env bash
# The library reads its machine profile at lincoll_init, two real ranks over
# UCX under lincoll-run (lincoll_perf's 8-byte allreduce over lincoll memory):
#   a profile whose zero-copy rounds are free and messages slow (alpha 1 ms)
#   makes the automatic choice zcopy_rd_allreduce and predicts < 100 us; one
#   whose zero-copy rounds cost 10 ms makes it a message algorithm and
#   predicts less than 10 ms; each through LINCOLL_PROFILE and through the
#   default location ($XDG_CACHE_HOME/lincoll/profile, LINCOLL_PROFILE unset);
#   a bad profile named by LINCOLL_PROFILE fails the run with one error that
#   names the file and the line.
#   profile_ucx_test.sh BIN_DIR
set -uo pipefail
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
cat >"$tmp/zfree.profile" <<'P'
# zero copy free, messages 1 ms a round
alpha         1e-3
alpha_mapped  1e-9
beta          1e-12
gamma         1e-12
P
cat >"$tmp/zdear.profile" <<'P'
# zero-copy rounds 10 ms, messages 1 ns
alpha         1e-9
alpha_mapped  1e-2
beta          1e-12
gamma         1e-12
P
row() { # env... -> "algo predicted_us" of rank 0's CSV row
  env "$@" "$bin/lincoll-run" -n 2 --timeout 60 "$bin/lincoll_perf" -t allreduce -s 8 -n 20 -w 2 -f csv \
    2>"$tmp/err" | sed -n 's/^\[0\] //p' | awk -F, '$1 == "allreduce" {print $10, $11; exit}'
}
check() { # label env... ; expects $want_algo (or !name) and $max_us
  local label=$1; shift
  read -r algo pred < <(row "$@")
  [ -n "${algo:-}" ] || { cat "$tmp/err"; fail "$label: no CSV row"; }
  case $want in
    !*) [ "$algo" != "${want#!}" ] || fail "$label: chose $algo, want anything but ${want#!}" ;;
    *) [ "$algo" = "$want" ] || fail "$label: chose $algo, want $want" ;;
  esac
  python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) < float(sys.argv[2]) else 1)" "$pred" "$max_us" ||
    fail "$label: predicted $pred us, want < $max_us"
  echo "$label: $algo predicted $pred us"
}
want=zcopy_rd_allreduce max_us=100 check "LINCOLL_PROFILE=zfree" LINCOLL_PROFILE="$tmp/zfree.profile"
want='!zcopy_rd_allreduce' max_us=10000 check "LINCOLL_PROFILE=zdear" LINCOLL_PROFILE="$tmp/zdear.profile"
# and the prediction follows alpha: at 1 ns a round, far below zfree's 1 ms
mkdir -p "$tmp/cache/lincoll"
cp "$tmp/zdear.profile" "$tmp/cache/lincoll/profile"
want='!zcopy_rd_allreduce' max_us=10000 check "XDG default zdear" -u LINCOLL_PROFILE XDG_CACHE_HOME="$tmp/cache"
cp "$tmp/zfree.profile" "$tmp/cache/lincoll/profile"
want=zcopy_rd_allreduce max_us=100 check "XDG default zfree" -u LINCOLL_PROFILE XDG_CACHE_HOME="$tmp/cache"
# the message algorithm's prediction under zfree (alpha 1 ms) holds that alpha
read -r algo pred < <(row LINCOLL_PROFILE="$tmp/zfree.profile" LINCOLL_ALLREDUCE_ALGO=rhd_allreduce)
python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) >= 1000 else 1)" "${pred:-0}" ||
  fail "rhd_allreduce under alpha 1 ms predicted ${pred:-none} us, want >= 1000"
# a bad profile: the run fails, the error names file and line
printf 'alpha 1e-6\nbeta 1e-10\ngamma oops\n' >"$tmp/bad.profile"
if env LINCOLL_PROFILE="$tmp/bad.profile" "$bin/lincoll-run" -n 2 --timeout 60 "$bin/lincoll_perf" \
  -t allreduce -s 8 -n 5 -f csv >"$tmp/out" 2>&1; then
  fail "a bad LINCOLL_PROFILE: the run succeeded"
fi
grep -q "$tmp/bad.profile:3: gamma oops" "$tmp/out" || { cat "$tmp/out"; fail "no error naming bad.profile:3"; }
echo "profile_ucx test passed"
