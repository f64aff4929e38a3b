#!/usr/bin/env python3
"""perf/shared_cores_report.py OUT: the tables and plots of perf/shared_cores.sh.

Reads OUT/raw (lincoll_perf CSV rows, mpi_coll "BYTES AVG_US" lines, the
emulated-cluster rows) and writes OUT/tables.md and, with gnuplot,
OUT/shared-cores-host.png, OUT/shared-cores-lincoll.png.  Per collective,
size and build: the median over rounds of lincoll's p50 and average; the
ratio to Open MPI is taken within each round (lincoll's average over Open
MPI's average, the statistic mpi_coll prints), then its median over rounds.
"""
import glob
import os
import re
import statistics
import subprocess
import sys

OPS = ["allreduce", "reduce_scatter", "allgather", "bcast", "reduce"]


def med(v):
    return statistics.median(v) if v else float("nan")


def main():
    out = sys.argv[1]
    raw = os.path.join(out, "raw")
    lin = {}  # (build, mem, op, size, round) -> (p50, avg, algo)
    for f in glob.glob(os.path.join(raw, "*.csv")):
        m = re.match(r"(before|after)\.(host|lincoll)\.(\w+)\.(\d+)\.csv$", os.path.basename(f))
        if not m:
            continue
        b, mem, op, r = m.group(1), m.group(2), m.group(3), int(m.group(4))
        for line in open(f):
            c = line.strip().split(",")
            if len(c) >= 10 and c[0] == op:
                lin[(b, mem, op, int(c[3]), r)] = (float(c[5]), float(c[6]), c[9])
    mpi = {}  # (op, size, round) -> avg
    for f in glob.glob(os.path.join(raw, "ompi.*.txt")):
        m = re.match(r"ompi\.(\w+)\.(\d+)\.txt$", os.path.basename(f))
        for line in open(f):
            c = line.split()
            if len(c) == 2 and c[0].isdigit():
                mpi[(m.group(1), int(c[0]), int(m.group(2)))] = float(c[1])
    builds = sorted({k[0] for k in lin}, reverse=True)  # before, after
    rounds = sorted({k[4] for k in lin})
    lines = []
    plot = {mem: [] for mem in ("host", "lincoll")}
    for op in OPS:
        sizes = sorted({k[3] for k in lin if k[2] == op})
        if not sizes:
            continue
        lines.append(f"\n### {op}\n")
        hdr = "| bytes | Open MPI avg us |"
        sep = "|---|---|"
        for mem in ("host", "lincoll"):
            for b in builds:
                hdr += f" {b} {mem} p50 / avg us | {b} {mem} / MPI |"
                sep += "---|---|"
        hdr += " after algorithm (host, lincoll) |"
        sep += "---|"
        lines += [hdr, sep]
        for s in sizes:
            row = f"| {s} | {med([mpi[(op, s, r)] for r in rounds if (op, s, r) in mpi]):.2f} |"
            prow = [s]
            for mem in ("host", "lincoll"):
                for b in builds:
                    v = [lin[(b, mem, op, s, r)] for r in rounds if (b, mem, op, s, r) in lin]
                    ratios = [lin[(b, mem, op, s, r)][1] / mpi[(op, s, r)] for r in rounds
                              if (b, mem, op, s, r) in lin and (op, s, r) in mpi and mpi[(op, s, r)] > 0]
                    rt = med(ratios)
                    row += f" {med([x[0] for x in v]):.2f} / {med([x[1] for x in v]):.2f} | {rt:.2f} |"
                    prow.append(rt)
            algos = []
            for mem in ("host", "lincoll"):
                a = [lin[("after", mem, op, s, r)][2] for r in rounds if ("after", mem, op, s, r) in lin]
                algos.append(a[0] if a else "-")
            row += f" {', '.join(algos)} |"
            lines.append(row)
            for i, mem in enumerate(("host", "lincoll")):
                plot[mem].append((op, prow[0], prow[1 + i * len(builds):1 + (i + 1) * len(builds)]))
    emu = {}
    for f in glob.glob(os.path.join(raw, "emu.*.csv")):
        m = re.match(r"emu\.(before|after)\.(shift|tag_bw)\.(\d+)\.csv$", os.path.basename(f))
        for line in open(f):
            c = line.strip().split(",")
            if len(c) >= 8 and c[0] == m.group(2):
                emu[(m.group(1), m.group(2), int(m.group(3)))] = (float(c[5]), float(c[6]), float(c[7]))
    if emu:
        lines.append("\n### Two hosts, 100 Mbit/s, 4 MiB\n")
        lines.append("| build | exchange p50 s | exchange avg s | one way s (tag_bw rate) | "
                     "exchange / one way (p50) | (avg) |")
        lines.append("|---|---|---|---|---|---|")
        for b in builds:
            er = sorted({k[2] for k in emu if k[0] == b})
            sp = [emu[(b, "shift", r)][0] / 1e6 for r in er if (b, "shift", r) in emu]
            sa = [emu[(b, "shift", r)][1] / 1e6 for r in er if (b, "shift", r) in emu]
            ow = [4194304 / (emu[(b, "tag_bw", r)][2] * 1e6) for r in er if (b, "tag_bw", r) in emu]
            lines.append(f"| {b} | {med(sp):.3f} | {med(sa):.3f} | {med(ow):.3f} | "
                         f"{med(sp) / med(ow):.2f} | {med(sa) / med(ow):.2f} |")
    with open(os.path.join(out, "tables.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))
    for mem, rows in plot.items():
        if not rows:
            continue
        dat = os.path.join(out, f"ratio-{mem}.dat")
        with open(dat, "w") as f:
            for op in OPS:
                f.write(f'"{op}"\n')
                for o, s, rt in rows:
                    if o == op:
                        f.write(f"{s} " + " ".join(f"{x:.4f}" for x in rt) + "\n")
                f.write("\n\n")
        png = os.path.join(out, f"shared-cores-{mem}.png")
        cols = " ,".join(
            f"'{dat}' index {i} using 1:{j + 2} with linespoints title '{op} {b}'"
            for i, op in enumerate(OPS) for j, b in enumerate(builds))
        script = (f"set terminal pngcairo noenhanced size 900,560; set output '{png}'; set logscale x 2; "
                  f"set logscale y 2; set xlabel 'bytes'; set ylabel 'lincoll avg / Open MPI avg'; "
                  f"set title '4 ranks on 2 cores, {mem} memory: ratio to Open MPI (median of rounds)'; "
                  f"set key outside right; set grid; plot {cols}, 1 with lines lc rgb 'black' "
                  f"title 'Open MPI'")
        subprocess.run(["gnuplot", "-e", script], check=False)


if __name__ == "__main__":
    main()
