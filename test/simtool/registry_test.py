#!/usr/bin/env python3
"""lincoll_sim's algorithms against the library's registries.

Usage: registry_test.py LINCOLL_SIM LINCOLL_INFO

Fails when, for any operation, the names lincoll_sim takes (--list, and the
lists of its -h text) differ from what `lincoll_info -a` prints for the
variable that forces that operation's algorithm:
  - allreduce ... reduce: LINCOLL_<OP>_ALGO;
  - encode: LINCOLL_ENCODE_ALGO's algorithms, with "specific" standing for
    the structured matrices its plan column names (dft|vandermonde|lagrange);
  - rs_encode: LINCOLL_ENCODE_ALGO's tag (not zero-copy) universal ones;
  - repair: those and LINCOLL_REPAIR_ALGO's schedules;
  - matmul: LINCOLL_MATMUL_ALGO.
"""
import re
import subprocess
import sys


def run(*cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit("%s: exit %d\n%s" % (" ".join(cmd), r.returncode, r.stderr))
    return r.stdout


def info_sets(text):
    """{variable: [(name, plan, zero copy)]} from lincoll_info -a."""
    rows = {}
    for line in text.splitlines():
        f = line.split()
        if len(f) == 4 and f[0].startswith("LINCOLL_") and f[0].endswith("_ALGO"):
            rows.setdefault(f[0], []).append((f[1], f[2], f[3] == "yes"))
    return rows


def expected(rows):
    want = {}
    for var, algs in rows.items():
        op = var[len("LINCOLL_"):-len("_ALGO")].lower()
        if op in ("encode", "repair"):
            continue
        want[op] = {n for n, _, _ in algs}
    enc = rows.get("LINCOLL_ENCODE_ALGO", [])
    universal = {n for n, _, _ in enc if n != "specific"}
    specific = {p for n, plan, _ in enc if n == "specific" for p in plan.split("|")}
    tag = {n for n, _, zc in enc if n != "specific" and not zc}
    want["encode"] = universal | specific
    want["rs_encode"] = tag
    want["repair"] = tag | {n for n, _, _ in rows.get("LINCOLL_REPAIR_ALGO", [])}
    return want


def sim_list(text):
    got = {}
    for line in text.splitlines():
        op, name = line.split()
        got.setdefault(op, set()).add(name)
    return got


def sim_help(text, ops):
    """The names on each operation's line(s) of the OPERATIONS section."""
    got, cur = {}, None
    sec = text.split("OPERATIONS", 1)[1].split("\nOPTIONS", 1)[0]
    for line in sec.splitlines():
        m = re.match(r"^    (\S+)\s{2,}(.*)$", line)
        if m and m.group(1) in ops:
            cur = m.group(1)
            got[cur] = set(m.group(2).split())
        elif cur and re.match(r"^ {20}\S", line) and re.fullmatch(r"[\w ]+", line.strip()):
            got[cur] |= set(line.split())  # a wrapped list: names only
        else:
            cur = None
    return got


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    sim, info = sys.argv[1], sys.argv[2]
    want = expected(info_sets(run(info, "-a")))
    listed = sim_list(run(sim, "--list"))
    helped = sim_help(run(sim, "-h"), set(want))
    bad = 0
    for what, got in (("--list", listed), ("-h", helped)):
        for op in sorted(set(want) | set(got)):
            w, g = want.get(op, set()), got.get(op, set())
            if w != g:
                bad += 1
                print("%s %s: lincoll_sim has %s, lincoll_info -a %s (missing %s, extra %s)"
                      % (what, op, sorted(g), sorted(w), sorted(w - g), sorted(g - w)))
    for op in sorted(want):
        one = sim_list(run(sim, "-t", op, "--list"))
        if one != {op: listed.get(op, set())}:
            bad += 1
            print("-t %s --list: %s, --list alone: %s" % (op, one, listed.get(op)))
    if bad:
        sys.exit("%d differences between lincoll_sim and the registries" % bad)
    print("lincoll_sim: %d operations, %d algorithms, as lincoll_info -a lists them"
          % (len(want), sum(len(v) for v in want.values())))


if __name__ == "__main__":
    main()
