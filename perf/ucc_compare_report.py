#!/usr/bin/env python3
"""perf/ucc_compare_report.py OUT [DOC]: the tables and plots of a
perf/ucc_compare.sh run.

Reads OUT/raw (ucc_OP_pN.REP.txt: "BYTES AVG_US" lines; {host,mem,bhost,
bmem}_OP_pN.REP.csv: lincoll_perf -f csv rows; floor.REP.txt: ucx_perftest.sh
tag_lat lines) and writes, medians over the repetitions:
  OUT/pN_OP.tsv   size, ucc_us, host_us, mem_us, before_host_us, before_mem_us,
                  the four ratios to UCC, host_algo, mem_algo ("nan": none);
  OUT/pN_MEM.png  perf/plot/ucc_ratio.gp (gnuplot), MEM host or mem;
  DOC             the markdown page (with DOC): machine and load, the floor,
                  per rank count and collective lincoll / UCC before and after,
                  the plots, and every size where lincoll is still slower.  The
                  part of an existing DOC after the line "<!-- reasons -->" is
                  kept (the hand-written reasons).
"""
import glob
import os
import re
import shutil
import statistics
import subprocess
import sys

OPS = ["allreduce", "reduce_scatter", "allgather", "bcast", "reduce"]
KINDS = ["host", "mem", "bhost", "bmem"]
MARK = "<!-- reasons -->"


def human(b):
    for unit, shift in (("MiB", 20), ("KiB", 10)):
        if b >= 1 << shift and b % (1 << shift) == 0:
            return "%d %s" % (b >> shift, unit)
    return "%d B" % b


def med(v):
    return statistics.median(v) if v else None


def fmt(x, nd=2):
    return "nan" if x is None else ("%.*f" % (nd, x))


def ratio(a, b):
    return a / b if a is not None and b else None


def main():
    if len(sys.argv) not in (2, 3):
        sys.stderr.write(__doc__)
        return 2
    out = sys.argv[1]
    doc = sys.argv[2] if len(sys.argv) == 3 else None
    raw = os.path.join(out, "raw")
    # (kind, n, op, size) -> [avg_us]; algo per (kind, n, op, size)
    t, algo = {}, {}
    for path in glob.glob(os.path.join(raw, "ucc_*_p*.*.txt")):
        m = re.match(r"ucc_(\w+?)_p(\d+)\.\d+\.txt$", os.path.basename(path))
        if not m:
            continue
        for line in open(path, encoding="utf-8"):
            f = line.split()
            if len(f) == 2 and f[0].isdigit():
                t.setdefault(("ucc", int(m.group(2)), m.group(1), int(f[0])), []).append(float(f[1]))
    for path in glob.glob(os.path.join(raw, "*_*_p*.*.csv")):
        m = re.match(r"(b?host|b?mem)_(\w+?)_p(\d+)\.\d+\.csv$", os.path.basename(path))
        if not m:
            continue
        kind, op, n = m.group(1), m.group(2), int(m.group(3))
        for line in open(path, encoding="utf-8"):
            f = line.strip().split(",")
            if len(f) >= 10 and f[0] == op and f[3].isdigit():
                t.setdefault((kind, n, op, int(f[3])), []).append(float(f[6]))
                algo[(kind, n, op, int(f[3]))] = f[9]
    floors = []
    for path in glob.glob(os.path.join(raw, "floor.*.txt")):
        for line in open(path, encoding="utf-8"):
            f = line.split()
            if len(f) >= 5 and f[0] == "tag_lat":
                floors.append(float(f[3]))
    floor = med(floors)
    ns = sorted({k[1] for k in t})
    sizes = sorted({k[3] for k in t})
    rows = {}  # (n, op) -> [(size, vals dict)]
    for n in ns:
        for op in OPS:
            lst = []
            for s in sizes:
                v = {k: med(t.get((k, n, op, s), [])) for k in ["ucc"] + KINDS}
                if all(x is None for x in v.values()):
                    continue
                best = {k: min(t[(k, n, op, s)]) if t.get((k, n, op, s)) else None
                        for k in ["ucc"] + KINDS}
                for k in KINDS:
                    v["r_" + k] = ratio(v[k], v["ucc"])
                    v["b_" + k] = ratio(best[k], best["ucc"])
                v["a_host"] = algo.get(("host", n, op, s), "-")
                v["a_mem"] = algo.get(("mem", n, op, s), "-")
                lst.append((s, v))
            if not lst:
                continue
            rows[(n, op)] = lst
            with open(os.path.join(out, "p%d_%s.tsv" % (n, op)), "w", encoding="utf-8") as f:
                f.write("size\tucc_us\thost_us\tmem_us\tbefore_host_us\tbefore_mem_us\thost_ratio\t"
                        "mem_ratio\tbefore_host_ratio\tbefore_mem_ratio\thost_algo\tmem_algo\t"
                        "host_best_ratio\tmem_best_ratio\n")
                for s, v in lst:
                    f.write("\t".join([str(s)] + [fmt(v[k], 3) for k in ["ucc"] + KINDS] +
                                      [fmt(v["r_" + k], 3) for k in KINDS] +
                                      [v["a_host"], v["a_mem"], fmt(v["b_host"], 3),
                                       fmt(v["b_mem"], 3)]) + "\n")
    pngs = []
    gp = os.path.join(os.path.dirname(os.path.abspath(__file__)), "plot", "ucc_ratio.gp")
    if shutil.which("gnuplot"):
        for n in ns:
            for mem in ("host", "mem"):
                png = os.path.join(out, "p%d_%s.png" % (n, mem))
                ops = " ".join(op for op in OPS if (n, op) in rows)
                r = subprocess.run(["gnuplot", "-e", "dir='%s'; n=%d; mem='%s'; out='%s'; ops='%s'"
                                    % (out, n, mem, png, ops), gp], capture_output=True, text=True)
                if r.returncode == 0 and os.path.getsize(png) > 0:
                    pngs.append((n, mem, png))
                else:
                    sys.stderr.write("ucc_compare_report: gnuplot: %s" % r.stderr)
    else:
        sys.stderr.write("ucc_compare_report: gnuplot not found: no plots\n")
    if doc:
        write_doc(doc, out, rows, ns, floor, floors, pngs)
    for (n, op), lst in sorted(rows.items()):
        print("%d ranks, %s: host/UCC %s" % (n, op, " ".join(fmt(v["r_host"]) for _, v in lst)))
        print("%d ranks, %s: mem/UCC  %s" % (n, op, " ".join(fmt(v["r_mem"]) for _, v in lst)))
    return 0


def write_doc(doc, out, rows, ns, floor, floors, pngs):
    kept = ""
    if os.path.exists(doc):
        text = open(doc, encoding="utf-8").read()
        if MARK in text:
            kept = text[text.index(MARK):]
    env = open(os.path.join(out, "env.txt"), encoding="utf-8").read() if os.path.exists(
        os.path.join(out, "env.txt")) else ""
    rel = os.path.relpath(out, os.path.dirname(os.path.abspath(doc)) or ".")
    has_before = any(v["bhost"] is not None or v["bmem"] is not None
                     for lst in rows.values() for _, v in lst)
    L = []
    L.append("# lincoll against UCC, the five collectives, 2 and 4 ranks")
    L.append("")
    L.append("Produced by `perf/ucc_compare.sh` (raw outputs and tables in [`%s/`](%s/)); every "
             "ratio is lincoll's average time per call over UCC's (tl/ucp, persistent "
             "collectives, `perf/anchors/ucc_coll.c`) measured in the same run, medians over "
             "the repetitions; below 1: lincoll faster.  host: `lincoll_perf -m host` (malloc'd "
             "buffers); memory: lincoll memory (`lincoll_mem_alloc`, the zero-copy plans).  "
             "UCC runs on malloc'd buffers, with `sched_yield` in its wait loop where the "
             "ranks outnumber the cores." % (rel, rel))
    L.append("")
    L.append("```")
    L.extend(env.rstrip("\n").splitlines())
    L.append("```")
    L.append("")
    if floor is not None:
        L.append("Small-message floor: one 8-byte message one way, `ucx_perftest -t tag_lat` "
                 "over shared memory, p50 %.3f µs (median of %d runs in this run)." % (floor, len(floors)))
        v8 = dict(rows.get((2, "allreduce"), [])).get(8)
        if v8 is not None and v8["host"] is not None:
            s = ("8-byte allreduce at 2 ranks, host buffers: %.3f µs = %.2f× the floor, %.2f× UCC"
                 % (v8["host"], v8["host"] / floor, v8["r_host"] or float("nan")))
            if v8["bhost"] is not None:
                s += " (before: %.3f µs = %.2f× the floor, %.2f× UCC)" % (
                    v8["bhost"], v8["bhost"] / floor, v8["r_bhost"] or float("nan"))
            L.append("")
            L.append(s + ".")
        L.append("")
    slower = []
    for n in ns:
        L.append("## %d ranks" % n)
        for op in OPS:
            lst = rows.get((n, op))
            if not lst:
                continue
            L.append("")
            L.append("### %s, %d ranks" % (op, n))
            L.append("")
            if has_before:
                L.append("| size | UCC µs | host ÷ UCC before | host ÷ UCC | host best ÷ best | "
                         "host algorithm | memory ÷ UCC before | memory ÷ UCC | "
                         "memory best ÷ best | memory algorithm |")
                L.append("|---:|---:|---:|---:|---:|---|---:|---:|---:|---|")
            else:
                L.append("| size | UCC µs | host ÷ UCC | host best ÷ best | host algorithm | "
                         "memory ÷ UCC | memory best ÷ best | memory algorithm |")
                L.append("|---:|---:|---:|---:|---|---:|---:|---|")
            for s, v in lst:
                def cell(k, pre="r_"):
                    r = v[pre + k]
                    if r is None:
                        return "-"
                    return ("**%.2f**" % r) if r > 1 else "%.2f" % r
                u = "-" if v["ucc"] is None else ("%.2f" % v["ucc"] if v["ucc"] < 100 else "%.0f" % v["ucc"])
                if has_before:
                    L.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                        human(s), u, cell("bhost"), cell("host"), cell("host", "b_"), v["a_host"],
                        cell("bmem"), cell("mem"), cell("mem", "b_"), v["a_mem"]))
                else:
                    L.append("| %s | %s | %s | %s | %s | %s | %s | %s |" % (
                        human(s), u, cell("host"), cell("host", "b_"), v["a_host"], cell("mem"),
                        cell("mem", "b_"), v["a_mem"]))
                for k, what, a in (("host", "host", v["a_host"]), ("mem", "memory", v["a_mem"])):
                    if v["r_" + k] is not None and v["r_" + k] > 1:
                        slower.append((n, op, s, what, v["r_" + k], v["b_" + k], a))
        for pn, mem, png in pngs:
            if pn == n:
                L.append("")
                L.append("![lincoll / UCC, %d ranks, %s](%s/%s)" % (
                    n, "host buffers" if mem == "host" else "lincoll memory", rel,
                    os.path.basename(png)))
        L.append("")
    L.append("## Where lincoll is still slower than UCC")
    L.append("")
    if not slower:
        L.append("Nowhere in this run.")
    else:
        L.append("| ranks | collective | size | buffers | lincoll ÷ UCC | best ÷ best | "
                 "lincoll's algorithm |")
        L.append("|---:|---|---:|---|---:|---:|---|")
        for n, op, s, what, r, b, a in slower:
            L.append("| %d | %s | %s | %s | %.2f | %s | %s |" % (n, op, human(s), what, r,
                                                               fmt(b), a))
    L.append("")
    L.append(kept if kept else MARK + "\n\n_Reasons: to be written from the figures above._\n")
    with open(doc, "w", encoding="utf-8") as f:
        f.write("\n".join(L).rstrip("\n") + "\n")


if __name__ == "__main__":
    sys.exit(main())
