#!/bin/sh
# deploy/launch/mpirun.sh: a lincoll job under Open MPI's mpirun (PMIx
# bootstrap: orted serves PMIx to non-MPI programs too).
#
#   deploy/launch/mpirun.sh -np 8 [--hostfile hosts] PROGRAM [ARGS...]
#
# What it adds to mpirun:
#   --map-by core --bind-to core   (np <= cores; mpirun's own default binds to
#                                  socket when np > 2, which lincoll keeps)
#   --rank-by core                 consecutive ranks on one node and socket:
#                                  RHD's folded pairs and first (largest)
#                                  exchanges stay on a node; on a multi-node
#                                  job do not use --map-by node (cyclic), it
#                                  sends them across the network
#   --report-bindings              the bindings on stderr
#   -x LINCOLL_* -x UCX_*          forward the settings to every node
# Oversubscribed runs (more ranks than cores) need --oversubscribe and are
# left unbound (--bind-to none), as lincoll itself does with LINCOLL_BIND=auto.
# Multi-NIC nodes: add --map-by ppr:N:socket so each socket's ranks use its NIC.
set -eu
extra=""
[ "$(id -u)" = 0 ] && extra="--allow-run-as-root"
fwd=""
for v in $(env | sed -n 's/^\(LINCOLL_[A-Z0-9_]*\|UCX_[A-Z0-9_]*\)=.*/\1/p'); do
  case $v in LINCOLL_RANK|LINCOLL_SIZE|LINCOLL_BOOTSTRAP|LINCOLL_JOB_SECRET) continue ;; esac
  fwd="$fwd -x $v"
done
map="--map-by core --rank-by core --bind-to core"
case " $* " in
*" --oversubscribe "*) map="--map-by core --rank-by core --bind-to none" ;;
esac
# shellcheck disable=SC2086
exec mpirun $extra $map --report-bindings $fwd "$@"
