#!/usr/bin/env bash
# test/perf/scale_quick.sh: the smoke test of perf/scale/scale.sh --quick on
# the emulated cluster (K = P = 4 hosts, tiny sizes, 1 Gbit/s links).
#
#   scale_quick.sh <top> <build dir>
#
# Checks that the chain runs end to end and that every run comes out:
# runs.csv has exactly the expected rows (encode K=4 p=1,3 x prepare_shoot,
# best_window, direct, dft; the five collectives x two algorithms at P=4;
# matmul SUMMA and Cannon at P=4), every row has status ok, a positive
# measured time, a CPU share in (0, 1] and a finite lincoll_sim prediction
# (scale_report.py --check), one calibration per family with alpha > 0 and
# beta > 0 that its runs cite, and the
# report and its figures exist.  The figures themselves are not checked:
# at 1 Gbit/s on a loaded machine they mean nothing.
# Exit 77 (ctest SKIP) only when network namespaces are not permitted.
set -uo pipefail
top=$1 build=$2
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
fail() { echo "FAIL: $*"; tail -30 "$out/log" 2>/dev/null; exit 1; }
"$top/perf/scale/scale.sh" --quick -b "$build" -o "$out" -d q >"$out/log" 2>&1
rc=$?
if [ "$rc" = 77 ]; then echo "SKIP: $(grep -m1 'cannot run here' "$out/log")"; exit 77; fi
[ "$rc" = 0 ] || fail "scale.sh --quick exited $rc"
dir=$out/q-scale
[ -s "$dir/runs.csv" ] && [ -s "$dir/scale.csv" ] && [ -s "$out/q-scale.md" ] || fail "outputs missing"
python3 - "$dir" <<'PY' || fail "runs.csv / calib.csv"
import csv, sys
d = sys.argv[1]
runs = list(csv.DictReader(open(d + "/runs.csv")))
want = set()
for p in ("1", "3"):
    for a in ("prepare_shoot", "best_window", "direct", "dft"):
        want.add(("encode", "encode", a, "4", p))
for op in ("allreduce", "reduce_scatter", "allgather", "bcast", "reduce"):
    for a in (("rhd", "binomial") if op in ("bcast", "reduce") else ("rhd", "ring")):
        want.add(("coll", op, a, "4", "1"))
for a in ("summa", "cannon"):
    want.add(("matmul", "matmul", a, "4", "1"))
got = [(r["family"], r["op"], r["algo"], r["P"], r["p"]) for r in runs]
if sorted(got) != sorted(want):
    print("rows missing:", sorted(want - set(got)), "unexpected:", sorted(set(got) - want))
    sys.exit(1)
for r in runs:
    share = float(r["cpu_mean"] or "nan")
    if not 0 < share <= 1.0001:
        print("CPU share %s of %s %s" % (r["cpu_mean"], r["op"], r["algo"]))
        sys.exit(1)
cal = list(csv.DictReader(open(d + "/calib.csv")))
# one calibration per family (each right before its runs), every run citing its own
if len(cal) != 3 or any(not float(c["alpha_us"]) > 0 or not float(c["bw_Bps"]) > 0 for c in cal):
    print("calibration:", cal)
    sys.exit(1)
fam_cal = {}
for r in runs:
    fam_cal.setdefault(r["family"], set()).add(r["cal"])
if sorted(len(v) for v in fam_cal.values()) != [1, 1, 1] or len(set.union(*fam_cal.values())) != 3:
    print("runs cite calibrations", fam_cal)
    sys.exit(1)
print("%d runs, alpha %s us, 1/beta %s B/s" % (len(runs), cal[0]["alpha_us"], cal[0]["bw_Bps"]))
PY
python3 "$top/perf/scale/scale_report.py" --out "$dir" --report "$out/q-scale.md" \
  --sim "$build/bin/lincoll_sim" --plots "$top/perf/plot" --date q --check >/dev/null ||
  fail "scale_report.py --check: a row failed or has no prediction"
if command -v gnuplot >/dev/null; then
  for f in encode_65536 coll matmul ratio speedup; do
    [ -s "$dir/$f.png" ] || fail "figure $f.png missing"
  done
fi
echo "PASS: scale.sh --quick: every run measured, predicted and reported"
