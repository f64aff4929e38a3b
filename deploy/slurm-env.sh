# deploy/slurm-env.sh: sourced by deploy/test.sh and deploy/sanitize.sh (bash).
#   lincoll_slurm_start   start a private one-node Slurm for this run
#                         (deploy/slurm-local.sh in a fresh directory under
#                         ${TMPDIR:-/tmp}), export SLURM_CONF, and stop it and
#                         remove the directory when the shell exits (trap on
#                         EXIT, INT, TERM, HUP).  A Slurm that does not come up
#                         is an error (exit 1, with its log), not a skip.
#                         LINCOLL_TEST_SLURM=0: starts nothing (the srun tests
#                         then report SKIPPED and say why).
# Each run owns its cluster (own directory, munged and ports), so two runs at
# once on one machine do not share or stop each other's daemons.
lincoll_slurm_dir=""
lincoll_slurm_tool="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/slurm-local.sh"
lincoll_slurm_stop() {
  if [ -n "$lincoll_slurm_dir" ]; then
    # the directory goes only once its daemons are gone (their pid files)
    "$lincoll_slurm_tool" stop "$lincoll_slurm_dir" && rm -rf "$lincoll_slurm_dir"
    lincoll_slurm_dir=""
  fi
}
lincoll_slurm_start() {
  if [ "${LINCOLL_TEST_SLURM:-1}" = 0 ]; then
    echo "== local Slurm: not started (LINCOLL_TEST_SLURM=0); the srun tests will report SKIPPED"
    return 0
  fi
  echo "== local Slurm (deploy/slurm-local.sh)"
  local out
  lincoll_slurm_dir=$(mktemp -d "${TMPDIR:-/tmp}/lincoll-slurm.XXXXXX")
  trap lincoll_slurm_stop EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM
  trap 'exit 129' HUP
  if ! out=$("$lincoll_slurm_tool" start "$lincoll_slurm_dir"); then
    echo "local Slurm did not start (LINCOLL_TEST_SLURM=0 runs without it); logs:" >&2
    tail -n 20 "$lincoll_slurm_dir"/log/*.log >&2 2>/dev/null || true
    exit 1
  fi
  eval "$(grep '^export SLURM_CONF=' <<<"$out")"
  echo "SLURM_CONF=$SLURM_CONF"
}
