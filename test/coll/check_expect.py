#!/usr/bin/env python3
"""Checks test/coll/coll_expect.c, the closed forms test_coll_sim compares the
sim transport's measurements with, against the executable model of
docs/collectives.md ("Per-rank messages and elements"; test/coll/model/).

DUMP_PROGRAM (expect_dump) prints one line per case and rank:
    op algo P n root rank ms es mr er rounds
For every case the model's schedules run on symbolic data
(model/schedules.py: message matching, sizes, every contribution reduced
once, the right result on every rank) and count each rank's messages and
elements and the global rounds; the line must equal those counts, and so
must the closed forms of model/closed_forms.py (the table of the docs).
Usage: check_expect.py DUMP_PROGRAM"""
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "model"))
import closed_forms  # noqa: E402
import schedules  # noqa: E402


def rs_ag_counts(p, n):
    """The per-rank counts expect_dump uses for reduce-scatter and allgather."""
    return [(7 * i + n) % 4 for i in range(p)]


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    out = subprocess.run([sys.argv[1]], check=True, capture_output=True, text=True).stdout
    sims, lines, bad, seen = {}, 0, 0, set()

    def report(*what):
        nonlocal bad
        bad += 1
        if bad <= 10:
            print("MISMATCH", *what)

    for line in out.splitlines():
        op, algo, p, n, root, me, ms, es, mr, er, rounds = line.split()
        p, n, root, me, rounds = int(p), int(n), int(root), int(me), int(rounds)
        got = dict(ms=int(ms), es=int(es), mr=int(mr), er=int(er))
        c = rs_ag_counts(p, n)
        key = (op, algo, p, n, root)
        if key not in sims:
            try:
                sims[key] = schedules.simulate(op, algo, p, n, c, root)
            except schedules.ScheduleError as e:
                print("MODEL ERROR", key, e)
                return 1
            if sims[key] is None:
                print("no model for", op, algo)
                return 1
        stats, sim_rounds = sims[key]
        lines += 1
        seen.add((op, algo))
        if got != stats[me]:
            report(line, "| simulated:", stats[me])
        form = closed_forms.counts(op, algo, p, me, n, c, root)
        if form != stats[me]:
            report(line, "| closed form of the docs:", form, "simulated:", stats[me])
        if rounds != sim_rounds or closed_forms.rounds(op, algo, p) != sim_rounds:
            report(line, f"| rounds: C {rounds}, simulated {sim_rounds}, closed form "
                         f"{closed_forms.rounds(op, algo, p)}")
    print(f"{lines} lines compared ({len(sims)} cases, {len(seen)} algorithms simulated), "
          f"{bad} mismatches")
    return 1 if bad or lines == 0 or len(seen) < 10 else 0


if __name__ == "__main__":
    sys.exit(main())
