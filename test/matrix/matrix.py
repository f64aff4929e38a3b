#!/usr/bin/env python3
"""The test matrix: every family x algorithm x memory kind x in place or not
x size, on 2 to 8 ranks (more ranks than cores included), under lincoll-run
and mpirun (docs/reliability.md, "The test matrix").

A launch runs build/bin/matrix_ucx once: one family, one algorithm (the
collectives' forced through LINCOLL_<OP>_ALGO, the others' passed in the
options), both memory kinds, every size of the family; each launch holds
many cells (matrix_ucx.c says what a cell checks).  The algorithms come from
the registries, through `lincoll_info -a`.

  matrix.py --bin DIR --slice N [--seed S]   N launches, chosen by the seed
  matrix.py --bin DIR --full                  every launch (perf/matrix_full.sh)
  matrix.py --bin DIR --ipcns                 2 ranks, rank 1 under unshare --ipc
  matrix.py --bin DIR --list                  the launches, one a line

A slice is deterministic: the seed (default: the checked-out commit, so
each commit runs another slice; --seed repeats one) orders the launches, and
the first N are taken after one launch of every family, rank count and
launcher.  Prints a line per launch, the failing cells' output, and
"matrix: N cells in L launches (A not applicable), F failed, C crashed, T s";
exits non-zero when a cell failed or a rank crashed or hung.
"""
import argparse
import hashlib
import os
import random
import re
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
RANKS = range(2, 9)
LAUNCHERS = ("lincoll-run", "mpirun")
# sizes per family: elements per rank (coll), bytes (p2p, encode, rs,
# repair), matrix order (matmul); 0 and 1 element up to several MiB
SIZES = {
    "coll": "0,1,7,4099,393216",
    "concurrent": "0,1,4099,131072",
    "p2p": "0,1,4096,4194304",
    "encode": "0,1,4096,1048576",
    "rs": "0,1,65536,2097152",
    "repair": "0,1,65536,2097152",
    "matmul": "1,33,256",
}


def registry(bindir):
    """(family, op, algo, ports) launches from lincoll_info -a."""
    out = subprocess.run([os.path.join(bindir, "lincoll_info"), "-a"], check=True,
                         capture_output=True, text=True).stdout
    launches = []
    ops = {"ALLREDUCE": "allreduce", "REDUCE_SCATTER": "reduce_scatter",
           "ALLGATHER": "allgather", "BCAST": "bcast", "REDUCE": "reduce"}
    seen_ops = []
    for line in out.splitlines():
        m = re.match(r"LINCOLL_(\w+)_ALGO\s+(\S+)\s", line)
        if not m:
            continue
        var, name = m.group(1), m.group(2)
        if var in ops:
            if ops[var] not in seen_ops:
                seen_ops.append(ops[var])
                launches.append(("coll", ops[var], "auto", 1))
            launches.append(("coll", ops[var], name, 1))
        elif var == "ENCODE":
            for p in (1, 2, 3):
                launches.append(("encode", "-", name, p))
        elif var == "REPAIR":
            launches.append(("repair", "-", name, 1))
        elif var == "MATMUL":
            launches.append(("matmul", "-", name, 1))
    if not launches:
        sys.exit("matrix: lincoll_info -a listed no algorithm")
    launches += [("encode", "-", "auto", p) for p in (1, 2, 3)]
    launches += [("coll", "concurrent", "auto", 1), ("p2p", "-", "-", 1),
                 ("rs", "-", "auto", 1), ("rs", "-", "auto", 2), ("repair", "-", "auto", 2)]
    return launches


def all_runs(bindir):
    return [(fam, op, algo, ports, P, launcher)
            for (fam, op, algo, ports) in registry(bindir)
            for P in RANKS for launcher in LAUNCHERS]


def default_seed():
    try:
        return subprocess.run(["git", "-C", TOP, "rev-parse", "HEAD"], check=True,
                              capture_output=True, text=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "no-git"


def pick_slice(runs, n, seed):
    rng = random.Random(hashlib.sha256(seed.encode()).hexdigest())
    order = sorted(runs)
    rng.shuffle(order)
    chosen, keys = [], set()
    for r in order:  # one launch of every family, rank count and launcher first
        fam, _, _, _, P, launcher = r
        new = {("f", fam), ("P", P), ("l", launcher)} - keys
        if new:
            chosen.append(r)
            keys |= new
    for r in order:
        if len(chosen) >= max(n, len(chosen)):
            break
        if r not in chosen:
            chosen.append(r)
    return chosen


def command(bindir, run, ipcns=False):
    fam, op, algo, ports, P, launcher = run
    sizes = SIZES["concurrent" if op == "concurrent" else fam]
    prog = [os.path.join(bindir, "matrix_ucx"), fam, op, algo, "host,lincoll", sizes, str(ports)]
    env = {"LINCOLL_TIMEOUT": "60"}
    var = {"encode": "ENCODE", "repair": "REPAIR", "matmul": "MATMUL"}.get(fam)
    if fam == "coll" and op != "concurrent":
        env["LINCOLL_%s_ALGO" % op.upper()] = algo
    elif var and algo not in ("-", "auto"):
        env["LINCOLL_%s_ALGO" % var] = algo
    if ipcns:  # rank 1 in an IPC namespace of its own
        prog = ["sh", "-c", 'if [ "$LINCOLL_RANK" = 1 ]; then exec unshare --ipc "$@"; '
                'else exec "$@"; fi', "matrix-ipcns"] + prog
    if launcher == "mpirun":
        cmd = ["mpirun", "--allow-run-as-root", "--oversubscribe", "-np", str(P)]
        for k, v in env.items():
            cmd += ["-x", "%s=%s" % (k, v)]
        return cmd + prog, dict(os.environ)
    e = dict(os.environ)
    e.update(env)
    return [os.path.join(bindir, "lincoll-run"), "-n", str(P), "--timeout", "600"] + prog, e


CELL = re.compile(r"^(?:\[0\] )?matrix_ucx: cell (\S+ .*?) (ok|FAILED)$")


def launch(bindir, run, ipcns=False):
    cmd, env = command(bindir, run, ipcns)
    t0 = time.time()
    try:
        p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=900,
                           stdin=subprocess.DEVNULL)
        out, rc = p.stdout + p.stderr, p.returncode
    except subprocess.TimeoutExpired as e:
        out = (e.stdout or b"").decode(errors="replace") + (e.stderr or b"").decode(errors="replace")
        rc = "hung"
    cells = [(m.group(1), m.group(2)) for m in map(CELL.match, out.splitlines()) if m]
    crashed = rc == "hung" or rc < 0 or bool(re.search(
        r"Caught signal|Segmentation fault|core dumped|Aborted|exited on signal|killed by signal",
        out))
    na = "matrix_ucx: not applicable" in out
    return cells, rc, crashed, na, out, time.time() - t0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin", default=os.path.join(TOP, "build", "bin"))
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--slice", type=int, metavar="N")
    g.add_argument("--full", action="store_true")
    g.add_argument("--ipcns", action="store_true")
    g.add_argument("--list", action="store_true")
    ap.add_argument("--seed", default=None)
    ap.add_argument("--launcher", choices=LAUNCHERS, default=None,
                    help="only this launcher (--full)")
    a = ap.parse_args()
    runs = all_runs(a.bin)
    if a.launcher:
        runs = [r for r in runs if r[5] == a.launcher]
    if a.list:
        for r in runs:
            print(" ".join(command(a.bin, r)[0]))
        print("matrix: %d launches" % len(runs))
        return 0
    if a.ipcns:
        if shutil.which("unshare") is None:
            sys.exit("matrix: --ipcns needs unshare (util-linux)")
        chk = subprocess.run(["unshare", "--ipc", "true"], capture_output=True, text=True)
        if chk.returncode != 0:
            sys.exit("matrix: --ipcns: unshare --ipc fails here (it needs root or "
                     "CAP_SYS_ADMIN): " + chk.stderr.strip())
        runs = [r for r in runs if r[4] == 2 and r[5] == "lincoll-run" and
                (r[2] in ("auto", "-") or r[0] != "coll" or r[2].startswith("zcopy"))]
    elif a.slice is not None:
        seed = a.seed or default_seed()
        print("matrix: seed %s (repeat with --seed %s)" % (seed, seed))
        runs = pick_slice(runs, a.slice, seed)
    t0 = time.time()
    ncells = nfail = ncrash = nna = nzc = 0
    for r in runs:
        cells, rc, crashed, na, out, dt = launch(a.bin, r, a.ipcns)
        bad = [c for c in cells if c[1] != "ok"]
        zc = [c for c in cells if " plan=zcopy" in c[0]]
        nzc += len(zc)
        if a.ipcns and zc:  # peers that cannot map each other never take a mapped plan
            print("matrix: rank 1 cannot map rank 0's memory, yet: " + zc[0][0])
            bad += zc
        nfail += len(bad)
        ncells += len(cells)
        failed = crashed or bad or rc != 0 or (not cells and not na)
        ncrash += 1 if crashed else 0
        nna += 1 if na and not cells else 0
        fam, op, algo, ports, P, launcher = r
        print("matrix: %-6s %-14s %-14s p=%d P=%d %-11s %3d cells %5.1f s %s" % (
            fam, op, algo, ports, P, launcher, len(cells), dt,
            "n/a" if na and not cells else ("FAILED (rc %s)" % rc if failed else "ok")),
            flush=True)
        if failed:
            if not bad and not crashed:
                nfail += 1  # the launch itself failed (no cell, or exit status)
            print("---- %s\n%s\n----" % (" ".join(command(a.bin, r)[0]), out[-6000:]), flush=True)
    print("matrix: %d cells in %d launches (%d not applicable), %d failed, %d crashed, %.0f s;"
          " %d cells ran a zero-copy plan" % (ncells, len(runs), nna, nfail, ncrash,
                                               time.time() - t0, nzc))
    if a.ipcns and ncells == 0:
        return 1
    return 1 if nfail or ncrash else 0


if __name__ == "__main__":
    sys.exit(main())
