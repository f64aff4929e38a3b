# perf/daemon/batch_blocks.sh, sourced by small_compare.sh and
# secure_compare.sh: small puts on two kept connections, alternating in
# blocks.
#
#   batch_blocks N BLOCK FILE TAG ERR_PREFIX A B
#
# A and B label two `lincoll-ec ... batch` clients; the caller's
# associative arrays in_fd and out_fd hold, by label, the descriptors of
# their stdin and stdout.  N puts of FILE on each, named TAG-LABEL-J, in
# blocks of BLOCK: a block on one client (all its requests written at once,
# so each put goes out as soon as the one before is answered), then a block
# on the other, the first side swapped every block.  One line per put on
# stdout: LABEL J BLOCK_INDEX MS (tab-separated; MS as the client timed
# it, from its request to the checked answer).  A put that fails ends the
# script, with its client's stderr (ERR_PREFIX-LABEL).
batch_blocks() {
  local n=$1 block=$2 file=$3 tag=$4 errp=$5 a=$6 b=$7
  local i blk last d j line ms order
  for ((i = 1, blk = 0; i <= n; i += block, blk++)); do
    order="$a $b"; [ $((blk % 2)) = 1 ] && order="$b $a"
    last=$((i + block - 1)); [ "$last" -gt "$n" ] && last=$n
    for d in $order; do
      for j in $(seq "$i" "$last"); do echo "put $file $tag-$d-$j"; done >&"${in_fd[$d]}"
      for j in $(seq "$i" "$last"); do
        line= # the put's own output, then its "done" line
        while read -r -t 300 line <&"${out_fd[$d]}"; do
          case $line in "done "*) break ;; esac
        done
        ms=${line##*rc=0 ms=}
        [[ $line == "done put "* && $ms =~ ^[0-9.]+$ ]] ||
          { echo "$(basename "$0"): $d put $j: '$line' $(cat "$errp-$d")" >&2; exit 1; }
        printf '%s\t%d\t%d\t%s\n' "$d" "$j" "$blk" "$ms"
      done
    done
  done
}
