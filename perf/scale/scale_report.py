#!/usr/bin/env python3
"""perf/scale/scale_report.py: the predictions, tables and plots of a
perf/scale/scale.sh run.

    scale_report.py --out DIR --report MD --sim LINCOLL_SIM --plots PLOTDIR --date DATE
                    [--check]

Reads DIR/runs.csv (one row per measured run) and DIR/calib.csv (alpha, beta
per host count H; gamma and flops of the kernels), asks lincoll_sim for every
row's prediction under those figures (the real plans on H virtual ranks: the
rounds and C2 the sim measures, pred_us = rounds alpha + (C2 + moved) beta +
compute gamma + flops / F, and the library's automatic choice), and writes

    DIR/scale.csv        runs.csv + pred_us, ratio, choice, fastest, ...
    DIR/*.tsv, DIR/*.png the plot inputs and gnuplot's figures
    MD                   the report: tables, figures, findings (DIR/notes.md
                         is included when present)

The sim answers are cached in DIR/sim/ (delete it to ask again).  gamma and
flops are the kernels' rates times min(1, cores / H): H ranks computing at
once share the cores.  --check: exit 1 unless every run of runs.csv has a
status ok, a positive measured time and a finite prediction (the CI smoke
test).
"""
import argparse
import csv
import math
import os
import subprocess
import sys

GOAL = 1.3


def fnum(x):
    try:
        v = float(x)
        return v if math.isfinite(v) else None
    except (TypeError, ValueError):
        return None


def human(b):
    b = int(b)
    for unit, n in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if b >= n and b % n == 0:
            return "%d %s" % (b // n, unit)
    return "%d B" % b


def ms(us):
    return "-" if us is None else ("%.1f" % (us / 1e3) if us >= 1e4 else "%.2f" % (us / 1e3))


def ratio_s(r):
    if r is None:
        return "-"
    ok = 1 / GOAL <= r <= GOAL
    return ("%.2f" % r) + ("" if ok else " **miss**")


def read_csv(path):
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return list(csv.DictReader(f))


class Sim:
    """lincoll_sim rows, cached per call in DIR/sim/."""

    def __init__(self, exe, cache):
        self.exe, self.cache = exe, cache
        os.makedirs(cache, exist_ok=True)
        self.mem = {}

    def rows(self, key, args):
        if key in self.mem:
            return self.mem[key]
        path = os.path.join(self.cache, key + ".csv")
        if not os.path.exists(path) or os.path.getsize(path) == 0:
            cmd = [self.exe] + args + ["-f", "csv", "--time-limit", "120"]
            r = subprocess.run(cmd, capture_output=True, text=True)
            with open(path, "w") as f:
                f.write(r.stdout)
            if r.returncode != 0:
                with open(path + ".err", "w") as f:
                    f.write(" ".join(cmd) + "\n" + r.stderr)
        rows = read_csv(path)
        self.mem[key] = {r["algo"]: r for r in rows}
        return self.mem[key]


def model(calib, cal, H):
    c = calib.get(cal)
    if c is None or int(c["H"]) != H:
        return None
    cores = fnum(c["cores"]) or 1
    share = min(1.0, cores / H)
    return {
        "alpha": fnum(c["alpha_us"]) * 1e-6,
        "beta": 1.0 / fnum(c["bw_Bps"]),
        "gamma_gf": 1.0 / (fnum(c["gf_gbps"]) * 1e9 * share),
        "gamma_red": 1.0 / (fnum(c["red_gbps"]) * 1e9 * share),
        "flops": fnum(c["gflops"]) * 1e9 * share,
    }


def predict(sim, calib, r):
    """(pred_us, pred_comm_us, plan_us, rounds, c2, choice, note) of a run row."""
    H, p = int(r["P"]), int(r["p"])
    m = model(calib, r.get("cal", ""), H)
    if m is None:
        return (None,) * 6 + ("no calibration %s for H=%d" % (r.get("cal", ""), H),)
    tag = "c%s" % r["cal"]
    fig = ["--alpha", "%.6g" % m["alpha"], "--beta", "%.6g" % m["beta"]]
    fam, algo = r["family"], r["algo"]
    if fam == "encode":
        field = "65537" if algo == "dft" else "256"
        key = "%s_encode_K%d_p%d_s%s_f%s" % (tag, H, p, r["size"], field)
        args = ["-t", "encode", "-K", str(H), "-p", str(p), "-s", r["size"], "-A",
                "dft" if algo == "dft" else "all", "--field", field]
        args += fig + ["--gamma", "%.6g" % m["gamma_gf"]]
        rows = sim.rows(key, args)
        s = rows.get(algo)
        comm = None
    elif fam == "coll":
        key = "%s_%s_K%d_s%s" % (tag, r["op"], H, r["size"])
        args = ["-t", r["op"], "-K", str(H), "-s", r["size"], "-A", "all"]
        args += fig + ["--gamma", "%.6g" % m["gamma_red"]]
        rows = sim.rows(key, args)
        s = rows.get(algo)
        comm = None
    else:
        sa = algo  # lincoll_sim takes the matmul registry's names
        extra = ["--layers", "2"] if sa == "25d" else []
        base = ["-t", "matmul", "-K", str(H), "-n", r["size"], "-A", sa] + extra + fig
        base += ["--gamma", "%.6g" % m["gamma_red"], "--flops", "%.6g" % m["flops"]]
        s = sim.rows("%s_matmul_K%d_n%s_%s" % (tag, H, r["size"], sa), base).get(sa)
        c = sim.rows("%s_matmul_K%d_n%s_%s_comm" % (tag, H, r["size"], sa),
                     base + ["--comm-only"]).get(sa)
        comm = fnum(c["pred_us"]) if c and c.get("status") == "ok" else None
    if s is None or s.get("status") != "ok":
        return (None,) * 6 + ((s or {}).get("note", "no sim row for %s" % algo),)
    return (fnum(s["pred_us"]), comm, fnum(s["plan_us"]), s["rounds"], s["c2"], s["choice"],
            s.get("note", ""))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--report", required=True)
    ap.add_argument("--sim", required=True)
    ap.add_argument("--plots", required=True)
    ap.add_argument("--date", default="")
    ap.add_argument("--check", action="store_true")
    a = ap.parse_args()
    out = a.out
    runs = read_csv(os.path.join(out, "runs.csv"))
    calib = {c["cal"]: c for c in read_csv(os.path.join(out, "calib.csv")) if fnum(c["alpha_us"])}
    sim = Sim(a.sim, os.path.join(out, "sim"))

    rows = []
    for r in runs:
        r = dict(r)
        pred, comm, plan, rounds, c2, choice, note = predict(sim, calib, r)
        meas = fnum(r["meas_us"])
        if r["status"] != "ok":
            meas = None
        r.update(pred_us=pred, pred_comm_us=comm, plan_us=plan, sim_rounds=rounds, sim_c2=c2,
                 choice=choice or "", sim_note=note,
                 ratio=meas / pred if meas and pred else None,
                 comm_ratio=(fnum(r["comm_us"]) / comm) if fnum(r["comm_us"]) and comm else None)
        r["meas"] = meas
        rows.append(r)

    # fastest measured per group, and whether the model's choice is it
    def gkey(r):
        return (r["family"], r["op"], r["P"], r["p"], r["lanes"], r["size"])

    groups = {}
    for r in rows:
        if r["meas"] is not None:
            groups.setdefault(gkey(r), []).append(r)
    for r in rows:
        g = [x for x in groups.get(gkey(r), []) if x["algo"] != "dft" or r["algo"] == "dft"]
        if r["family"] == "encode" and r["algo"] != "dft":
            g = [x for x in g if x["algo"] != "dft"]  # the universal choice is among these
        best = min(g, key=lambda x: x["meas"]) if g else None
        r["fastest"] = best["algo"] if best else ""
        ch = {"rhd_allreduce": "rhd"}.get(r["choice"], r["choice"])
        chosen = [x for x in g if x["algo"] == ch or x["plan"] == r["choice"]]
        if best and chosen:
            r["choice_vs_fastest"] = chosen[0]["meas"] / best["meas"]
        else:
            r["choice_vs_fastest"] = None

    cols = list(runs[0].keys()) if runs else []
    cols += ["pred_us", "pred_comm_us", "plan_us", "ratio", "comm_ratio", "sim_rounds", "sim_c2",
             "choice", "fastest", "choice_vs_fastest", "sim_note"]
    with open(os.path.join(out, "scale.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(cols)
        for r in rows:
            w.writerow(["" if r.get(c) is None else (("%.6g" % r[c]) if isinstance(r.get(c), float)
                                                     else r[c]) for c in cols])

    if a.check:
        bad = [r for r in rows if r["status"] != "ok" or not r["meas"] or r["meas"] <= 0
               or r["pred_us"] is None]
        for r in bad:
            print("scale_report: bad row: %s %s %s P=%s p=%s size=%s status=%s meas=%s pred=%s (%s)"
                  % (r["family"], r["op"], r["algo"], r["P"], r["p"], r["size"], r["status"],
                     r["meas_us"], r["pred_us"], r["sim_note"]), file=sys.stderr)
        if not rows:
            print("scale_report: runs.csv has no rows", file=sys.stderr)
        if bad or not rows:
            sys.exit(1)

    figs = plots(rows, out, a.plots, a.date)
    write_report(rows, calib, out, a.report, figs, a.date)


# ---- plots ------------------------------------------------------------------------------


def plots(rows, out, plotdir, date):
    figs = {}
    try:
        subprocess.run(["gnuplot", "--version"], capture_output=True, check=True)
    except (OSError, subprocess.CalledProcessError):
        return figs

    def gp(script, png, **kv):
        assigns = "; ".join("%s='%s'" % (k, v) for k, v in kv.items())
        assigns += "; out='%s'; when='%s'" % (os.path.join(out, png), date)
        r = subprocess.run(["gnuplot", "-e", assigns, os.path.join(plotdir, script)],
                           capture_output=True, text=True)
        made = os.path.exists(os.path.join(out, png)) and os.path.getsize(os.path.join(out, png))
        if made:
            figs[png] = True  # (an empty panel makes gnuplot complain, the figure is still right)
        if r.returncode != 0 or not made:
            with open(os.path.join(out, "plot.err"), "a") as f:
                f.write("%s: %s\n" % (png, r.stderr.strip()))

    enc = [r for r in rows if r["family"] == "encode" and r["lanes"] == r["p"]]
    for size in sorted({r["size"] for r in enc}, key=int):
        t = os.path.join(out, "encode_%s.tsv" % size)
        with open(t, "w") as f:
            f.write("# p K algo measured_ms predicted_ms\n")
            for r in sorted(enc, key=lambda r: (int(r["p"]), int(r["P"]), r["algo"])):
                if r["size"] == size:
                    f.write("%s\t%s\t%s\t%s\t%s\n" % (r["p"], r["P"], r["algo"],
                                                    nan(r["meas"], 1e3), nan(r["pred_us"], 1e3)))
        gp("scale_encode.gp", "encode_%s.png" % size, **{"in": t, "size": human(size)})
    sp = speedups(rows)
    if sp:
        t = os.path.join(out, "speedup.tsv")
        with open(t, "w") as f:
            f.write("# K size algo p measured theory\n")
            for s in sp:
                f.write("%s\t%s\t%s\t%s\t%s\t%s\n" % (s["K"], s["size"], s["algo"], s["p"],
                                                      nan(s["speedup"]), s["theory"]))
        gp("scale_speedup.gp", "speedup.png", **{"in": t})
    coll = [r for r in rows if r["family"] == "coll"]
    if coll:
        t = os.path.join(out, "coll.tsv")
        with open(t, "w") as f:
            f.write("# op P algo measured_ms predicted_ms\n")
            for r in sorted(coll, key=lambda r: (r["op"], r["algo"], int(r["P"]))):
                f.write("%s\t%s\t%s\t%s\t%s\n" % (r["op"], r["P"], r["algo"], nan(r["meas"], 1e3),
                                                nan(r["pred_us"], 1e3)))
        gp("scale_coll.gp", "coll.png", **{"in": t})
    mm = [r for r in rows if r["family"] == "matmul" and r["lanes"] == "1"]
    if mm:
        t = os.path.join(out, "matmul.tsv")
        with open(t, "w") as f:
            f.write("# P algo measured_ms predicted_ms comm_ms predicted_comm_ms\n")
            for r in sorted(mm, key=lambda r: (r["algo"], int(r["P"]))):
                f.write("%s\t%s\t%s\t%s\t%s\t%s\n" % (r["P"], r["algo"], nan(r["meas"], 1e3),
                                                    nan(r["pred_us"], 1e3),
                                                    nan(fnum(r["comm_us"]), 1e3),
                                                    nan(r["pred_comm_us"], 1e3)))
        gp("scale_matmul.gp", "matmul.png", **{"in": t})
    t = os.path.join(out, "ratio.tsv")
    with open(t, "w") as f:
        f.write("# index family ratio\n")
        for i, r in enumerate([r for r in rows if r["ratio"]]):
            f.write("%d\t%s\t%.4f\n" % (i, r["family"], r["ratio"]))
    gp("scale_ratio.gp", "ratio.png", **{"in": t})
    return figs


def nan(v, div=1.0):
    return "NaN" if v is None else "%.6g" % (v / div)


def clog(K, b):
    n, x = 0, 1
    while x < K:
        x *= b
        n += 1
    return n


def speedups(rows):
    """t(p = 1) / t(p) of each algorithm at each K and size (p links)."""
    enc = {(r["algo"], r["P"], r["size"], r["p"]): r for r in rows
           if r["family"] == "encode" and r["lanes"] == r["p"] and r["meas"]}
    out = []
    for (algo, K, size, p), r in sorted(enc.items(), key=lambda x: (x[0][0], int(x[0][1]),
                                                                     int(x[0][2]), int(x[0][3]))):
        if algo not in ("prepare_shoot", "direct"):
            continue
        one = enc.get((algo, K, size, "1"))
        if one is None:
            continue
        k, pp = int(K), int(p)
        if algo == "prepare_shoot":
            theory = clog(k, 2) / clog(k, pp + 1)
        else:
            theory = math.ceil((k - 1) / 1) / math.ceil((k - 1) / pp)
        c1 = clog(k, pp + 1) if algo == "prepare_shoot" else math.ceil((k - 1) / pp)
        out.append(dict(algo=algo, K=K, size=size, p=p, meas=r["meas"], one=one["meas"],
                        speedup=one["meas"] / r["meas"], theory=theory, c1=c1,
                        c1_plan=r["C1"]))
    return out


# ---- report -----------------------------------------------------------------------------


def cpu_s(r):
    m, x = fnum(r["cpu_mean"]), fnum(r["cpu_max"])
    if m is None:
        return "-"
    return "%.0f%% / %.0f%%" % (100 * m, 100 * (x or m))


def write_report(rows, calib, out, path, figs, date):
    rel = os.path.relpath(out, os.path.dirname(path))
    L = []
    add = L.append
    env = open(os.path.join(out, "env.txt")).read() if os.path.exists(os.path.join(out, "env.txt")) else ""

    def img(png, cap):
        if png in figs:
            add("")
            add("![%s](%s/%s)" % (cap, rel, png))

    add("# lincoll at scale on the emulated cluster, %s" % date)
    add("")
    add("Produced by `perf/scale/scale.sh` (raw logs, `runs.csv`, `scale.csv`, `calib.csv` and "
        "the figures in [`%s/`](%s/)).  One rank per emulated host (a network namespace), links "
        "shaped with `tc tbf`, p links per host for p ports (`deploy/emucluster -L p`, "
        "`LINCOLL_UCX_LANES`: each port its own link).  Every prediction is `lincoll_sim` running "
        "the real plans on the same number of virtual ranks with the figures calibrated on the same "
        "links in the same run (below): rounds x alpha + (C2 + moved) x beta + compute x gamma + "
        "flops / F.  Goal: measured / predicted within %.1fx (rows outside are marked **miss**)."
        % (rel, rel, GOAL))
    add("")
    add("## Machine, links and calibration")
    add("")
    add("```")
    add(env.strip())
    add("```")
    add("")
    add("| calibration | hosts H | used by | alpha (ms / round) | 1/beta (MiB/s per link) | "
        "GF(2^8) GB/s | float sum GB/s | dgemm GFLOP/s | compute share per rank | "
        "CPU share of a rank (4 MiB shift) | machine busy |")
    add("|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for cal in sorted(calib, key=int):
        c = calib[cal]
        H = int(c["H"])
        cores = fnum(c["cores"]) or 1
        fams = sorted({r["family"] for r in rows if r.get("cal") == cal})
        add("| %s | %d | %s | %.3f | %.2f | %s | %s | %s | %.2f | %s | %s |" % (
            cal, H, ", ".join(fams) or "-", fnum(c["alpha_us"]) / 1e3, fnum(c["bw_Bps"]) / 1048576, c["gf_gbps"], c["red_gbps"],
            c["gflops"], min(1.0, cores / H),
            "-" if not fnum(c["cpu_mean"]) else "%.0f%%" % (100 * fnum(c["cpu_mean"])),
            "-" if not fnum(c["machine_busy"]) else "%.0f%%" % (100 * fnum(c["machine_busy"]))))
    add("")
    add("Each host count is calibrated right before its runs (the machine's load drifts).  "
        "alpha: the mean round of an 8-byte ring shift over the H hosts (every host sends to the "
        "next and receives from the previous at once, as in an encode round), with the ranks' "
        "waits sleeping between polls (`lincoll_perf -y`), so it holds that polling interval; "
        "beta: the median 4 MiB shift less alpha.  CPU share: getrusage (user + system) of each rank "
        "over the test's wall time, mean over the ranks; machine busy: /proc/stat over the same "
        "time, every process of the machine (it is shared).")

    ok = [r for r in rows if r["ratio"]]
    inside = [r for r in ok if 1 / GOAL <= r["ratio"] <= GOAL]
    add("")
    add("## Summary")
    add("")
    for fam in ("encode", "coll", "matmul"):
        f = [r for r in ok if r["family"] == fam]
        if f:
            fi = [r for r in f if 1 / GOAL <= r["ratio"] <= GOAL]
            rs = sorted(r["ratio"] for r in f)
            add("- %s: %d of %d runs within %.1fx of the prediction (measured / predicted: median "
                "%.2f, range %.2f .. %.2f)." % (fam, len(fi), len(f), GOAL, rs[len(rs) // 2],
                                                rs[0], rs[-1]))
    failed = [r for r in rows if r["status"] != "ok"]
    if failed:
        add("- %d runs failed: %s." % (len(failed), ", ".join(
            "%s %s P=%s p=%s %s (%s)" % (r["op"], r["algo"], r["P"], r["p"], r["size"], r["status"])
            for r in failed)))
    add("- all: %d of %d within %.1fx." % (len(inside), len(ok), GOAL))
    img("ratio.png", "measured / predicted, every run")
    notes = os.path.join(out, "notes.md")
    if os.path.exists(notes):
        add("")
        add(open(notes).read().strip())

    # ---- encode
    enc = [r for r in rows if r["family"] == "encode"]
    if enc:
        add("")
        add("## All-to-all encode (GF(2^8); DFT over the prime 65537)")
        add("")
        add("One row per run: K hosts, p ports on p links (lanes 1: the p ports share one link, a "
            "control), packet size per rank.  C1 = the plan's rounds (chunk pipelining doubles "
            "them where the library cuts packets), ms = median of the measured iterations.  "
            "choice = what the library's cost model picks under the same figures (`lincoll_sim`, "
            "the tag transport); fastest = the fastest measured of the universal algorithms "
            "(prepare_shoot, best_window, direct; for DFT rows also dft).")
        add("")
        add("| K | p | lanes | size | algorithm | C1 | measured ms | predicted ms | measured / predicted | "
            "CPU share (mean / max) | choice | fastest | choice / fastest |")
        add("|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---|---|---:|")
        for r in sorted(enc, key=lambda r: (int(r["P"]), int(r["p"]), -int(r["lanes"]),
                                            int(r["size"] or 0), r["algo"])):
            add("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                r["P"], r["p"], r["lanes"], human(r["size"] or 0), r["plan"] or r["algo"],
                r["sim_rounds"] or r["C1"], ms(r["meas"]), ms(r["pred_us"]), ratio_s(r["ratio"]),
                cpu_s(r), r["choice"], r["fastest"],
                "-" if r["choice_vs_fastest"] is None else "%.2f" % r["choice_vs_fastest"]))
        for size in sorted({r["size"] for r in enc if r["size"]}, key=int):
            img("encode_%s.png" % size, "encode, %s packets: measured and predicted" % human(size))
        sp = speedups(rows)
        if sp:
            add("")
            add("### Speed-up against the number of ports (links)")
            add("")
            add("t(p = 1) / t(p), measured, beside the theory: prepare_shoot needs "
                "C1 = ceil(log_{p+1} K) rounds (speed-up ceil(log2 K) / ceil(log_{p+1} K)), direct "
                "C1 = ceil((K - 1) / p) (speed-up (K - 1) / ceil((K - 1) / p)).  Plan C1: the rounds "
                "of one packet's schedule (lincoll_plan_stats; chunked plans repeat them per chunk).")
            add("")
            add("| algorithm | K | size | p | theory C1 | plan C1 | measured ms | speed-up | theory |")
            add("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
            for s in sp:
                add("| %s | %s | %s | %s | %d | %s | %s | %.2f | %.2f |" % (
                    s["algo"], s["K"], human(s["size"]), s["p"], s["c1"], s["c1_plan"],
                    ms(s["meas"]), s["speedup"], s["theory"]))
            img("speedup.png", "encode speed-up against p")
        # point 4
        k16 = [r for r in enc if r["P"] == "16"]
        if k16:
            add("")
            add("### The seed paper's claim on real links: K = 16")
            add("")
            add("| p | lanes | size | prepare_shoot ms | direct ms | direct / prepare_shoot measured | "
                "predicted | dft ms | dft / prepare_shoot |")
            add("|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
            idx = {(r["p"], r["lanes"], r["size"], r["algo"]): r for r in k16}
            for (p, lanes, size) in sorted({(r["p"], r["lanes"], r["size"]) for r in k16},
                                           key=lambda x: (int(x[0]), -int(x[1]), int(x[2] or 0))):
                ps = idx.get((p, lanes, size, "prepare_shoot"))
                d = idx.get((p, lanes, size, "direct"))
                ft = idx.get((p, lanes, size, "dft"))
                def g(x, k):
                    return x[k] if x else None
                mr = g(d, "meas") / g(ps, "meas") if g(d, "meas") and g(ps, "meas") else None
                pr = (g(d, "pred_us") / g(ps, "pred_us")
                      if g(d, "pred_us") and g(ps, "pred_us") else None)
                fr = g(ft, "meas") / g(ps, "meas") if g(ft, "meas") and g(ps, "meas") else None
                add("| %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                    p, lanes, human(size or 0), ms(g(ps, "meas")), ms(g(d, "meas")),
                    "-" if mr is None else "%.2f" % mr, "-" if pr is None else "%.2f" % pr,
                    ms(g(ft, "meas")), "-" if fr is None else "%.2f" % fr))

    # ---- collectives
    coll = [r for r in rows if r["family"] == "coll"]
    if coll:
        add("")
        add("## Collectives (float sum, root 0; size = the whole vector)")
        add("")
        add("| operation | P | size | algorithm | rounds | measured ms | predicted ms | measured / predicted | "
            "CPU share | choice | fastest | choice / fastest |")
        add("|---|---:|---:|---|---:|---:|---:|---:|---:|---|---|---:|")
        for r in sorted(coll, key=lambda r: (r["op"], int(r["P"]), r["algo"])):
            add("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                r["op"], r["P"], human(r["size"] or 0), r["plan"] or r["algo"], r["sim_rounds"],
                ms(r["meas"]), ms(r["pred_us"]), ratio_s(r["ratio"]), cpu_s(r), r["choice"],
                r["fastest"], "-" if r["choice_vs_fastest"] is None else "%.2f" % r["choice_vs_fastest"]))
        img("coll.png", "collectives: measured and predicted against P")

    # ---- matmul
    mm = [r for r in rows if r["family"] == "matmul"]
    if mm:
        add("")
        add("## Distributed matrix multiply (double, n x n)")
        add("")
        add("Full: the plan with its GEMMs; comm: the same transfers without them "
            "(`LINCOLL_MATMUL_COMM_ONLY`), against the sim's prediction without flops.")
        add("")
        add("| P | links | n | algorithm | rounds | measured ms | predicted ms | measured / predicted | comm ms | "
            "predicted comm ms | comm ratio | CPU share | choice | fastest |")
        add("|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---|")
        for r in sorted(mm, key=lambda r: (int(r["P"]), r["algo"], int(r["lanes"]))):
            add("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                r["P"], r["lanes"], r["size"], r["plan"] or r["algo"], r["sim_rounds"], ms(r["meas"]),
                ms(r["pred_us"]), ratio_s(r["ratio"]), ms(fnum(r["comm_us"])),
                ms(r["pred_comm_us"]), ratio_s(r["comm_ratio"]), cpu_s(r), r["choice"],
                r["fastest"]))
        img("matmul.png", "matmul: measured and predicted")

    misses = [r for r in ok if not 1 / GOAL <= r["ratio"] <= GOAL]
    if misses:
        add("")
        add("## Runs outside %.1fx" % GOAL)
        add("")
        add("| family | operation | algorithm | P | p | lanes | size | measured / predicted | CPU share | machine busy |")
        add("|---|---|---|---:|---:|---:|---:|---:|---:|---:|")
        for r in misses:
            add("| %s | %s | %s | %s | %s | %s | %s | %.2f | %s | %s |" % (
                r["family"], r["op"], r["algo"], r["P"], r["p"], r["lanes"],
                human(r["size"] or 0) if r["family"] != "matmul" else "n=" + r["size"],
                r["ratio"], cpu_s(r),
                "-" if not fnum(r["machine_busy"]) else "%.0f%%" % (100 * fnum(r["machine_busy"]))))
    with open(path, "w") as f:
        f.write("\n".join(L) + "\n")
    print("scale_report: wrote %s (%d runs, %d figures)" % (path, len(rows), len(figs)),
          file=sys.stderr)


if __name__ == "__main__":
    main()
