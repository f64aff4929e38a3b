#!/usr/bin/env bash
# deploy/slurm-local.sh: a real one-node Slurm (Debian 12's slurm-wlm 22.05)
# with the PMIx MPI plugin, for lincoll's srun/sbatch tests and for trying the
# deploy/launch recipes on one machine.
#
#   deploy/slurm-local.sh start [DIR]   install what is missing (install-deps.sh
#                                       slurm), write DIR/slurm.conf, start a
#                                       private munged, slurmctld and slurmd,
#                                       wait until the node is idle and print
#                                       `export SLURM_CONF=DIR/slurm.conf`
#   deploy/slurm-local.sh stop [DIR]    cancel its jobs, stop the three daemons
#                                       (by their pid files; KILL after 10 s)
#   deploy/slurm-local.sh status [DIR]  exit 0 and print the export line when
#                                       the cluster of DIR is up, else exit 1
# DIR defaults to ${TMPDIR:-/tmp}/lincoll-slurm.  Typical use:
#   eval "$(deploy/slurm-local.sh start)"; srun --mpi=pmix -n 3 build/bin/lincoll_info -t
#
# Everything a cluster uses lives in DIR: its own munge key and munged socket
# (slurm.conf AuthInfo=socket=..., so the host's munge, if any, is left
# alone), state, spool, logs and pid files, and two TCP ports for slurmctld
# and slurmd chosen free at start.  Several clusters (different DIRs) can
# therefore run side by side on one machine.  A start in a DIR whose cluster
# is already up starts nothing: it says so on stderr ("already running") and
# prints the same export line (exit 0); a start over daemons that died stops
# what is left and starts afresh.
#
# The node is this host (its short name, address 127.0.0.1) with
# LINCOLL_SLURM_CPUS CPUs (default 8, above the real count on purpose:
# SlurmdParameters=config_overrides lets a 2-core machine run 3-4 task jobs),
# one partition "debug", OverSubscribe=YES.  No cgroups (proctrack/linuxproc,
# task/none): it also runs in containers and chroots.  Daemons run as root.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cmd=${1:-}
dir=${2:-${TMPDIR:-/tmp}/lincoll-slurm}
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' >&2; }
say() { echo "slurm-local: $*" >&2; }
die() {
  say "$*"
  exit 1
}

alive() { # pidfile -> 0 if its process runs
  [ -s "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null
}

node_state() { # -> sinfo's state of the node (idle, mix, alloc, down*, ...) or empty
  SLURM_CONF=$dir/slurm.conf timeout 10 sinfo -h -o %t 2>/dev/null | head -1 || true
}

up() { # the cluster of DIR answers and its node can run jobs
  [ -f "$dir/slurm.conf" ] && alive "$dir/slurmctld.pid" && alive "$dir/slurmd.pid" &&
    alive "$dir/munge/munged.pid" && grep -Eq '^(idle|mix|alloc)$' <<<"$(node_state)"
}

stop_pid() { # pidfile
  local f=$1 p i
  [ -s "$f" ] || return 0
  p=$(cat "$f")
  if kill -0 "$p" 2>/dev/null; then
    kill -TERM "$p" 2>/dev/null || true
    for i in $(seq 1 100); do
      kill -0 "$p" 2>/dev/null || break
      sleep 0.1
    done
    if kill -0 "$p" 2>/dev/null; then
      say "pid $p ($f) still runs after 10 s: KILL"
      kill -KILL "$p" 2>/dev/null || true
    fi
  fi
  rm -f "$f"
}

stop_all() {
  if [ -f "$dir/slurm.conf" ] && alive "$dir/slurmctld.pid"; then
    # jobs of this cluster only (its own slurm.conf), so slurmd's steps end
    local jobs
    jobs=$(SLURM_CONF=$dir/slurm.conf timeout 10 squeue -h -o %i 2>/dev/null || true)
    if [ -n "$jobs" ]; then
      # shellcheck disable=SC2086
      SLURM_CONF=$dir/slurm.conf timeout 10 scancel $jobs 2>/dev/null || true
      for _ in $(seq 1 50); do
        [ -z "$(SLURM_CONF=$dir/slurm.conf timeout 10 squeue -h -o %i 2>/dev/null)" ] && break
        sleep 0.2
      done
    fi
  fi
  stop_pid "$dir/slurmd.pid"
  stop_pid "$dir/slurmctld.pid"
  stop_pid "$dir/munge/munged.pid"
}

free_ports() { # -> two TCP ports nothing listens on (the kernel's choice for port 0)
  python3 -c '
import socket
s = [socket.socket() for _ in range(2)]
for x in s:
    x.bind(("127.0.0.1", 0))
print(*(x.getsockname()[1] for x in s))'
}

write_conf() { # ctld_port slurmd_port
  local host cpus
  host=$(uname -n | cut -d. -f1)
  cpus=${LINCOLL_SLURM_CPUS:-8}
  case $cpus in '' | *[!0-9]*) die "LINCOLL_SLURM_CPUS=$cpus: expected a CPU count" ;; esac
  cat >"$dir/slurm.conf" <<CONF
# written by deploy/slurm-local.sh: a one-node cluster for lincoll's tests
ClusterName=lincoll
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$1
SlurmdPort=$2
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge/munge.socket
SlurmUser=root
SlurmdUser=root
MpiDefault=pmix
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmdSpoolDir=$dir/spool
StateSaveLocation=$dir/state
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
SlurmdParameters=config_overrides
InactiveLimit=0
KillWait=5
MinJobAge=30
NodeName=$host NodeAddr=127.0.0.1 NodeHostname=$host CPUs=$cpus State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
CONF
  # read by slurmd even with proctrack/linuxproc; nothing mounted, no systemd
  printf 'CgroupPlugin=cgroup/v1\nIgnoreSystemd=yes\nCgroupAutomount=no\n' >"$dir/cgroup.conf"
}

start() {
  if up; then
    say "already running in $dir (slurmctld pid $(cat "$dir/slurmctld.pid")); nothing started"
    echo "export SLURM_CONF=$dir/slurm.conf"
    return 0
  fi
  stop_all # what a dead cluster left behind
  if [ -x "$here/install-deps.sh" ]; then
    "$here/install-deps.sh" slurm >&2
  fi
  for t in munged mungekey slurmctld slurmd sinfo srun python3; do
    command -v "$t" >/dev/null 2>&1 || die "$t not found (deploy/install-deps.sh slurm)"
  done
  [ "$(id -u)" = 0 ] || die "needs root: slurmd starts job steps as their users"
  mkdir -p "$dir"/{state,spool,log,munge,key}
  # munged checks that every directory above its socket is searchable by all
  # and that the key is private
  chmod 755 "$dir" "$dir/munge"
  chmod 700 "$dir/key"
  [ -s "$dir/key/munge.key" ] || mungekey -c -k "$dir/key/munge.key"
  chmod 600 "$dir/key/munge.key"
  munged --socket="$dir/munge/munge.socket" --key-file="$dir/key/munge.key" \
    --pid-file="$dir/munge/munged.pid" --log-file="$dir/log/munged.log" \
    --seed-file="$dir/key/munged.seed" ||
    die "munged did not start: $(tail -n 2 "$dir/log/munged.log" 2>/dev/null | tr '\n' ' ')"
  munge -n --socket="$dir/munge/munge.socket" | unmunge --socket="$dir/munge/munge.socket" >/dev/null ||
    die "munge credentials do not round-trip ($dir/log/munged.log)"
  export SLURM_CONF=$dir/slurm.conf
  local try ports state=""
  for try in 1 2 3; do # a port taken between the choice and slurmctld's bind: new ports
    ports=$(free_ports)
    # shellcheck disable=SC2086
    write_conf $ports
    : >"$dir/log/slurmctld.log"
    slurmctld -f "$SLURM_CONF" || die "slurmctld did not start ($dir/log/slurmctld.log)"
    for _ in $(seq 1 50); do
      timeout 5 scontrol ping 2>/dev/null | grep -q 'is UP' && break
      sleep 0.2
    done
    if timeout 5 scontrol ping 2>/dev/null | grep -q 'is UP'; then
      slurmd -f "$SLURM_CONF" || die "slurmd did not start ($dir/log/slurmd.log)"
      for _ in $(seq 1 60); do
        state=$(node_state)
        grep -Eq '^(idle|mix|alloc)$' <<<"$state" && break
        sleep 0.5
      done
      break
    fi
    say "slurmctld is not answering on port ${ports%% *} (try $try): $(tail -n 1 "$dir/log/slurmctld.log")"
    stop_pid "$dir/slurmctld.pid"
  done
  if ! grep -Eq '^(idle|mix|alloc)$' <<<"$state"; then
    say "the node did not come up (state '${state:-none}'); last log lines:"
    tail -n 5 "$dir/log/slurmctld.log" "$dir/log/slurmd.log" >&2 2>/dev/null || true
    stop_all
    exit 1
  fi
  srun --mpi=list 2>&1 | grep -q pmix || {
    stop_all
    die "this Slurm has no PMIx plugin (srun --mpi=list; package slurm-wlm-basic-plugins)"
  }
  say "up in $dir: node $(uname -n | cut -d. -f1) $state, slurmctld port ${ports%% *}, slurmd port ${ports##* }"
  echo "export SLURM_CONF=$SLURM_CONF"
}

case "$cmd" in
start) start ;;
stop)
  stop_all
  say "stopped ($dir)"
  ;;
status)
  if up; then
    echo "export SLURM_CONF=$dir/slurm.conf"
  else
    say "not running in $dir"
    exit 1
  fi
  ;;
-h | --help) usage ;;
*)
  usage
  exit 2
  ;;
esac
