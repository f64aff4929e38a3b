#!/usr/bin/env bash
# deploy/examples/lincoll_ec_file on real ranks: a file RS-encoded across N
# ranks, one rank lost and rebuilt, the file reassembled on rank 0.
#   test/perf/ec_file.sh LINCOLL_RUN LINCOLL_EC_FILE SOURCE_DIR
# Checks, against coreutils' sha256sum (an implementation independent of the
# example's own SHA-256):
#  - README.md, RS(3,1) on 4 ranks, data rank 1 lost: the written file is
#    byte-identical and both digests the example prints equal sha256sum's;
#  - 1 MB + 1 byte of random data in 64 KiB chunks (several stripes, a short
#    last one), RS(3,2) on 5 ranks, losing rank 0, then parity rank 4;
#  - an empty file (one stripe of padding);
#  - bad input: a missing file and --lose out of range exit 2 with a message
#    naming the argument, and leave no output file behind.
set -uo pipefail
run=$1 ec=$2 src=$3
fail=0
err() { echo "ec_file: $*" >&2; fail=1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
head -c 1048577 /dev/urandom >"$tmp/random.bin"
: >"$tmp/empty"

check() { # n file out args...
  local n=$1 file=$2 out=$3
  shift 3
  if ! "$run" -n "$n" --timeout 120 "$ec" --file "$file" --out "$out" --reps 3 "$@" \
      >"$tmp/log" 2>"$tmp/err"; then
    err "n=$n $(basename "$file") $*: failed: $(tail -3 "$tmp/err")"
    return
  fi
  local want got printed_orig printed_back
  want=$(sha256sum <"$file" | cut -d' ' -f1)
  got=$(sha256sum <"$out" | cut -d' ' -f1)
  printed_orig=$(sed -n 's/^\[0\] original *sha256 \([0-9a-f]*\) .*/\1/p' "$tmp/log")
  printed_back=$(sed -n 's/^\[0\] reassembled *sha256 \([0-9a-f]*\) .*/\1/p' "$tmp/log")
  cmp -s "$file" "$out" || err "n=$n $(basename "$file") $*: reassembled file differs"
  [ "$printed_orig" = "$want" ] || err "n=$n $*: printed original digest '$printed_orig' != sha256sum $want"
  [ "$printed_back" = "$got" ] || err "n=$n $*: printed reassembled digest '$printed_back' != sha256sum $got"
  grep -q 'before, .* after: identical' "$tmp/log" || err "n=$n $*: lost shard not reported identical"
  grep -q 'lincoll_ec_file: OK' "$tmp/log" || err "n=$n $*: no OK line"
  for p in encode repair; do
    awk -v p="$p" -F'|' '$2 ~ p && $6 + 0 > 0 && $7 + 0 > 0 {f = 1} END {exit !f}' "$tmp/log" ||
      err "n=$n $*: no $p row with measured and predicted times > 0"
  done
}

check 4 "$src/README.md" "$tmp/readme.out" --parity 1 --lose 1
check 5 "$tmp/random.bin" "$tmp/random.out0" --parity 2 --lose 0 --chunk 64k
grep -q '6 stripes of 3 x 65536 bytes' "$tmp/log" || err "random.bin: expected 6 stripes of 3 x 65536 bytes"
check 5 "$tmp/random.bin" "$tmp/random.out4" --parity 2 --lose 4 --chunk 64k
check 3 "$tmp/empty" "$tmp/empty.out" --parity 1 --lose 2

"$run" -n 4 --timeout 60 "$ec" --file "$tmp/missing" --out "$tmp/m.out" >"$tmp/log" 2>"$tmp/err"
rc=$?
[ $rc = 2 ] || err "missing file: exit $rc, expected 2"
grep -q "cannot read --file $tmp/missing" "$tmp/err" || err "missing file: no message naming --file"
[ ! -e "$tmp/m.out" ] || err "missing file: an output file was written"
"$run" -n 4 --timeout 60 "$ec" --file "$src/README.md" --lose 4 >"$tmp/log" 2>"$tmp/err"
rc=$?
[ $rc = 2 ] || err "--lose 4 on 4 ranks: exit $rc, expected 2"
grep -q -- "--lose < N" "$tmp/err" || err "--lose 4 on 4 ranks: no message naming --lose"

[ $fail = 0 ] && echo "ec_file: OK (README.md RS(3,1), 1 MiB + 1 RS(3,2) losing a data and a parity rank, empty file, bad input)"
exit $fail
