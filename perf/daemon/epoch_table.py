#!/usr/bin/env python3
"""perf/daemon/epoch_table.py OUT_DIR [BASE NEW [TITLE]]: the table and
plots of perf/daemon/epoch_compare.sh.  BASE and NEW name the two daemons
(their run directories' prefixes; default context-per-op and epoch), TITLE
the plots' title.

Reads OUT_DIR/runs/DAEMON-rREP/bench.csv (load.sh's bench phase), small.csv
and logs/small-n*.log (the members' "group ready" times of 4 KiB puts), and
OUT_DIR/runs/DAEMON-rkill/kill.txt.  Writes OUT_DIR/medians.csv, table.md
(medians over the repetitions; ratios context-per-op / epoch for latency,
epoch / context-per-op for throughput), latency.png and throughput.png
(gnuplot)."""
import csv
import glob
import os
import re
import statistics
import subprocess
import sys

out = sys.argv[1]
DAEMONS = sys.argv[2:4] if len(sys.argv) >= 4 else ["context-per-op", "epoch"]
BASE, NEW = DAEMONS
TITLE = sys.argv[4] if len(sys.argv) >= 5 else "a lincoll context per operation vs per epoch"
runs = {}  # (daemon, clients, op, size) -> [row...]
setup = {d: [] for d in DAEMONS}  # members' group-ready seconds, 4 KiB puts
small = {d: [] for d in DAEMONS}  # 4 KiB put p50 (ms), 1 client
ups = []
for path in sorted(glob.glob(os.path.join(out, "runs", "*-r[0-9]*"))):
    d = re.sub(r"-r[0-9]+$", "", os.path.basename(path))
    if d not in DAEMONS:
        continue
    if os.path.exists(os.path.join(path, "uptime.txt")):
        ups += [ln.strip() for ln in open(os.path.join(path, "uptime.txt"))]
    if os.path.exists(os.path.join(path, "bench.csv")):
        for row in csv.DictReader(open(os.path.join(path, "bench.csv"))):
            runs.setdefault((d, int(row["clients"]), row["op"], int(row["size"])), []).append(row)
    if os.path.exists(os.path.join(path, "small.csv")):
        for row in csv.DictReader(open(os.path.join(path, "small.csv"))):
            if row["op"] == "put" and row["p50_ms"] not in ("", "nan"):
                small[d].append(float(row["p50_ms"]))
    for f in glob.glob(os.path.join(path, "logs", "small-n*.log")):
        for ln in open(f, errors="replace"):
            m = re.search(r"group ready ([0-9.]+) s", ln)
            if m:
                setup[d].append(float(m.group(1)))


def med(rows, key):
    v = [float(r[key]) for r in rows if r[key] not in ("", "nan")]
    return statistics.median(v) if v else float("nan")


keys = sorted({(c, op, s) for (_, c, op, s) in runs}, key=lambda k: (k[1], k[2], k[0]))
med_rows = []
for c, op, s in keys:
    for d in DAEMONS:
        rows = runs.get((d, c, op, s), [])
        if not rows:
            continue
        med_rows.append({"daemon": d, "clients": c, "op": op, "size": s, "reps": len(rows),
                         "ok": sum(int(r["ok"]) for r in rows), "fail": sum(int(r["fail"]) for r in rows),
                         "wrong": sum(int(r["wrong"]) for r in rows),
                         "MBps": med(rows, "MBps"), "ops_s": med(rows, "ops_s"),
                         "p50_ms": med(rows, "p50_ms"), "p99_ms": med(rows, "p99_ms")})
with open(os.path.join(out, "medians.csv"), "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=list(med_rows[0].keys()) if med_rows else ["daemon"],
                       lineterminator="\n")
    w.writeheader()
    w.writerows(med_rows)
M = {(r["daemon"], r["clients"], r["op"], r["size"]): r for r in med_rows}


def size_name(s):
    return "%d KiB" % (s >> 10) if s < (1 << 20) else "%d MiB" % (s >> 20)


def ratio(a, b):
    return "%.1f×" % (a / b) if b and b == b and a == a and b > 0 else "n/a"


B2N = "%s / %s" % (BASE, NEW)
lines = ["| op | size | clients | p50 ms %s | ratio | p99 ms %s | ratio "
         "| MB/s %s | ratio | ok (fail) %s |" % (B2N, B2N, B2N, B2N),
         "|---|---|---|---|---|---|---|---|---|---|"]
for c, op, s in keys:
    a, b = M.get((BASE, c, op, s)), M.get((NEW, c, op, s))
    if a is None or b is None:
        continue
    lines.append("| %s | %s | %d | %.1f / %.1f | %s | %.1f / %.1f | %s | %.2f / %.2f | %s | %d (%d) / %d (%d) |" % (
        op, size_name(s), c, a["p50_ms"], b["p50_ms"], ratio(a["p50_ms"], b["p50_ms"]),
        a["p99_ms"], b["p99_ms"], ratio(a["p99_ms"], b["p99_ms"]), a["MBps"], b["MBps"],
        ratio(b["MBps"], a["MBps"]), a["ok"], a["fail"], b["ok"], b["fail"]))
md = ["Medians over the repetitions (each a fresh cluster per cell); ratios: latency "
      "%s / %s, throughput %s / %s (above 1: the %s daemon is "
      "better)." % (BASE, NEW, NEW, BASE, NEW), ""] + lines + [""]
md.append("4 KiB puts, 1 client (load.sh's small phase), the members' group setup (their log's "
          "\"group ready\": from the ENCODE line to the plans ready, lincoll_init and its wireup "
          "included for a daemon with a context per operation):")
md.append("")
md.append("| daemon | put p50 ms | group setup p50 ms | share of the put p50 |")
md.append("|---|---|---|---|")
for d in DAEMONS:
    p = statistics.median(small[d]) if small[d] else float("nan")
    g = statistics.median(setup[d]) * 1e3 if setup[d] else float("nan")
    md.append("| %s | %.1f | %.2f | %s |" % (d, p, g, "%.0f%%" % (100 * g / p) if p == p and g == g else "n/a"))
md.append("")
md.append("Kill during load (load.sh -p kill: two daemons SIGKILLed, then restarted):")
md.append("")
kk = ["ops", "failed", "failed_unexplained", "wrong_reads", "hangs", "prekill_objects", "prekill_unreadable"]
md.append("| daemon | " + " | ".join(kk) + " |")
md.append("|---|" + "---|" * len(kk))
for d in DAEMONS:
    f = os.path.join(out, "runs", d + "-rkill", "kill.txt")
    if os.path.exists(f):
        kv = dict(ln.strip().split("=", 1) for ln in open(f) if "=" in ln)
        md.append("| %s | " % d + " | ".join(kv.get(k, "?") for k in kk) + " |")
md.append("")
md.append("`uptime` around the runs (the machine is shared):")
md.append("")
md += ["    " + u for u in ups]
open(os.path.join(out, "table.md"), "w").write("\n".join(md) + "\n")
print("\n".join(md))

# plots: put p50 latency and put throughput against clients, one line per daemon and size
dat = os.path.join(out, "plot.dat")
with open(dat, "w") as f:
    for d in DAEMONS:
        for s in sorted({k[2] for k in keys}):
            f.write("# %s %s\n" % (d, size_name(s)))
            for c in sorted({k[0] for k in keys}):
                r = M.get((d, c, "put", s))
                if r:
                    f.write("%d %g %g %g\n" % (c, r["p50_ms"], r["p99_ms"], r["MBps"]))
            f.write("\n\n")
series = [(d, size_name(s)) for d in DAEMONS for s in sorted({k[2] for k in keys})]
gp = ["set terminal pngcairo size 900,520", "set logscale xy", "set key outside right",
      "set xlabel 'concurrent clients'", "set grid",
      "set output '%s'" % os.path.join(out, "latency.png"),
      "set ylabel 'put latency p50 (ms)'",
      "set title 'lincoll-ecd puts: %s'" % TITLE,
      "plot " + ", ".join("'%s' index %d using 1:2 with linespoints title '%s %s'" % (dat, i, d, s)
                          for i, (d, s) in enumerate(series)),
      "set output '%s'" % os.path.join(out, "throughput.png"),
      "set ylabel 'put throughput (MB/s)'",
      "plot " + ", ".join("'%s' index %d using 1:4 with linespoints title '%s %s'" % (dat, i, d, s)
                          for i, (d, s) in enumerate(series))]
subprocess.run(["gnuplot"], input="\n".join(gp), text=True, check=True)
