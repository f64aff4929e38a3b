#!/usr/bin/env bash
# test/reliability/run_trials.sh: N randomized peer-failure trials over UCX.
#   run_trials.sh BIN_DIR TRIALS [PARALLEL] [SEED] [OPS]
# Each trial picks P in 2..4, a victim rank, an operation from OPS (default:
# every collective with a result check, prepare-and-shoot and RS encode,
# SUMMA and ring matmul; taken in turn), SIGKILL or SIGSTOP and a random
# moment, and runs fail_trial under lincoll-run --keep-going with
# LINCOLL_TIMEOUT=${LINCOLL_TIMEOUT:-3}.  A trial hangs when lincoll-run hits
# its own --timeout or a survivor never reports; it fails when a survivor
# reports FAIL.  Prints one line per trial and a summary; exit status 0 only
# with 0 hangs and 0 failures and no fail_trial process left behind.
set -uo pipefail
bin=$1
trials=$2
par=${3:-2}
seed=${4:-$(date +%s)}
ops=${5:-"alltoall ring_shift allreduce reduce_scatter allgather bcast reduce encode_ps encode_rs matmul_summa matmul_ring"}
export LINCOLL_TIMEOUT=${LINCOLL_TIMEOUT:-3}
read -r -a oplist <<<"$ops"
logdir=$(mktemp -d "${TMPDIR:-/tmp}/lc_trials.XXXXXX")
trap 'rm -rf "$logdir"' EXIT
echo "run_trials: $trials trials, $par at a time, seed $seed, LINCOLL_TIMEOUT=$LINCOLL_TIMEOUT, ops: $ops"

run_one() {
  local i=$1 s=$(( seed + $1 ))
  RANDOM=$s
  local P=$(( 2 + RANDOM % 3 ))
  local victim=$(( RANDOM % P ))
  # operations in turn from a seeded start: any TRIALS >= the number of
  # operations covers every one (RHD collectives, encode and matmul)
  local op=${oplist[$(( (i + seed) % ${#oplist[@]} ))]}
  local sig=KILL
  (( RANDOM % 10 < 3 )) && sig=STOP
  local t0=$SECONDS
  LC_TRIAL_OP=$op LC_TRIAL_SIG=$sig LC_TRIAL_SEED=$s LC_TRIAL_VICTIM=$victim \
    timeout -s KILL 120 "$bin/lincoll-run" --keep-going -n "$P" --timeout 60 "$bin/fail_trial" \
    >"$logdir/$i.log" 2>&1
  local rc=$?
  local oks fails verdict
  oks=$(grep -c 'TRIAL survivor.*result=OK' "$logdir/$i.log")
  fails=$(grep -c 'TRIAL survivor.*result=FAIL' "$logdir/$i.log")
  if (( rc == 127 || rc == 2 )); then
    verdict=FAIL
  elif (( rc == 124 || rc == 137 || oks + fails < P - 1 )); then
    verdict=HANG
  elif (( fails > 0 || rc != 0 )); then
    verdict=FAIL
  else
    verdict=OK
  fi
  local waits
  waits=$(grep -o 'status=[a-z ]*waited=[0-9.]*' "$logdir/$i.log" | sed 's/status=//;s/ waited=/@/' | tr ' ' '_' | tr '\n' ' ')
  local dur=$(( SECONDS - t0 ))
  echo "trial $i: P=$P victim=$victim op=$op sig=$sig rc=$rc survivors_ok=$oks/$(( P - 1 )) ${dur}s [$waits] $verdict" >"$logdir/$i.res"
  if [[ $verdict != OK ]]; then
    sed 's/^/    | /' "$logdir/$i.log" | tail -40 >>"$logdir/$i.res"
  fi
  cat "$logdir/$i.res"
}

running=0
for (( i = 0; i < trials; i++ )); do
  run_one "$i" &
  running=$(( running + 1 ))
  if (( running >= par )); then
    wait -n
    running=$(( running - 1 ))
  fi
done
wait
hangs=$(cat "$logdir"/*.res | grep -c '^trial .* HANG$')
fails=$(cat "$logdir"/*.res | grep -c '^trial .* FAIL$')
oks=$(cat "$logdir"/*.res | grep -c '^trial .* OK$')
left=$(pgrep -f "$bin/fail_trial" | wc -l)
echo "run_trials: trials=$trials ok=$oks hangs=$hangs failures=$fails leftover_processes=$left"
(( hangs == 0 && fails == 0 && left == 0 && oks == trials ))
