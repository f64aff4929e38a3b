#!/usr/bin/env python3
"""The lists of algorithms that users read agree with the registries.

The registries (core/coll/registry.c, core/encode/registry.c,
core/encode/repair_registry.c, core/matmul/registry.c) are the one source;
`lincoll_info -a` prints them.  This check fails, naming the file and the
algorithm, when
  - include/lincoll/coll.h's list of an operation's algorithms differs from
    the registry's;
  - docs/collectives.md's table row of an operation lacks one of its
    `name` -> `plan` pairs;
  - docs/encode.md lacks an encode or repair algorithm, docs/matmul.md a
    matmul algorithm (each named in backticks);
  - a LINCOLL_<X>_ALGO=NAME in README.md or a document, script or CMake
    file of docs/, perf/, test/ or deploy/ names no algorithm of that
    variable (auto and specific aside; C tests pass bad values on purpose).
  check_registry_docs.py LINCOLL_INFO SOURCE_ROOT [--write]
--write rewrites the generated parts (coll.h's lists, the algorithm column
of docs/collectives.md's table, the "Registry (VAR, generated):" lines of
docs/encode.md and docs/matmul.md) from the registries first.
"""
import os
import re
import subprocess
import sys

info, top = sys.argv[1], sys.argv[2]
write = "--write" in sys.argv[3:]
out = subprocess.run([info, "-a"], check=True, capture_output=True, text=True).stdout
reg = {}
for line in out.splitlines():
    m = re.match(r"(LINCOLL_\w+_ALGO)\s+(\S+)\s+(\S+)\s", line)
    if m:
        reg.setdefault(m.group(1), []).append((m.group(2), m.group(3)))
bad = []
if len(reg) < 8:
    bad.append("lincoll_info -a listed %d variables" % len(reg))
ops = {"ALLREDUCE": "allreduce", "REDUCE_SCATTER": "reduce_scatter", "ALLGATHER": "allgather",
       "BCAST": "bcast", "REDUCE": "reduce"}


def read(rel):
    with open(os.path.join(top, rel), encoding="utf-8") as f:
        return f.read()


coll_h = read("include/lincoll/coll.h")
coll_md = read("docs/collectives.md")
if write:
    labels = {"reduce_scatter": "reduce-scatter", "bcast": "broadcast"}
    for var, op in ops.items():
        algs = reg.get("LINCOLL_%s_ALGO" % var, [])
        coll_h = re.sub(r"(\*  - %s: )[a-z0-9_, ]+;" % op,
                        lambda m: m.group(1) + ", ".join(n for n, _ in algs) + ";", coll_h)
        cells = ", ".join("`%s` → `%s`" % a for a in algs)
        coll_md = re.sub(r"^(\| %s \|[^|]*\|[^|]*\| )[^|]*( \|)$" % labels.get(op, op),
                         lambda m: m.group(1) + cells + m.group(2), coll_md, flags=re.M)
    for rel in ("docs/encode.md", "docs/matmul.md"):
        text = read(rel)
        text = re.sub(r"^(Registry \((LINCOLL_\w+_ALGO), generated\): ).*$",
                      lambda m: m.group(1) + ", ".join("`%s`" % n for n, _ in reg.get(m.group(2), [])),
                      text, flags=re.M)
        with open(os.path.join(top, rel), "w", encoding="utf-8") as f:
            f.write(text)
    for rel, text in (("include/lincoll/coll.h", coll_h), ("docs/collectives.md", coll_md)):
        with open(os.path.join(top, rel), "w", encoding="utf-8") as f:
            f.write(text)
for var, op in ops.items():
    names = [n for n, _ in reg.get("LINCOLL_%s_ALGO" % var, [])]
    m = re.search(r"\*  - %s: ([a-z0-9_, ]+);?" % op, coll_h)
    listed = [x.strip() for x in m.group(1).split(",")] if m else []
    if sorted(listed) != sorted(names):
        bad.append("include/lincoll/coll.h lists %s as %s, the registry has %s" % (op, listed, names))
    label = {"reduce_scatter": "reduce-scatter", "bcast": "broadcast"}.get(op, op)
    row = next((l for l in coll_md.splitlines() if l.startswith("| %s |" % label)), "")
    for n, plan in reg.get("LINCOLL_%s_ALGO" % var, []):
        if "`%s` → `%s`" % (n, plan) not in row:
            bad.append("docs/collectives.md: the %s row lacks `%s` → `%s`" % (op, n, plan))
for var, doc in (("LINCOLL_ENCODE_ALGO", "docs/encode.md"), ("LINCOLL_REPAIR_ALGO", "docs/encode.md"),
                 ("LINCOLL_MATMUL_ALGO", "docs/matmul.md")):
    text = read(doc)
    for n, _ in reg.get(var, []):
        if "`%s`" % n not in text:
            bad.append("%s does not name %s algorithm `%s`" % (doc, var, n))
# the generated registry lines of the documents
for rel in ("docs/encode.md", "docs/matmul.md"):
    for m in re.finditer(r"^Registry \((LINCOLL_\w+_ALGO), generated\): (.*)$", read(rel), re.M):
        want = ", ".join("`%s`" % n for n, _ in reg.get(m.group(1), []))
        if m.group(2) != want:
            bad.append("%s: the %s registry line reads %s, the registry has %s (--write)" % (
                rel, m.group(1), m.group(2), want))
# every LINCOLL_X_ALGO=NAME users or scripts write names a registry algorithm
known = {var: {n for n, _ in v} | {p for _, p in v} for var, v in reg.items()}
for d in ("README.md", "docs", "perf", "test", "deploy"):
    root = os.path.join(top, d)
    files = [root] if os.path.isfile(root) else [
        os.path.join(dp, f) for dp, _, fs in os.walk(root) for f in fs
        if f.endswith((".md", ".sh", ".py", ".txt", ".sbatch"))]
    for path in files:
        if "/perf/20" in path or "/docs/perf/" in path:
            continue  # dated reports quote what ran then
        try:
            text = open(path, encoding="utf-8").read()
        except (UnicodeDecodeError, OSError):
            continue
        for m in re.finditer(r"\b(LINCOLL_[A-Z_]+_ALGO)=([A-Za-z0-9_.]+)", text):
            var, val = m.group(1), m.group(2)
            if var not in known or val in ("auto", "specific", "error", "warn") or val in known[var]:
                continue
            bad.append("%s names %s=%s, not an algorithm of the registry" % (
                os.path.relpath(path, top), var, val))
for b in bad:
    print("check_registry_docs: " + b)
n = sum(len(v) for v in reg.values())
print("check_registry_docs: %d algorithms in %d registries; %d disagreements" % (n, len(reg), len(bad)))
sys.exit(1 if bad else 0)
