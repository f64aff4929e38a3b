#!/usr/bin/env bash
# test/topo/info_fields_test.sh: the fields of `lincoll_info -t`, alone and
# under lincoll-run (one "rank:" line per rank, with host, binding, NIC, ports);
# `lincoll_info -c` says that a secret variable is set and never shows it.
#   info_fields_test.sh <bin dir>
set -uo pipefail
bin=$1
fail() { echo "FAIL: $*"; echo "$out"; exit 1; }
out=$("$bin/lincoll_info" -t 2>&1) || fail "lincoll_info -t exited $?"
for f in '^host:     [^/]*/boot:[0-9a-f]*/netns:' '^packages: [0-9]' '^cores:    [1-9]' '^pus:      [1-9]' \
         '^numa:     [1-9]' '^binding:  pus [0-9]' '^device:   ' '^nic:      ' '^ports:    [1-9]'; do
  grep -q "$f" <<<"$out" || fail "field '$f' missing"
done
grep -q '^rank:' <<<"$out" && fail "a 'rank:' line without a launcher"
out=$("$bin/lincoll-run" -n 3 --timeout 120 "$bin/lincoll_info" -t 2>&1) || fail "under lincoll-run: exit $?"
grep -q '^\[0\] ranks:    3$' <<<"$out" || fail "no 'ranks: 3'"
for r in 0 1 2; do
  grep -Eq "^\[0\] rank:     $r/3 host 0/1 [^ ]+ machine-local $r/3 binding pus [0-9,-]+ \(.*\) nic [^ ]+ ports [1-9]" <<<"$out" ||
    fail "rank $r line malformed"
done
[ "$(echo "$out" | grep -c '^\[[12]\] ')" = 0 ] || fail "ranks other than 0 printed"
ranks=$out
out=$(LINCOLL_STORE_SECRET=st0re-xyzzy LINCOLL_JOB_SECRET=j0b-xyzzy "$bin/lincoll_info" -c 2>&1) ||
  fail "lincoll_info -c exited $?"
grep -q 'xyzzy' <<<"$out" && fail "lincoll_info -c shows a secret's value"
for v in LINCOLL_STORE_SECRET LINCOLL_JOB_SECRET; do
  grep -q "^# $v is set (a secret: its value is not shown)$" <<<"$out" || fail "no 'is set' line for $v"
done
echo "PASS"; echo "$ranks" | grep 'rank:'
