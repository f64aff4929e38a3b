#!/usr/bin/env python3
"""perf/mpi/preload_report.py: the markdown report of perf/mpi/preload_compare.sh.

  preload_report.py RAW_DIR "NPS" "OPS" > report.md

Reads RAW_DIR/np<N>.<op>.<plain|lincoll>.<run> (mpi_coll's "BYTES AVG_US"
lines) and the statistics in the .err of each preloaded run; writes
RAW_DIR/ratio.tsv (np op bytes plain_us lincoll_us ratio, medians over the
runs) and prints one ratio table per rank count.
"""
import glob
import os
import re
import statistics
import sys


def load(path):
    out = {}
    try:
        with open(path) as f:
            for line in f:
                p = line.split()
                if len(p) == 2 and p[0].isdigit():
                    out[int(p[0])] = float(p[1])
    except OSError:
        pass
    return out


def human(b):
    for unit, s in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if b >= s:
            return f"{b // s} {unit}"
    return f"{b} B"


STAT_NAME = {"reduce_scatter": "reduce_scatter_block"}


def main():
    raw, nps, ops = sys.argv[1], sys.argv[2].split(), sys.argv[3].split()
    rows = []
    print("# liblincoll_mpi.so preloaded under perf/anchors/mpi_coll\n")
    print(f"Raw outputs: `{raw}/`.  Each cell: median over the runs of mpi_coll's mean time per")
    print("call with the library preloaded, over the median plain Open MPI time, both measured")
    print("in the same run, interleaved (`perf/mpi/preload_compare.sh`).  Below 1.00: the")
    print("preloaded run is faster.  Sizes are mpi_coll's (the whole vector; reduce_scatter and")
    print("allgather move blocks of size/P).  \"taken\": the calls lincoll took over all calls")
    print("(LINCOLL_MPI_STATS=1); where lincoll did not take a size, the call went to the MPI.\n")
    print(f"Machine: {' '.join(os.uname())}, {os.cpu_count()} cores.")
    try:
        with open(os.path.join(raw, "load.txt")) as f:
            lines = [line.rstrip() for line in f]
        print("Load while it ran (`uptime`):\n")
        loads = []
        for line in lines:
            print(f"    {line}")
            m = re.search(r"load average: ([0-9.]+)", line)
            if m:
                loads.append(float(m.group(1)))
        print()
        if loads and max(loads) > (os.cpu_count() or 1):
            print(f"**The load average ({max(loads):.1f}) exceeded the {os.cpu_count()} cores: "
                  "most of each measured time is waiting for a CPU, the ratios below do not "
                  "measure the two libraries.  Rerun on a quiet machine.**\n")
    except OSError:
        pass
    for np_ in nps:
        print(f"## {np_} ranks\n")
        print("| bytes | " + " | ".join(ops) + " |")
        print("|---|" + "---|" * len(ops))
        table, sizes = {}, set()
        for op in ops:
            med = {}
            for mode in ("plain", "lincoll"):
                runs = [load(f) for f in sorted(glob.glob(f"{raw}/np{np_}.{op}.{mode}.[0-9]*"))
                        if not f.endswith(".err")]
                per = {}
                for r in runs:
                    for b, t in r.items():
                        per.setdefault(b, []).append(t)
                med[mode] = {b: statistics.median(v) for b, v in per.items()}
            for b in med["plain"]:
                if b in med["lincoll"] and med["plain"][b] > 0:
                    ratio = med["lincoll"][b] / med["plain"][b]
                    table[(op, b)] = ratio
                    sizes.add(b)
                    rows.append((np_, op, b, med["plain"][b], med["lincoll"][b], ratio))
        for b in sorted(sizes):
            cells = [f"{table[(op, b)]:.2f}" if (op, b) in table else "-" for op in ops]
            print(f"| {human(b)} | " + " | ".join(cells) + " |")
        # how many calls lincoll took (statistics of the preloaded runs)
        taken = []
        for op in ops:
            t = f = 0
            for e in glob.glob(f"{raw}/np{np_}.{op}.lincoll.*.err"):
                for line in open(e):
                    m = re.match(r"lincoll_mpi: (\S+)\s+(\d+)\s+\S+\s+(\d+)", line)
                    if m and m.group(1) == STAT_NAME.get(op, op):
                        t += int(m.group(2))
                        f += int(m.group(3))
            taken.append(f"{t}/{t + f}")
        print("| taken | " + " | ".join(taken) + " |\n")
    with open(os.path.join(raw, "ratio.tsv"), "w") as tsv:
        for r in rows:
            tsv.write("%s\t%s\t%d\t%.3f\t%.3f\t%.4f\n" % r)


if __name__ == "__main__":
    main()
