#!/usr/bin/env python3
"""The docs check: every shell command README.md and docs/**/*.md show to
users is run, or is mapped to the ctest test (or CI job) that runs it.

  doc_commands.py --list [--explain]   every extracted command: FILE:LINE: COMMAND; with
                                       --explain also each candidate judged not a command,
                                       and why
  doc_commands.py --check -b BUILD     every command is run or mapped, every mapped test
                                       exists (ctest -N in BUILD), no table entry is stale;
                                       runs nothing (ctest docs_commands_list)
  doc_commands.py --run -b BUILD [--log-dir DIR] [--only REGEX]
                                       the check above, then every run command from the
                                       repository root, each under a timeout: its exit
                                       status must be 0 (ctest docs_commands)

What counts as a command (python3, standard library only):
  - fenced blocks tagged sh, bash, shell or console (console: the "$ " lines):
    every line that is not blank or a comment; a trailing backslash joins the
    next line, and so does an indented next line that starts with "[" or "-"
    (the rest of a usage synopsis);
  - untagged fenced blocks: the lines whose first word (after VAR=value
    assignments) is a program, as below; diagrams, tables, file listings and
    sample output do not start with one;
  - inline `code` outside blocks, when it starts (after VAR=value) with a
    program AND has at least one argument: a path alone (`perf/report.sh`)
    names a file, like a link;
  - a trailing "# or COMMAND" comment in a block holds one more command.
  A program is a path to an executable file of the repository (./x, deploy/,
  perf/, test/, .ci/), a build program (build/bin/NAME, or NAME bare for the
  programs in PROGRAMS), or a tool in TOOLS.  A directory is not a program
  (`deploy/emucluster -L 2` names the emulated cluster and its option).
  PROGRAMS holds, per program, what makes an invocation whole: a launcher
  needs the program it starts (`srun --mpi=pmix` names an option),
  lincoll_perf needs -t (`lincoll_perf -y` names an option), and so on.

Each command is then in exactly one table: AS_WRITTEN (run as shown),
REWRITES (run with a change that the entry explains: a placeholder filled,
a long sweep shortened with the program's own options, an output kept out
of the tree) or MAPPED (the ctest test that runs it, checked with ctest -N,
or the CI job of .ci/run that runs it, checked in .ci/run).  A command in no
table fails the check naming FILE:LINE; so does a table entry that no longer
matches any command.  Commands are compared with "./" and "build/bin/"
dropped and blanks collapsed, so one command shown in several places runs
once.  The environment of every command: build/bin first on PATH (the docs
also name its programs bare), DOCS_TMP (a temporary directory holding
app.c, the README's C program), DOCS_NP (one rank per core, at most 8), and
as root OMPI_ALLOW_RUN_AS_ROOT(_CONFIRM) for mpirun.
"""
import argparse
import glob
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field

TOP = os.path.realpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
DOC_GLOBS = ["README.md", "docs/**/*.md"]
SHELL_TAGS = {"sh", "bash", "shell", "console"}


# ---------------------------------------------------------------------------
# What a program is
# ---------------------------------------------------------------------------
def _has_program_operand(args):
    """A launcher's invocation is whole when it names the program it starts."""
    return any("/" in a or a in PROGRAMS for a in args if not a.startswith("-"))


def _has(*opts):
    return lambda args: any(a in opts or any(a.startswith(o + "=") for o in opts) for a in args)


# bare name -> what makes an invocation of it whole (args: the words after it)
PROGRAMS = {
    # launchers: the program they start
    "lincoll-run": _has_program_operand,
    "mpirun": _has_program_operand,
    "srun": _has_program_operand,
    "sbatch": _has_program_operand,
    # build/bin programs users type (docs/perf/README.md, docs/daemon.md)
    "lincoll_perf": _has("-t", "-h"),          # usage: lincoll_perf -t TEST [options]
    "lincoll_sim": _has("-t", "-h"),           # usage: lincoll_sim -t OP ...
    "lincoll_info": lambda args: True,         # every flag is a mode (-c, -t, -a)
    "lincoll-ec": lambda args: any(not a.startswith("-") and ":" not in a for a in args),
    "lincoll-ecd": _has("--node"),
    "lincoll-ec-auth": lambda args: len(args) > 0,
    "ec_daemon": lambda args: True,
    "lincoll_ec_file": _has("--file"),
    # a rank program of the repair scripts: needs 2 ranks, so only whole
    # under a launcher (`lincoll_repair_bench -f csv` names an option)
    "lincoll_repair_bench": lambda args: False,
}
# tools users type: any argument makes a command
TOOLS = {"cmake", "ctest", "cc", "gnuplot", "pkg-config"}
PATH_PREFIXES = ("./", "deploy/", "perf/", "test/", ".ci/", "build/bin/")
ENV_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=\S*$")


def split_words(text):
    try:
        return shlex.split(text, comments=False)
    except ValueError:
        return text.split()


def judge(text, inline=False):
    """(True, '') when text is a whole command; else (False, why).  Inline,
    a path needs an argument: alone it names the file."""
    words = split_words(text)
    while words and ENV_RE.match(words[0]):
        words = words[1:]
    if not words:
        return False, "no program"
    prog, args = words[0], words[1:]
    if prog.startswith(PATH_PREFIXES):
        rel = prog[2:] if prog.startswith("./") else prog
        path = os.path.join(TOP, rel)
        name = os.path.basename(rel.rstrip("/"))
        if prog.endswith("/"):
            return False, "a directory"
        if inline and not args:
            return False, "a path alone: it names the file"
        if rel.startswith("build/bin/"):
            if name in PROGRAMS and not PROGRAMS[name](args):
                return False, "%s without what makes it a command (an option named in prose)" % name
            return True, ""
        if os.path.isdir(path):
            return False, "a directory"
        if not os.path.exists(path):
            # a path the docs present as a program that is not there: keep it,
            # running it fails and names it
            return (True, "") if args or "." in name else (False, "not a file of the repository")
        if not os.access(path, os.X_OK):
            return False, "a file, not a program"
        return True, ""
    if prog in PROGRAMS:
        if not args:
            return False, "a program's name alone"
        if not PROGRAMS[prog](args):
            return False, "%s without what makes it a command (an option named in prose)" % prog
        return True, ""
    if prog in TOOLS:
        return (True, "") if args else (False, "a tool's name alone")
    return False, "not a program"


# ---------------------------------------------------------------------------
# Extraction
# ---------------------------------------------------------------------------
@dataclass
class Cmd:
    file: str
    line: int
    text: str
    origin: str  # block | inline | comment


@dataclass
class Rejected:
    file: str
    line: int
    text: str
    why: str


FENCE_RE = re.compile(r"^(\s*)(`{3,}|~{3,})\s*([^\s`]*)")


def strip_comment(line):
    """(command, comment): the part before an unquoted ' #', and the comment."""
    quote = None
    for i, ch in enumerate(line):
        if quote:
            if ch == quote:
                quote = None
        elif ch in "'\"":
            quote = ch
        elif ch == "#" and (i == 0 or line[i - 1].isspace()):
            return line[:i].rstrip(), line[i + 1:].strip()
    return line.rstrip(), ""


def block_commands(path, lines, tag, out, rejected):
    """lines: [(lineno, text)] of one fenced block (fence lines excluded)."""
    shell = tag in SHELL_TAGS
    nonblank = [t for _, t in lines if t.strip()]
    base = min((len(t) - len(t.lstrip()) for t in nonblank), default=0)
    cur = None  # [lineno, text, open]

    def flush():
        nonlocal cur
        if cur:
            text = " ".join(cur[1].split())
            if shell:
                out.append(Cmd(path, cur[0], text, "block"))
            else:
                ok, why = judge(text)
                if ok:
                    out.append(Cmd(path, cur[0], text, "block"))
                else:
                    rejected.append(Rejected(path, cur[0], text, why))
        cur = None

    for lineno, raw in lines:
        text = raw[base:] if len(raw) >= base else raw.lstrip()
        if tag == "console":
            if not text.startswith("$ "):
                flush()
                continue
        if text.startswith("$ "):  # a prompt: the command after it
            text = text[2:]
        indented = text[:1].isspace()
        body, comment = strip_comment(text)
        body = body.strip()
        if cur and body and (cur[2] or (indented and body[0] in "[-")):
            cur[1] += " " + body.rstrip("\\").strip()
            cur[2] = body.endswith("\\")
            continue
        flush()
        if not body:
            continue
        if not shell and (body.startswith("|") or body.startswith("+-")):
            continue
        cur = [lineno, body.rstrip("\\").strip(), body.endswith("\\")]
        m = re.match(r"^or\s+(.*)$", comment)
        if m:
            ok, why = judge(m.group(1), inline=True)
            alt = " ".join(m.group(1).split())
            if ok:
                flush()
                out.append(Cmd(path, lineno, alt, "comment"))
            else:
                rejected.append(Rejected(path, lineno, alt, why))
    flush()


def inline_commands(path, para, out, rejected):
    """para: [(lineno, text)] of one paragraph; a `span` may wrap onto the
    next line."""
    text = "\n".join(t for _, t in para)
    starts = []  # offset of each line in text
    off = 0
    for _, t in para:
        starts.append(off)
        off += len(t) + 1
    for sm in re.finditer(r"(`+)(.+?)\1", text, re.S):
        span = " ".join(sm.group(2).split())
        if not span:
            continue
        lineno = para[max(i for i, o in enumerate(starts) if o <= sm.start())][0]
        ok, why = judge(span, inline=True)
        if ok:
            out.append(Cmd(path, lineno, span, "inline"))
        elif why != "not a program":
            rejected.append(Rejected(path, lineno, span, why))


def extract(path):
    rel = os.path.relpath(path, TOP)
    with open(path, encoding="utf-8") as f:
        src = f.read().split("\n")
    out, rejected = [], []
    para = []
    i = 0
    while i < len(src):
        m = FENCE_RE.match(src[i])
        if m or not src[i].strip():
            inline_commands(rel, para, out, rejected)
            para = []
        if m:
            fence, tag = m.group(2), m.group(3).lower()
            j = i + 1
            body = []
            while j < len(src) and not src[j].strip().startswith(fence[0] * len(fence)):
                body.append((j + 1, src[j]))
                j += 1
            if tag in SHELL_TAGS or tag == "":
                block_commands(rel, body, tag, out, rejected)
            i = j + 1
            continue
        if src[i].strip():
            para.append((i + 1, src[i]))
        i += 1
    inline_commands(rel, para, out, rejected)
    return out, rejected


def doc_files():
    files = []
    for g in DOC_GLOBS:
        files += glob.glob(os.path.join(TOP, g), recursive=True)
    return sorted(set(files))


def extract_all():
    cmds, rejected = [], []
    for f in doc_files():
        c, r = extract(f)
        cmds += c
        rejected += r
    return cmds, rejected


def key(text):
    """Commands compare with ./ and build/bin/ dropped and blanks collapsed."""
    return " ".join(re.sub(r"(?<![^\s=(])(\./|build/bin/)", "", text).split())


# ---------------------------------------------------------------------------
# How each command is covered
# ---------------------------------------------------------------------------
@dataclass
class Run:
    """A command run with a change.  cmd is bash, run from the repository
    root (cwd "build": from build/, as the docs' ctest commands are), with
    the environment of run_env(); why says what changed and why."""
    cmd: str
    why: str
    cwd: str = "."
    timeout: int = 300
    order: int = 100         # lower runs first (what the others need), else the docs' order
    skip_rc: int = None      # this exit status is the script's documented "not here" (SKIP)


# The emulated-cluster scripts exit 77 where network namespaces are not
# permitted (not root): the check then reports SKIPPED with the reason.
NEEDS_NETNS = 77

# Commands run exactly as the docs show them (from the repository root);
# the value: an exit status that means SKIPPED (see NEEDS_NETNS), or None.
AS_WRITTEN = {
    "deploy/quickstart.sh": None,
    "cmake -S . -B build && cmake --build build -j": None,
    "lincoll-run -n 2 lincoll_perf -t tag_lat -s 8": None,
    "lincoll-run -n 4 lincoll_perf -t allreduce -s 8:64m -d float": None,
    "lincoll-run -n 4 lincoll_perf -t encode -s 4k:16m -p 1": None,
    "lincoll-run -n 4 lincoll_perf -t matmul -s 2048 -A summa -d double": None,
    "lincoll_perf -t gf": None,
    "lincoll_perf -t encode": None,
    "lincoll_perf -t matmul": None,
    "lincoll_info -c": None,
    "lincoll_info -t": None,
    "lincoll_info -a": None,
    "lincoll_sim -h": None,
    "deploy/install-deps.sh anchors": None,
    "LINCOLL_MODEL_ALPHA=0.0003 LINCOLL_MODEL_BW=1.15e7 deploy/emucluster/emucluster.sh -H 9 "
    "-L 2 -r 100mbit -- lincoll_perf -t matmul -A cannon -s 512 -d double -n 3 -w 1 "
    "-y 500": NEEDS_NETNS,
}

def ceph_or_refusal(cmd, args):
    """bash: with Ceph installed, cmd args; without it, cmd must refuse and
    say that Ceph is not installed (CI installs no Ceph)."""
    err = '"$DOCS_TMP/ceph_refusal.err"'
    return ("if command -v ceph-osd >/dev/null; then %s %s; elif %s >%s 2>&1; then false; "
            "else cat %s >&2 && grep -q 'Ceph is not installed' %s; fi" % (cmd, args, cmd, err, err, err))


def ucc_or_refusal(cmd):
    """bash: with the UCC anchor built (anchors-build/ucc_coll), cmd; without
    it, cmd must fail and say how to build it (UCC is built only when
    LINCOLL_UCC_SRC names its source; CI builds no UCC)."""
    err = '"$DOCS_TMP/ucc_refusal.err"'
    return ("if [ -x anchors-build/ucc_coll ]; then %s; elif %s >%s 2>&1; then false; "
            "else cat %s >&2 && grep -q 'ucc_coll is missing: build it with LINCOLL_UCC_SRC=' %s; fi"
            % (cmd, cmd, err, err, err))


UCC_WHY = ("where anchors-build has no ucc_coll (UCC is built only when LINCOLL_UCC_SRC is set), "
           "the script must refuse and say how to build it")


COMPARE_CEPH_SHORT = 'perf/daemon/compare_ceph.sh -n 6 -o "$DOCS_TMP/storage.md"'
COMPARE_CEPH_WHY = ("with Ceph installed: 6 storage processes each, 1 client, 4 KiB, 2 s, 1 "
                    "repetition, then the small-object phase; without Ceph it must refuse and "
                    "say so, which is checked instead; -o: not a dated report in the tree")


# Commands run with a change: placeholders filled, long sweeps made short
# with the programs' own documented options, outputs kept out of the tree.
REWRITES = {
    # -- the README's program: installed, compiled as the README says, run
    "cmake --install build --prefix P": Run(
        'cmake --install build --prefix "$DOCS_TMP/prefix"', order=0,
        why="P: a temporary prefix, which the README's program is then compiled against"),
    "cc app.c $(pkg-config --cflags --libs lincoll)": Run(
        'cd "$DOCS_TMP" && export PKG_CONFIG_PATH="$DOCS_TMP/prefix/lib/pkgconfig" && '
        'cc app.c $(pkg-config --cflags --libs lincoll) -o app -Wl,-rpath,"$DOCS_TMP/prefix/lib"',
        order=1,
        why="app.c is the README's C program; against the prefix installed above "
            "(PKG_CONFIG_PATH); -o app: the README runs it as ./app; -rpath: the prefix is "
            "not on the loader's path"),
    "mpirun -np 8 --map-by core --bind-to core app": Run(
        'mpirun -np "$DOCS_NP" --map-by core --bind-to core "$DOCS_TMP/app"',
        why="./app: the README's program; -np 8 -> one rank per core up to 8 "
            "(--bind-to core needs a core per rank)"),
    "deploy/launch/mpirun.sh -np 8 app": Run(
        'deploy/launch/mpirun.sh -np "$DOCS_NP" "$DOCS_TMP/app"',
        why="./app: the README's program; -np 8 -> one rank per core up to 8 "
            "(the recipe binds by core)"),
    "lincoll-run -n 4 [--timeout s] [--ports p] app": Run(
        'build/bin/lincoll-run -n 4 --timeout 120 --ports 1 "$DOCS_TMP/app"',
        why="the optional [--timeout s] [--ports p] given (120 s, 1 port); ./app: the "
            "README's program"),
    # -- the ctest selections the docs name: listed, not run again
    "ctest -L unit": Run(
        "ctest -N --no-tests=error -L unit", cwd="build",
        why="the suite runs these tests itself (deploy/test.sh); here: from build/, the "
            "label selects tests"),
    "ctest -R coll": Run(
        "ctest -N --no-tests=error -R coll", cwd="build",
        why="the suite runs these tests itself (deploy/test.sh); here: from build/, the "
            "regex selects tests"),
    "ctest -R encode": Run(
        "ctest -N --no-tests=error -R encode", cwd="build",
        why="the suite runs these tests itself (deploy/test.sh); here: from build/, the "
            "regex selects tests"),
    # -- synopses: one instance, every option given a small value
    "deploy/slurm-local.sh start|stop|status [DIR]": Run(
        'd="$DOCS_TMP/slurm"; eval "$(deploy/slurm-local.sh start "$d")" && '
        'deploy/slurm-local.sh status "$d" && sinfo; rc=$?; '
        'deploy/slurm-local.sh stop "$d" && exit $rc',
        timeout=180,
        why="start, status and stop of a private cluster (DIR in the check's temporary "
            "directory, beside any Slurm already up)"),
    "lincoll_perf -t allreduce|reduce_scatter|allgather|bcast|reduce": Run(
        "for t in allreduce reduce_scatter allgather bcast reduce; do "
        "lincoll_perf -t $t || exit; done",
        why="one run per alternative of the synopsis"),
    "lincoll_perf -t gf [-K k -M m] [-s bytes] [-q order|goldilocks] [-n iters] [-r reps] "
    "[-m lincomb|mad] [-A 0] [-S 0] [-G 0] [-c cpu|wall] [-f csv]": Run(
        "lincoll_perf -t gf -K 4 -M 2 -s 64k -q goldilocks -n 3 -r 1 -m mad -A 0 -S 0 -G 0 "
        "-c wall -f csv",
        why="a synopsis: every option given, small"),
    "lincoll_perf -t gemm [-s N|MxNxK,...] [-d d|s|ds] [-T NN,NT,...] [-L r|c] [-n N] "
    "[-a 0|1] [-f csv]": Run(
        "lincoll_perf -t gemm -s 64,32x48x16 -d ds -T NN,NT -L c -n 2 -a 1 -f csv",
        why="a synopsis: every option given, small"),
    "lincoll_perf -t reduce [-s 64K,1M,8M] [-d float] [-o sum] [-n 30] [-f csv]": Run(
        "lincoll_perf -t reduce -s 64K,1M -d float -o sum -n 3 -f csv",
        why="a synopsis: every option given, 3 iterations instead of 30, no 8M"),
    "lincoll_sim -t OP -K ranks [-p ports] [-s bytes] [-A algo|all] [-q field] [-f csv] "
    "[--profile FILE | --alpha S --beta S/B --gamma S/B [--flops F]] "
    "[--sweep K=4:4096 | --sweep s=1k:64m] [--plot out.png]": Run(
        'lincoll_sim -t allreduce -K 8 -p 1 -s 1k -A all -q pred_us -f csv --profile ib200 && '
        'lincoll_sim -t encode -p 2 -s 4k -A all --alpha 2e-6 --beta 1e-10 --gamma 5e-11 '
        '--flops 1e10 --sweep K=4:16 --plot "$DOCS_TMP/sim_K.png" && '
        'lincoll_sim -t allreduce -K 4 -A rhd --profile perf/profiles/eth100.profile '
        '--sweep s=1k:64k --plot "$DOCS_TMP/sim_s.png"',
        why="a synopsis: three instances that give every option, small"),
    "lincoll_sim -t repair -K K -A star|tree|chain|all": Run(
        "for a in star tree chain all; do lincoll_sim -t repair -K 7 -A $a || exit; done",
        why="K = 7; one run per alternative of the synopsis"),
    "perf/encode_sweep.sh -b build -K 2 -s 4k:16m -n 30 -r 5 -c 0-1": Run(
        "perf/encode_sweep.sh -b build -K 2 -s 4k:16k -n 30 -r 1 -c 0-1",
        why="4 to 16 KiB instead of 4 KiB to 16 MiB, 1 repetition instead of 5 (the "
            "recorded sweep took minutes)"),
    "lincoll-run -n K lincoll_perf -t encode …": Run(
        "lincoll-run -n 2 lincoll_perf -t encode -s 4k",
        why="K = 2; … = one 4 KiB size"),
    "perf/compare_builds.sh OLD NEW REPS": Run(
        "perf/compare_builds.sh build build 1 p2p",
        why="OLD and NEW: build/ against itself; REPS 1; the p2p case only (the others are "
            "the commands below)"),
    "perf/p2p_compare.sh [BUILD_DIR] [REPS] [TESTS]": Run(
        "perf/p2p_compare.sh build 1 tag_lat",
        why="a synopsis: REPS 1, one of the three tests"),
    "perf/plot/tables.sh KIND FILE": Run(
        "perf/plot/tables.sh md-gf docs/perf/2026-12-03/gf.csv && "
        "perf/plot/tables.sh headline docs/perf/2026-12-03",
        why="KIND and FILE: two kinds on the committed 2026-12-03 run"),
    "perf/encode_sweep.sh [-b BUILD_DIR] [-K \"2 4 8\"] [-p \"1\"] [-s SIZES] "
    "[-A \"zcopy prepare_shoot best_window direct dft\"] [-n ITERS] [-c CPUS] [-m lincoll|host] "
    "[-r REPS] [-t BUDGET_S] [-o RAW_FILE] [-a ANCHORS_DIR]": Run(
        'perf/encode_sweep.sh -b build -K "2 4" -p 1 -s 4k -A "zcopy direct" -n 20 -c 0,1 '
        '-m host -r 1 -t 60 -o "$DOCS_TMP/encode_sweep.raw" -a anchors-build',
        why="a synopsis: every option given, K = 2 and 4, one 4 KiB size, 20 iterations"),
    "perf/matmul_compare.sh [BUILD_DIR] [ANCHOR_DIR]": Run(
        "SIZES=256 RANKS=\"1 2\" ITERS=2 perf/matmul_compare.sh build anchors-build",
        why="n = 256 on 1 and 2 ranks, 2 iterations (SIZES, RANKS, ITERS: the script's "
            "documented environment; its default takes minutes)"),
    "perf/rhd_sweep.sh [--quick] [-b BUILD_DIR] [-a ANCHORS_DIR] [-o OUT_DIR] [-n RANKS] "
    "[-r REPS] [-m MAXBYTES] [-t \"OPS\"]": Run(
        'perf/rhd_sweep.sh --quick -b build -a anchors-build -o "$DOCS_TMP/rhd" -n 2 -r 1 '
        '-m 16384 -t "allreduce bcast"',
        why="a synopsis: every option given, up to 16 KiB, two operations"),
    "perf/shared_cores.sh -b build -B build-main -a anchors-build -o shared-cores-out -r 3 -n 50":
    Run('perf/shared_cores.sh -b build -a anchors-build -o "$DOCS_TMP/shared_cores" -r 1 '
        '-s 8,4k -n 5 --no-emu', order=50,
        why="one build (no baseline build here), one round, two sizes, 5 iterations, no "
            "emulated cluster (the full run takes 30 minutes); -o: not in the tree"),
    "perf/ucc_compare.sh -b BUILD [-B BASE_BUILD] [-a ANCHOR_DIR] [-o OUT] [-r REPS] "
    "[-n \"2 4\"] [-m MAXBYTES] [-t \"OPS\"] [-d DOC]": Run(
        ucc_or_refusal('perf/ucc_compare.sh -b build -B build -a anchors-build -o '
                       '"$DOCS_TMP/ucc_syn" -r 1 -n 2 -m 8 -t bcast -d "$DOCS_TMP/ucc_syn.md"'),
        why="a synopsis: every option given, BASE_BUILD the same build, 8 bytes, bcast on 2 "
            "ranks; " + UCC_WHY),
    "perf/ucc_compare.sh -b build -B build-main -a anchors-build -o docs/perf/2026-12-06-ucc "
    "-r 3 -d docs/perf/2026-12-06-ucc.md": Run(
        ucc_or_refusal('perf/ucc_compare.sh -b build -a anchors-build -o "$DOCS_TMP/ucc" -r 1 '
                       '-n 2 -m 32 -t allreduce -d "$DOCS_TMP/ucc.md"'),
        why="one build (no baseline here), one repetition, 2 ranks, 8 and 32 bytes, allreduce; "
            "-o/-d: not in the tree; " + UCC_WHY),
    "perf/ucc_compare.sh -b build -a anchors-build -o OUT -r 3 -n 2 -m 4096 -t \"allreduce bcast "
    "reduce\" -d OUT.md": Run(
        ucc_or_refusal('perf/ucc_compare.sh -b build -a anchors-build -o "$DOCS_TMP/uccq" -r 1 -n 2 '
                       '-m 8 -t reduce -d "$DOCS_TMP/uccq.md"'),
        why="one repetition, 8 bytes, reduce; OUT: a temporary directory; " + UCC_WHY),
    "perf/shared_cores.sh -b build -B build-before -a anchors-build -o shared-cores-quiet -r 3 "
    "-n 100 --no-emu": Run(
        'perf/shared_cores.sh -b build -B build -a anchors-build -o "$DOCS_TMP/shared_cores_q" '
        '-r 1 -s 8 -n 5 --no-emu', order=52,
        why="BASE_BUILD the same build (no build of the commit before here), one round, 8 bytes, "
            "5 iterations (the quiet run took 9 minutes); -o: not in the tree"),
    "perf/shared_cores_report.py shared-cores-quiet": Run(
        'perf/shared_cores_report.py "$DOCS_TMP/shared_cores_q"', order=53,
        why="the tables of the shortened before/after run above"),
    "perf/model_fit.sh -b build -p PROFILE -n \"2 4\" -r 3 -o OUT": Run(
        'build/bin/lincoll_info --calibrate -o "$DOCS_TMP/fit.profile" && '
        'perf/model_fit.sh -b build -p "$DOCS_TMP/fit.profile" -n 2 -r 1 -s 8,32k '
        '-o "$DOCS_TMP/model_fit"',
        why="PROFILE written by lincoll_info --calibrate first, as in the page; 2 ranks, one "
            "repetition, 8 B and 32 KiB (the full fit takes a minute per repetition); OUT: a "
            "temporary directory"),
    "perf/shared_cores_report.py shared-cores-out": Run(
        'perf/shared_cores_report.py "$DOCS_TMP/shared_cores"', order=51,
        why="the tables of the shortened run above"),
    "perf/rhd_sweep.sh -b build -r 7": Run(
        'perf/rhd_sweep.sh --quick -b build -r 1 -m 4096 -t reduce_scatter '
        '-o "$DOCS_TMP/rhd_sweep_out"',
        why="the documented --quick, 1 repetition instead of 7, up to 4 KiB, one operation "
            "(the full sweep takes 5-7 minutes); -o: not rhd_sweep_out/ in the tree"),
    "perf/report.sh [-b BUILD_DIR] [-a ANCHOR_DIR] [-o OUT_ROOT] [-d DATE] [-s STEPS] "
    "[--quick] [--render-only]": Run(
        'perf/report.sh -b build -a anchors-build -o "$DOCS_TMP/report" -d docs-check '
        '-s "env reduce" --quick && '
        'perf/report.sh -o "$DOCS_TMP/report" -d docs-check --render-only',
        why="a synopsis: every option given, the two quick steps env and reduce, then a "
            "re-render of that run"),
    'perf/report.sh -s "env encode"': Run(
        'perf/report.sh -b build -a anchors-build -o "$DOCS_TMP/report_enc" -d docs-check '
        '-s "env encode" --quick',
        why="the documented steps with --quick (K = 2, 4 KiB and 1 MiB, one repetition: the "
            "full encode step takes 4-15 minutes); -o: not a dated report in the tree"),
    "perf/report.sh --render-only -d DATE": Run(
        'mkdir -p "$DOCS_TMP/perf" && cp -r docs/perf/2026-12-03 "$DOCS_TMP/perf/" && '
        'perf/report.sh --render-only -d 2026-12-03 -o "$DOCS_TMP/perf"',
        why="DATE: the committed 2026-12-03 run, rendered from a copy (-o) so the committed "
            "report and figures stay as they are"),
    "gnuplot -e \"in='docs/perf/DATE/rhd/allreduce.tsv'; out='/tmp/ar.png'; op='allreduce'; "
    "ranks=2\" perf/plot/coll_time.gp": Run(
        "gnuplot -e \"in='docs/perf/2026-12-03/rhd/allreduce.tsv'; out='$DOCS_TMP/ar.png'; "
        "op='allreduce'; ranks=2\" perf/plot/coll_time.gp",
        why="DATE: the committed 2026-12-03 run; out in the check's temporary directory"),
    "perf/daemon/ecd_put_emu.sh [-b BIN_DIR] [-o OUT_DIR] [-s SIZES] [-r REPS] [--rate 1gbit] "
    "[--burst 256kb] [--stripe BYTES] [--tls] [--quick]": Run(
        'perf/daemon/ecd_put_emu.sh --quick -b build/bin -o "$DOCS_TMP/ecd_put" -s 64k -r 1 '
        '--rate 1gbit --burst 256kb --stripe 65536 --tls',
        skip_rc=NEEDS_NETNS, timeout=300,
        why="a synopsis: every option given, --quick first so that -s and -r after it make "
            "it one 64 KiB object, 1 repetition"),
    "perf/daemon/load_emu.sh [-b BIN_DIR] [-o OUT_DIR] [-n NODES] [-H CLIENT_HOSTS] [-c \"4 16\"] "
    "[-s SIZE] [-d SECONDS] [-r REPS] [--rate 50mbit] [--burst 64kb] [-a \"DAEMON ARGS\"] [-K]": Run(
        'perf/daemon/load_emu.sh -b build/bin -o "$DOCS_TMP/load_emu" -n 6 -H 2 -c "1 3" -s 64k '
        '-d 2 -r 1 --rate 100mbit --burst 64kb -a "--stripe 65536" -K && '
        'grep -q "^| 3 |" "$DOCS_TMP/load_emu/summary.md" && test -s "$DOCS_TMP/load_emu/logs/log0"',
        skip_rc=NEEDS_NETNS, timeout=300,
        why="a synopsis: every option given; 6 daemons, 2 client hosts, 1 and 3 clients, 64 KiB "
            "objects for 2 s; its table and the kept logs are checked"),
    "perf/daemon/load_emu.sh -c \"1 4 16\" -r 3 -d 15 -o docs/perf/2026-12-07-storage-load-emu": Run(
        'perf/daemon/load_emu.sh -n 6 -H 1 -c 2 -s 64k -r 1 -d 2 -o "$DOCS_TMP/load_emu2"',
        skip_rc=NEEDS_NETNS, timeout=300,
        why="6 daemons, 1 client host, 2 clients, 64 KiB objects for 2 s (the recorded run: 12 "
            "daemons, 4 client hosts, 1-16 clients, 1 MiB, 3 repetitions of 15 s); -o: not over "
            "the committed run"),
    "perf/daemon/load_emu.sh -c \"1 4 16\" -r 3 -d 15 -a \"--stripe 65536\" -o "
    "docs/perf/2026-12-07-storage-load-emu/stripe64k": Run(
        'perf/daemon/load_emu.sh -n 6 -H 1 -c 2 -s 64k -r 1 -d 2 -a "--stripe 16384" '
        '-o "$DOCS_TMP/load_emu3"',
        skip_rc=NEEDS_NETNS, timeout=300,
        why="6 daemons, 1 client host, 2 clients, 64 KiB objects (so stripes of 16 KiB) for 2 s; "
            "-o: not over the committed run"),
    "perf/daemon/ecd_put_emu.sh -s \"64m 256m\" -r 5 -o docs/perf/2026-12-03-ecd-put-quiet": Run(
        'perf/daemon/ecd_put_emu.sh -s "1m" -r 1 -o "$DOCS_TMP/ecd_put_quiet"',
        skip_rc=NEEDS_NETNS, timeout=300,
        why="one 1 MiB object instead of 64 and 256 MiB, 1 repetition instead of 5 (the "
            "recorded run took minutes over 1 Gbit/s links); -o: not over the committed run"),
    "perf/daemon/load.sh [-b BIN_DIR] [-o OUT_DIR] [-d SECONDS] [-n NODES] [-c \"1 4 16 64\"] "
    "[-s \"4k 1m 16m\"] [-p \"load kill small bench\"]": Run(
        'perf/daemon/load.sh -b build/bin -o "$DOCS_TMP/load" -d 2 -n 6 -c 2 -s "4k 64k" '
        '-p "load small bench"',
        timeout=300,
        why="a synopsis: 2 s per run, 6 daemons, 2 clients, 4 and 64 KiB, the phases without "
            "kills (the kill phase: ctest daemon_load_short); -o: not a dated report in the tree"),
    "perf/daemon/epoch_compare.sh -n 12 -d 6 -r 2 -c \"1 4 16\" -s \"4k 1m\" -k 16": Run(
        'perf/daemon/epoch_compare.sh -n 6 -d 1 -r 1 -c 1 -s 4k -k 0 -o "$DOCS_TMP/epoch"',
        timeout=400,
        why="6 daemons, 1 client, 4 KiB, 1 s per run, 1 repetition, no kill phase (kills "
            "under load: ctest daemon_load_short and daemon_epoch; the recorded run: 12 "
            "daemons, about 12 minutes); -o: not over the committed report"),
    "perf/daemon/epoch_compare.sh -R 374a5e0 -n 12 -d 6 -r 3 -c \"1 4 16\" -s \"4k 1m\" -k 0 "
    "-a \"\" -L \"before kept\" -o docs/perf/2026-12-07-storage-kept": Run(
        'perf/daemon/epoch_compare.sh -R 374a5e0 -n 6 -d 1 -r 1 -c 1 -s 4k -k 0 -a "" '
        '-L "before kept" -o "$DOCS_TMP/kept"',
        timeout=400,
        why="6 daemons, 1 client, 4 KiB, 1 s per run, 1 repetition (the recorded run: 12 "
            "daemons, 3 repetitions, about 13 minutes); -o: not over the committed report"),
    "TMPDIR=/dev/shm perf/daemon/load.sh -b build/bin -p small -d 20 -n 12 -o /tmp/kept-shm": Run(
        'TMPDIR=/dev/shm perf/daemon/load.sh -b build/bin -p small -d 2 -n 6 -o "$DOCS_TMP/kept-shm"',
        timeout=300,
        why="2 s and 6 daemons instead of 20 s and 12; -o: a scratch directory of the run"),
    "TMPDIR=/dev/shm perf/daemon/load.sh -b build/bin -p small -d 20 -n 12 --keep -o /tmp/kept-shm-keep": Run(
        'TMPDIR=/dev/shm perf/daemon/load.sh -b build/bin -p small -d 2 -n 6 --keep -o "$DOCS_TMP/kept-keep"',
        timeout=300,
        why="2 s and 6 daemons instead of 20 s and 12; -o: a scratch directory of the run"),
    "perf/daemon/epoch_compare.sh -R 374a5e0 -n 12 -d 10 -r 1 -c \"1 16\" -s \"4k 1m\" -k 16 -a \"\" "
    "-L \"before kept\" -o /tmp/kept-kill": Run(
        'perf/daemon/epoch_compare.sh -R 374a5e0 -n 6 -d 1 -r 1 -c 1 -s 4k -k 2 -a "" '
        '-L "before kept" -o "$DOCS_TMP/kept-kill"',
        timeout=500,
        why="6 daemons, 1 client, 4 KiB, 1 s per run, a kill phase of 2 clients for 4 s "
            "(the recorded run: 12 daemons, 16 clients, 40 s); -o: a scratch directory"),
    "perf/daemon/epoch_compare.sh -R b38e54c -n 12 -d 6 -r 3 -c \"1 4 16\" -s \"4k 1m\" -k 0 "
    "-a \"\" -L \"before inline\" -o docs/perf/2026-12-07-storage-inline": Run(
        'perf/daemon/epoch_compare.sh -R b38e54c -n 6 -d 1 -r 1 -c 1 -s 4k -k 0 -a "" '
        '-L "before inline" -o "$DOCS_TMP/inline"',
        timeout=400,
        why="6 daemons, 1 client, 4 KiB, 1 s per run, 1 repetition (the recorded run: 12 "
            "daemons, 3 repetitions, about 12 minutes); -o: not over the committed report"),
    "TMPDIR=/dev/shm perf/daemon/epoch_compare.sh -R b38e54c -n 12 -d 6 -r 3 -c \"1 16\" -s 4k "
    "-k 0 -a \"\" -L \"before inline\" -o /tmp/inline-shm": Run(
        'TMPDIR=/dev/shm perf/daemon/epoch_compare.sh -R b38e54c -n 6 -d 1 -r 1 -c 1 -s 4k -k 0 '
        '-a "" -L "before inline" -o "$DOCS_TMP/inline-shm"',
        timeout=400,
        why="6 daemons, 1 client, 1 s per run, 1 repetition (the recorded run: 12 daemons, 3 "
            "repetitions); -o: a scratch directory of the run"),
    "TMPDIR=/dev/shm perf/daemon/secure_compare.sh -s \"1m 16m\" -r 5 -n 41 -o /tmp/security-shm": Run(
        'TMPDIR=/dev/shm perf/daemon/secure_compare.sh -o "$DOCS_TMP/security-shm" -s 64k -r 1 -n 2',
        timeout=300,
        why="one 64 KiB object, 1 repetition, 2 small puts instead of 1 and 16 MiB, 5 "
            "repetitions, 41 small puts; -o: a scratch directory of the run"),
    "perf/daemon/ecd_put_emu.sh --tls -s \"1m 16m 64m\" -r 5 -o docs/perf/2026-12-07-storage-tls/emu-tls": Run(
        'perf/daemon/ecd_put_emu.sh --tls -s "1m" -r 1 -o "$DOCS_TMP/emu_tls2"',
        skip_rc=NEEDS_NETNS, timeout=300,
        why="one 1 MiB object, 1 repetition instead of 1, 16 and 64 MiB, 5 repetitions; -o: "
            "not over the committed run"),
    "perf/daemon/ecd_put_emu.sh --tls -s \"1m 16m 64m\" -r 5 -o docs/perf/2026-12-07-storage-inline/emu-tls": Run(
        'perf/daemon/ecd_put_emu.sh --tls -s "1m" -r 1 -o "$DOCS_TMP/emu_tls"',
        skip_rc=NEEDS_NETNS, timeout=300,
        why="one 1 MiB object, 1 repetition instead of 1, 16 and 64 MiB, 5 repetitions; -o: "
            "not over the committed run"),
    "perf/daemon/secure_compare.sh -s \"1m 16m\" -r 5 -n 41": Run(
        'perf/daemon/secure_compare.sh -o "$DOCS_TMP/security4" -s 64k -r 1 -n 2',
        timeout=300,
        why="one 64 KiB object, 1 repetition, 2 small puts instead of 1 and 16 MiB, 5 "
            "repetitions, 41 small puts; -o: not a dated report in the tree"),
    "perf/daemon/secure_compare.sh -b BIN -s \"1m 16m\" -r 7 -n 41": Run(
        'perf/daemon/secure_compare.sh -b build/bin -o "$DOCS_TMP/security3" -s 64k -r 1 -n 2',
        timeout=300,
        why="BIN: this build's bin directory (the recorded runs also used 374a5e0's); one "
            "64 KiB object, 1 repetition, 2 small puts instead of 1 and 16 MiB, 7 "
            "repetitions, 41 small puts; -o: not a dated report in the tree"),
    "perf/daemon/small_compare.sh -R REV [-b BUILD_DIR] [-o OUT_DIR] [-n NODES] [-N PUTS] "
    "[-W WARMUP] [-B BLOCK] [-S BYTES] [-L \"BASE NEW\"] [-K]": Run(
        'perf/daemon/small_compare.sh -R 2b87d15 -b build -o "$DOCS_TMP/small" -n 6 -N 4 -W 2 '
        '-B 2 -S 4096 -L "base new" -K',
        timeout=300,
        why="a synopsis: every option given; REV: the daemon before small puts went with "
            "their OP (2b87d15); 6 daemons, 2 warm-up and 4 timed puts per cluster in "
            "blocks of 2; -o: a scratch directory"),
    "perf/daemon/repair_compare.sh -R REV [-b BUILD_DIR] [-o OUT_DIR] [-n NODES] [-r REPS] "
    "[-j \"1 8\"] [-S BYTES] [-L \"BASE NEW\"]": Run(
        'perf/daemon/repair_compare.sh -R 46f6338 -b build -o "$DOCS_TMP/repair" -n 6 -r 1 '
        '-j "1 2" -S 4096 -L "base new" && grep -q "^base/new" "$DOCS_TMP/repair/summary.tsv"',
        timeout=300,
        why="a synopsis: every option given; REV: the daemon whose repairs formed a context "
            "of their own (46f6338); 1 round, 1 and 2 chunks of 4 KiB; -o: a scratch "
            "directory, whose summary is checked"),
    "perf/daemon/repair_compare.sh -R 46f6338 -n 6 -r 9 -j \"1 8 64\" -o "
    "docs/perf/2026-12-07-storage-repair/n6": Run(
        'perf/daemon/repair_compare.sh -R 46f6338 -n 6 -r 1 -j 2 -S 4096 -o "$DOCS_TMP/repair6"',
        timeout=300,
        why="1 round of 2 chunks of 4 KiB instead of 9 rounds of 1, 8 and 64 chunks of 64 KiB; "
            "-o: not over the committed run"),
    "perf/daemon/repair_compare.sh -R 46f6338 -n 12 -r 9 -j \"1 8 64\" -o "
    "docs/perf/2026-12-07-storage-repair/n12": Run(
        'perf/daemon/repair_compare.sh -R 46f6338 -n 12 -r 1 -j 2 -S 4096 -o "$DOCS_TMP/repair12"',
        timeout=300,
        why="1 round of 2 chunks of 4 KiB instead of 9 rounds of 1, 8 and 64 chunks of 64 KiB; "
            "-o: not over the committed run"),
    "perf/daemon/build_base.sh REV BUILD_DIR OUT_BIN_DIR": Run(
        'perf/daemon/build_base.sh 2b87d15 build "$DOCS_TMP/base-bin" && '
        'test -x "$DOCS_TMP/base-bin/lincoll-ecd" && test -x "$DOCS_TMP/base-bin/lincoll-ec"',
        timeout=300,
        why="REV: 2b87d15; OUT_BIN_DIR: a scratch directory, whose two programs are checked"),
    "perf/daemon/secure_compare.sh [-b BIN_DIR] [-o OUT_DIR] [-s \"1m 16m\"] [-r REPS] [-n SMALL] "
    "[-B BLOCK] [-c]": Run(
        'perf/daemon/secure_compare.sh -b build/bin -o "$DOCS_TMP/security-syn" -s 64k -r 1 -n 4 -B 2 -c',
        timeout=300,
        why="a synopsis: one 64 KiB object, 1 repetition, 4 small puts in blocks of 2, the "
            "kept connections routed by the cluster file (-c); -o: a scratch directory"),
    "TMPDIR=/dev/shm perf/daemon/small_compare.sh -R 2b87d15 -N 600 -o "
    "docs/perf/2026-12-07-storage-pre/small-shm-1": Run(
        'TMPDIR=/dev/shm perf/daemon/small_compare.sh -R 2b87d15 -n 6 -N 4 -W 2 -o "$DOCS_TMP/small-shm"',
        timeout=300,
        why="6 daemons, 2 warm-up and 4 timed puts per cluster instead of 12, 100 and 600; "
            "-o: not over the committed run"),
    "perf/daemon/small_compare.sh -R 2b87d15 -N 600 -o docs/perf/2026-12-07-storage-pre/small-disk-1": Run(
        'perf/daemon/small_compare.sh -R 2b87d15 -n 6 -N 4 -W 2 -o "$DOCS_TMP/small-disk"',
        timeout=300,
        why="6 daemons, 2 warm-up and 4 timed puts per cluster instead of 12, 100 and 600; "
            "-o: not over the committed run"),
    "perf/daemon/epoch_compare.sh -R 2b87d15 -n 12 -d 6 -r 3 -c \"1 16\" -s \"4k 1m\" -k 0 -a \"\" "
    "-L \"before now\" -o docs/perf/2026-12-07-storage-pre/load": Run(
        'perf/daemon/epoch_compare.sh -R 2b87d15 -n 6 -d 1 -r 1 -c 1 -s 4k -k 0 -a "" '
        '-L "before now" -o "$DOCS_TMP/pre-load"',
        timeout=400,
        why="6 daemons, 1 client, 4 KiB, 1 s per run, 1 repetition (the recorded run: 12 "
            "daemons, 3 repetitions, about 8 minutes); -o: not over the committed report"),
    "TMPDIR=/dev/shm perf/daemon/secure_compare.sh -s \"1m 16m\" -r 5 -n 200 -B 20 -o "
    "docs/perf/2026-12-07-storage-pre/security-shm": Run(
        'TMPDIR=/dev/shm perf/daemon/secure_compare.sh -s 64k -r 1 -n 4 -B 2 -o "$DOCS_TMP/pre-sec-shm"',
        timeout=300,
        why="one 64 KiB object, 1 repetition, 4 small puts in blocks of 2 instead of 1 and "
            "16 MiB, 5 repetitions, 200 in blocks of 20; -o: not over the committed run"),
    "perf/daemon/secure_compare.sh -s \"1m 16m\" -r 5 -n 200 -B 20 -o "
    "docs/perf/2026-12-07-storage-pre/security-disk": Run(
        'perf/daemon/secure_compare.sh -s 64k -r 1 -n 4 -B 2 -o "$DOCS_TMP/pre-sec-disk"',
        timeout=300,
        why="one 64 KiB object, 1 repetition, 4 small puts in blocks of 2 instead of 1 and "
            "16 MiB, 5 repetitions, 200 in blocks of 20; -o: not over the committed run"),
    "TMPDIR=/dev/shm perf/daemon/secure_compare.sh -b BIN_DIR -s \"1m 16m\" -r 21 -n 100 -B 20 "
    "-o OUT_DIR": Run(
        'TMPDIR=/dev/shm perf/daemon/secure_compare.sh -b build/bin -s 64k -r 1 -n 4 -B 2 '
        '-o "$DOCS_TMP/tls-shm"',
        timeout=300,
        why="BIN_DIR: this build's (the recorded runs also used e5d1cb4's); one 64 KiB object, "
            "1 repetition, 4 small puts in blocks of 2 instead of 1 and 16 MiB, 21 repetitions, "
            "100 in blocks of 20; -o: a scratch directory"),
    "TMPDIR=/dev/shm perf/daemon/secure_compare.sh -s \"1m 16m\" -r 21 -n 100 -B 20 -c -o "
    "docs/perf/2026-12-07-storage-tls/shm-new-route": Run(
        'TMPDIR=/dev/shm perf/daemon/secure_compare.sh -s 64k -r 1 -n 4 -B 2 -c '
        '-o "$DOCS_TMP/tls-route"',
        timeout=300,
        why="one 64 KiB object, 1 repetition, 4 small puts in blocks of 2 instead of 1 and "
            "16 MiB, 21 repetitions, 100 in blocks of 20; -o: not over the committed run"),
    "perf/daemon/secure_compare.sh": Run(
        'perf/daemon/secure_compare.sh -o "$DOCS_TMP/security2" -s 64k -r 1 -n 2',
        timeout=300,
        why="the recorded run took minutes (1 and 16 MiB, 7 repetitions, 31 small puts); "
            "-o: not over the committed run"),
    "perf/anchors/ceph_bench.sh [-o OUT_DIR] [--osds 12|6] [-d SECONDS] [-c \"1 4 16 64\"] "
    "[-s \"4k 1m 16m\"] [--install]": Run(
        ceph_or_refusal('perf/anchors/ceph_bench.sh -o "$DOCS_TMP/ceph"', "--osds 6 -d 2 -c 1 -s 4k"),
        timeout=600,
        why="with Ceph installed: 6 OSDs, 1 client, 4 KiB, 2 s; without it (CI: Ceph is not "
            "among the README's dependencies, and --install would fetch it) it must refuse "
            "and say so, which is checked instead"),
    "perf/daemon/compare_ceph.sh [-n 12|6] [-d SECONDS] [-r REPS] [-c \"1 4 16 64\"] "
    "[-s \"4k 1m 16m\"] [-p \"load kill small\"] [-o REPORT.md] [-k] [--install]": Run(
        ceph_or_refusal(COMPARE_CEPH_SHORT, "-d 2 -r 1 -c 1 -s 4k -p small -k"),
        timeout=600, why=COMPARE_CEPH_WHY + "; -k: the clients kept and routed"),
    "perf/daemon/compare_ceph.sh -n 12 -d 5 -r 2 -c \"1 4 16 64\" -s \"4k 1m 16m\" "
    "-p \"load kill small\" -L 8 -k": Run(
        ceph_or_refusal(COMPARE_CEPH_SHORT, "-d 2 -r 1 -c 1 -s 4k -p small -L 2 -k"),
        timeout=600, why=COMPARE_CEPH_WHY + " (the recorded run took 13 minutes, 12 OSDs)"),
    "perf/daemon/compare_ceph.sh -k": Run(
        ceph_or_refusal(COMPARE_CEPH_SHORT, "-d 2 -r 1 -c 1 -s 4k -p small -k"),
        timeout=600, why=COMPARE_CEPH_WHY + "; -k as written"),
    "perf/daemon/compare_ceph.sh -n 6 -d 3 -r 2 -c \"1 4 16 64\" -s \"4k 1m 16m\" "
    "-p \"load kill small\" -L 8": Run(
        ceph_or_refusal(COMPARE_CEPH_SHORT, "-d 2 -r 1 -c 1 -s 4k -p small -L 2"),
        timeout=600, why=COMPARE_CEPH_WHY + " (the recorded run took 24 minutes)"),
    "perf/daemon/compare_ceph.sh -n 12 -d 3 -r 2 -c \"1 4 16 64\" -s \"4k 1m 16m\" "
    "-p \"load kill small\" -L 8": Run(
        ceph_or_refusal(COMPARE_CEPH_SHORT, "-d 2 -r 1 -c 1 -s 4k -p small -L 2"),
        timeout=600, why=COMPARE_CEPH_WHY + " (the recorded run took minutes, 12 OSDs)"),
    "perf/daemon/verify_overhead.sh -s \"1m 16m\" -r 15 -o docs/perf/2026-12-06-daemon-verify": Run(
        'perf/daemon/verify_overhead.sh -b build/bin -s "1m" -r 1 -o "$DOCS_TMP/verify"',
        timeout=300,
        why="one 1 MiB object, 1 repetition instead of 1 and 16 MiB, 15 (the recorded run took "
            "5 minutes); -o: not over the committed run"),
    "sha256_bench 15": Run("build/bin/sha256_bench 1", why="1 repetition instead of 15"),
    "perf/repair/repair_emu.sh [-b BUILD_DIR] [-o OUT_ROOT] [-d DATE] [-k \"4 6 10\"] [-s 64m] "
    "[-n 5] [-r 1gbit] [--burst 256kb] [--nap US] [--spin \"6\"] [--slice BYTES] "
    "[--render-only]": Run(
        'perf/repair/repair_emu.sh -b build -o "$DOCS_TMP/repair" -d docs-check -k 4 -s 1m -n 1 '
        '-r 1gbit --burst 256kb --nap 50 --spin 4 --slice 256k && '
        'perf/repair/repair_emu.sh -o "$DOCS_TMP/repair" -d docs-check --render-only',
        skip_rc=NEEDS_NETNS, timeout=300,
        why="a synopsis: every option given, k = 4, 1 MiB chunks, 1 repetition; then a "
            "re-render of that run"),
    "OLD_SRC=/tmp/lc_base/src perf/callgrind/compare.sh /tmp/lc_base/build build-dev": Run(
        "OLD_SRC=. perf/callgrind/compare.sh build build",
        why="the recorded run's two builds (a base commit's and build-dev/) do not exist "
            "here: build/ against itself, OLD_SRC this tree"),
    "perf/compare_builds.sh /tmp/lc_base/build build-dev 3": Run(
        "perf/compare_builds.sh build build 1 encode",
        why="the recorded run's two builds do not exist here: build/ against itself; "
            "1 repetition instead of 3 and the encode case only (all four take minutes)"),
    "perf/compare_builds.sh /tmp/lc_base/build build-dev 9 \"p2p coll encode\"": Run(
        'perf/compare_builds.sh build build 1 "p2p encode"',
        why="the recorded run's two builds do not exist here: build/ against itself; "
            "1 repetition instead of 9, without the coll case (its sizes up to 32 MiB take "
            "20 s and more)"),
    # -- as written but for one thing
    "lincoll_perf -t shift": Run(
        "lincoll-run -n 2 lincoll_perf -t shift",
        why="the text measures it on 2 hosts: shift needs 2 ranks (its usage says so)"),
    "lincoll_perf -t gemm": Run(
        "lincoll_perf -t gemm -s 256,64x2048x64 -n 3",
        why="two of the default sweep's shapes, 3 iterations (the 16-shape default takes "
            "25 s)"),
    "lincoll_sim -t encode -K 4096 -p 2 -A all --profile ib200": Run(
        "lincoll_sim -t encode -K 4096 -p 2 -A all --profile ib200 --time-limit 2",
        why="--time-limit 2 (default 20 s): rows estimated longer are reported infeasible "
            "instead of run"),
    "lincoll_sim -t allreduce -K 1000 -s 1m -A rhd -q pred_us --profile eth100": Run(
        "lincoll_sim -t allreduce -K 1000 -s 64k -A rhd -q pred_us --profile eth100",
        why="64 KiB instead of 1 MiB on the 1000 virtual ranks (14 s -> 1 s)"),
    "lincoll_sim -t encode -p 2 -s 4k --sweep K=4:1024 --profile perf/profiles/ib200.profile "
    "--plot docs/perf/sim/encode_K_ib200.png -f csv": Run(
        "lincoll_sim -t encode -p 2 -s 4k --sweep K=4:64 --profile perf/profiles/ib200.profile "
        '--plot "$DOCS_TMP/encode_K_ib200.png" -f csv',
        why="K up to 64 instead of 1024 (40 s); the plot into the temporary directory, not "
            "over the committed figure"),
    "lincoll_sim -t allreduce -K 16 --sweep s=1k:64m --profile perf/profiles/eth100.profile "
    "--plot docs/perf/sim/allreduce_s_eth100.png -f csv": Run(
        "lincoll_sim -t allreduce -K 16 --sweep s=1k:1m --profile perf/profiles/eth100.profile "
        '--plot "$DOCS_TMP/allreduce_s_eth100.png" -f csv',
        why="sizes up to 1 MiB instead of 64 MiB (2 minutes); the plot into the temporary "
            "directory, not over the committed figure"),
    "deploy/build.sh && deploy/gpu-carry.sh": Run(
        "deploy/build.sh && if [ -x build/bin/gpu_coll ]; then deploy/gpu-carry.sh; "
        "else deploy/gpu-carry.sh 2>&1 | tee /dev/stderr | grep -q 'build with CUDA first'; fi",
        why="gpu-carry.sh packs a CUDA build's GPU programs: in a build without CUDA (no "
            "build/bin/gpu_coll) it must refuse and say so, which is checked instead; the "
            "GPU half, test/gpu/run.sh, is mapped below"),
}

# Commands run by a ctest test (ctest:NAME, checked with ctest -N) or by a
# CI job (ci:COMMAND, checked in .ci/run).
MAPPED = {
    "mpirun -np 4 -x LD_PRELOAD=$PREFIX/lib/liblincoll_mpi.so app": (
        "ctest:mpi_preload_mpirun_n3", "test/mpi/run.sh: mpirun -x LD_PRELOAD=<build>/lib/"
        "liblincoll_mpi.so mpi_check at 3 ranks, statistics checked"),
    "srun --mpi=pmix -n 4 --export=ALL,LD_PRELOAD=$PREFIX/lib/liblincoll_mpi.so app": (
        "ctest:mpi_preload_srun_n4", "test/mpi/run.sh: this srun line with mpi_check --light at 4 ranks "
        "under the suite's private Slurm"),
    "mpirun.mpich -n 4 -genv LD_PRELOAD $PREFIX/lib/mpich/liblincoll_mpi.so app": (
        "ctest:mpi_preload_mpich_n3", "test/mpi/run.sh: this line with mpi_check built "
        "against MPICH, at 3 ranks"),
    'perf/mpi/preload_compare.sh -r 3 -n "2 4" -m 32m': (
        "ctest:mpi_preload_compare_quick", "the same script, 1 run, 2 ranks, 200 iterations, allreduce and "
        "bcast up to 512 B, into a temporary directory: the report and its table are checked"),
    'perf/mpi/preload_compare.sh -b build -a build/anchors -o OUT -d speed -r 1 -n "2 4" -m 32m': (
        "ctest:mpi_preload_compare_quick", "the same script, 1 run, 2 ranks, 200 iterations, allreduce and "
        "bcast up to 512 B, into a temporary directory: the report and its table are checked"),
    "deploy/test.sh": ("ci:deploy/test.sh",
                       "the whole suite, which includes this check: CI's first job"),
    "deploy/sanitize.sh [ctest args]": ("ci:deploy/sanitize.sh", "CI's sanitizer job"),
    "deploy/sanitize.sh -R shrink": ("ci:deploy/sanitize.sh",
                                     "CI's sanitizer job runs every test, the shrink ones too"),
    "deploy/valgrind.sh [regex]": ("ci:deploy/valgrind.sh", "CI's valgrind job"),
    "deploy/fuzz.sh [RUNS] [target…]": ("ci:deploy/fuzz.sh", "CI's fuzzer job"),
    "LINCOLL_FUZZ_SEED=1 deploy/fuzz.sh 20000": ("ci:LINCOLL_FUZZ_SEED=1 deploy/fuzz.sh 20000",
                                                 "CI's fuzzer job, exactly this"),
    "srun --mpi=pmix -n 8 app": ("ctest:bootstrap_srun_pmix",
                                 "srun --mpi=pmix under the suite's private Slurm"),
    "sbatch deploy/launch/lincoll.sbatch app": ("ctest:launch_recipe_slurm",
                                                "sbatch --wait of this recipe with engine_ucx"),
    "lincoll-run -n 6 ec_daemon --parity 2 --chunk 1M --stripes 4": (
        "ctest:example_ec_daemon_n6", "exactly this command"),
    "lincoll_perf -t tag_lat/tag_bw/put_bw": ("ctest:perf_p2p_pairs_n2",
                                              "the three tests under lincoll-run -n 2"),
    "cmake --build build --target encode_model_table": (
        "ctest:test_encode_model", "runs the target's generator and checks that the committed "
        "header equals its output, so the target rewrites it unchanged"),
    "test/reliability/run_trials.sh BIN_DIR TRIALS [PARALLEL] [SEED] [OPS]": (
        "ctest:reliability_fail_trials", "run_trials.sh BIN_DIR 12 2 1000"),
    "LINCOLL_TIMEOUT=3 test/reliability/run_trials.sh build/bin 100 2": (
        "ctest:reliability_fail_trials", "the same script, 12 trials instead of 100"),
    "perf/anchors/build.sh [DIR]": ("ctest:anchors_build", "builds the anchors into build/anchors"),
    "perf/anchors/selftest.sh DIR NAME…": ("ctest:anchors_isal",
                                           "anchors_build and anchors_* run it, a NAME each"),
    "perf/calibrate_profile.sh [BUILD_DIR] [OUT] [NAME]": (
        "ctest:lincoll_sim_calibrate", "runs it and reads its profile back"),
    "lincoll_info --calibrate": (
        "ctest:lincoll_sim_calibrate", "perf/calibrate_profile.sh runs it (with -o) and the "
        "test reads the profile back"),
    "test/gpu/run.sh": ("ctest:gpu_run_without_gpu",
                        "runs it; without a GPU it must refuse with a reason"),
    "lincoll-ecd --node 3 --dir /srv/ecd --cluster /etc/ecd/cluster --keyring /etc/ecd/keyring "
    "[--listen 0.0.0.0:7000] [--port-file F] [--timeout 10] [--max-object BYTES] [--stripe BYTES]": (
        "ctest:daemon_auth", "6 daemons on 127.0.0.1 with --node, --dir, --cluster, --keyring, "
        "--listen, --port-file, --timeout (daemon_story_local the same --insecure; --stripe: "
        "ecd_put_emu.sh above; --max-object: its default only)"),
    "lincoll-ecd --node 3 --dir /srv/ecd --cluster /etc/ecd/cluster --keyring /etc/ecd/keyring "
    "--max-conns 512 --max-inflight 1073741824 --client-rate 1048576 --direct-max 65536 "
    "--scrub-interval 30 --scrub-rate 16777216": (
        "ctest:daemon_cluster", "8 daemons with every one of these flags but --keyring "
        "(--insecure: its Python clients speak plaintext); daemon_auth runs --keyring"),
    "lincoll-ec -s 10.0.0.1:7000 --keyring app.keyring put FILE [NAME]": (
        "ctest:daemon_auth", "puts with an exported write key"),
    "lincoll-ec -s 10.0.0.1:7000 --keyring app.keyring get NAME OUT": (
        "ctest:daemon_auth", "gets checked against the files"),
    "lincoll-ec -s 10.0.0.1:7000 --keyring app.keyring stat": (
        "ctest:daemon_auth", "stat with the read and the write key"),
    "lincoll-ec -s 10.0.0.1:7000 --keyring ops.keyring repair NODE": (
        "ctest:daemon_auth", "repair with an exported admin key"),
    "lincoll-ec repair 1": (
        "ctest:daemon_story_local", "lincoll-ec repair 3 and repair 4 of a local cluster, every "
        "object read back after (perf/daemon/repair_compare.sh, which runs this one, is run "
        "above)"),
    "lincoll-ec -c /etc/ecd/cluster --keyring app.keyring put FILE [NAME]": (
        "ctest:daemon_auth", "a put and a get with -c and an exported write key (daemon_cluster: "
        "to the owner, past a silent owner, in a batch)"),
    "lincoll-ec-auth create --keyring /etc/ecd/keyring --id cluster": (
        "ctest:daemon_auth", "creates the cluster key of its keyring"),
    "lincoll-ec-auth create --keyring /etc/ecd/keyring --id app --caps write": (
        "ctest:daemon_auth", "creates the write key app"),
    "lincoll-ec-auth create --keyring /etc/ecd/keyring --id ops --caps admin": (
        "ctest:daemon_auth", "creates the admin key ops"),
    "lincoll-ec-auth export --keyring /etc/ecd/keyring --id app --out app.keyring": (
        "ctest:daemon_auth", "exports app, viewer and ops"),
    "lincoll-ec-auth export --keyring /etc/ecd/keyring --id ops --out ops.keyring": (
        "ctest:daemon_auth", "exports app, viewer and ops"),
    "lincoll-ec-auth list --keyring /etc/ecd/keyring": (
        "ctest:daemon_auth", "lists the keyring and checks viewer's line"),
    "lincoll-ec-auth rotate --keyring /etc/ecd/keyring --id app": (
        "ctest:daemon_auth", "rotates app, then the cluster key"),
    "lincoll-ec-auth remove --keyring /etc/ecd/keyring --id app --gen 1": (
        "ctest:daemon_auth", "removes app/1, then cluster/1"),
}


# ---------------------------------------------------------------------------
# The check
# ---------------------------------------------------------------------------
@dataclass
class Entry:
    key: str
    places: list = field(default_factory=list)  # [Cmd]

    @property
    def where(self):
        return ", ".join("%s:%d" % (c.file, c.line) for c in self.places)


def entries(cmds):
    by = {}
    for c in cmds:
        by.setdefault(key(c.text), Entry(key(c.text))).places.append(c)
    return list(by.values())


def ctest_names(build):
    out = subprocess.run(["ctest", "-N"], cwd=build, capture_output=True, text=True, check=False)
    if out.returncode != 0:
        sys.exit("doc_commands: ctest -N in %s failed: %s" % (build, out.stderr.strip()))
    return set(re.findall(r"^\s*Test\s+#\d+: (\S+)$", out.stdout, re.M))


def ci_has(words):
    with open(os.path.join(TOP, ".ci", "run"), encoding="utf-8") as f:
        text = f.read()
    return re.search(r"(^|\s)%s(\s|$)" % re.escape(words), text, re.M) is not None


def check_coverage(ents, build):
    """Problems: a command in no table or in two, a table entry that matches
    no command (stale), a mapped test or CI job that does not exist."""
    problems = []
    keys = {e.key for e in ents}
    for e in ents:
        n = (e.key in AS_WRITTEN) + (e.key in REWRITES) + (e.key in MAPPED)
        if n == 0:
            problems.append("%s: %s: neither run nor mapped: add it to AS_WRITTEN (run as "
                            "shown), REWRITES (run with a change, saying why) or MAPPED (the "
                            "ctest test or CI job that runs it) in %s"
                            % (e.where, e.key, os.path.relpath(__file__, TOP)))
        elif n > 1:
            problems.append("%s: %s: in more than one of AS_WRITTEN, REWRITES, MAPPED"
                            % (e.where, e.key))
    for k in sorted(AS_WRITTEN):
        if key(k) != k:
            problems.append("AS_WRITTEN entry %r is not in normal form (%r)" % (k, key(k)))
        elif k not in keys:
            problems.append("AS_WRITTEN entry matches no command of the docs (stale): %r" % k)
    for k in REWRITES:
        if key(k) != k:
            problems.append("REWRITES key %r is not in normal form (%r)" % (k, key(k)))
        elif k not in keys:
            problems.append("REWRITES entry matches no command of the docs (stale): %r" % k)
    for k in MAPPED:
        if key(k) != k:
            problems.append("MAPPED key %r is not in normal form (%r)" % (k, key(k)))
        elif k not in keys:
            problems.append("MAPPED entry matches no command of the docs (stale): %r" % k)
    names = ctest_names(build) if build else None
    for e in ents:
        if e.key not in MAPPED:
            continue
        target, _ = MAPPED[e.key]
        kind, _, what = target.partition(":")
        if kind == "ctest":
            if names is not None and what not in names:
                problems.append("%s: %s: mapped to ctest test %s, which ctest -N in %s does not "
                                "list" % (e.where, e.key, what, build))
        elif kind == "ci":
            if not ci_has(what):
                problems.append("%s: %s: mapped to the CI job %r, which .ci/run does not run"
                                % (e.where, e.key, what))
        else:
            problems.append("%s: %s: mapping %r is neither ctest:NAME nor ci:COMMAND"
                            % (e.where, e.key, target))
    return problems


def plan(e):
    """(how, Run or target): how the command is covered."""
    if e.key in MAPPED:
        return "mapped", MAPPED[e.key]
    if e.key in REWRITES:
        return "rewritten", REWRITES[e.key]
    return "as written", Run(e.places[0].text, why="", skip_rc=AS_WRITTEN[e.key])


def readme_program():
    """The README's C program (the block with main), which the docs run as ./app."""
    with open(os.path.join(TOP, "README.md"), encoding="utf-8") as f:
        text = f.read()
    for m in re.finditer(r"^```c\n(.*?)^```", text, re.M | re.S):
        if re.search(r"\bint main\(", m.group(1)):
            return m.group(1)
    sys.exit("doc_commands: README.md has no ```c block with main(): the ./app commands "
             "need it")


def run_env(tmp, build):
    env = dict(os.environ)
    # the programs of build/bin on PATH, as after an install: the docs name
    # them bare (lincoll_info -t) as well as build/bin/lincoll_info
    env["PATH"] = os.path.join(build, "bin") + os.pathsep + env.get("PATH", "")
    env["DOCS_TMP"] = tmp
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:
        cores = os.cpu_count() or 1
    env["DOCS_NP"] = str(max(1, min(8, cores)))
    if os.geteuid() == 0:
        # Open MPI refuses root without these; the docs' users are not root
        env["OMPI_ALLOW_RUN_AS_ROOT"] = "1"
        env["OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"] = "1"
    env.pop("MAKEFLAGS", None)
    return env


def run_one(r, cwd, env, log):
    """Runs r.cmd in its own process group; on timeout the whole group gets
    SIGTERM (the emulated-cluster scripts tear their namespaces down on it),
    then SIGKILL.  Returns the exit status, or a line saying it timed out."""
    p = subprocess.Popen(["bash", "-c", r.cmd], cwd=cwd, env=env, stdout=log,
                         stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                         start_new_session=True)
    try:
        return p.wait(timeout=r.timeout)
    except subprocess.TimeoutExpired:
        for sig, grace in ((signal.SIGTERM, 15), (signal.SIGKILL, 5)):
            try:
                os.killpg(p.pid, sig)
            except ProcessLookupError:
                break
            try:
                p.wait(timeout=grace)
                break
            except subprocess.TimeoutExpired:
                continue
        return "timeout (%d s)" % r.timeout


def run_all(ents, build, log_dir, only):
    tmp = tempfile.mkdtemp(prefix="lincoll-docs.")
    os.chmod(tmp, 0o755)  # munged (deploy/slurm-local.sh) wants its path searchable by all
    with open(os.path.join(tmp, "app.c"), "w", encoding="utf-8") as f:
        f.write(readme_program())
    env = run_env(tmp, build)
    os.makedirs(log_dir, exist_ok=True)
    todo = []
    for e in ents:
        how, what = plan(e)
        if how == "mapped":
            print("MAPPED   %-60s -> %s  (%s)" % (e.key[:60], what[0], e.where))
            continue
        if only and not re.search(only, e.key) and what.order >= 100:
            continue  # by hand: what the others need (order < 100) runs anyway
        todo.append((e, how, what))
    todo.sort(key=lambda t: t[2].order)  # stable: the docs' order otherwise
    failed, skipped, t_all = [], [], time.time()
    for n, (e, how, r) in enumerate(todo, 1):
        log = os.path.join(log_dir, "%03d.log" % n)
        cwd = os.path.join(TOP, r.cwd) if r.cwd != "build" else build
        with open(log, "w", encoding="utf-8") as f:
            f.write("# %s\n# docs: %s\n# %s: %s\n" % (e.key, e.where, how, r.cmd))
            if r.why:
                f.write("# why: %s\n" % r.why)
            f.write("# cwd: %s\n\n" % cwd)
            f.flush()
            t0 = time.time()
            rc = run_one(r, cwd, env, f)
            dt = time.time() - t0
            f.write("\n# exit status %s after %.1f s\n" % (rc, dt))
        state = "ok" if rc == 0 else ("SKIPPED" if r.skip_rc is not None and rc == r.skip_rc
                                      else "FAILED")
        shown = e.key if how == "as written" else "%s  [%s]" % (r.cmd, how)
        print("%-8s %6.1f s  %s  (%s; log %s)" % (state, dt, shown, e.where, log), flush=True)
        if state == "FAILED":
            failed.append((e, r, rc, log))
        elif state == "SKIPPED":
            skipped.append((e, r, log))
    shutil.rmtree(tmp, ignore_errors=True)
    print("\ndoc_commands: %d commands run in %.0f s (%d failed, %d skipped), %d mapped"
          % (len(todo), time.time() - t_all, len(failed), len(skipped),
             sum(1 for e in ents if e.key in MAPPED)))
    for e, r, rc, log in failed:
        print("\nFAILED: %s: %s\n  ran: %s\n  exit status %s; the end of %s:"
              % (e.where, e.key, r.cmd, rc, log))
        with open(log, encoding="utf-8", errors="replace") as f:
            for line in f.read().splitlines()[-25:]:
                print("    " + line)
    for e, r, log in skipped:
        with open(log, encoding="utf-8", errors="replace") as f:
            last = [l for l in f.read().splitlines() if l.strip() and not l.startswith("#")][-1:]
        print("SKIPPED: %s: %s: exit %d, the script's \"not permitted here\": %s"
              % (e.where, e.key, r.skip_rc, last[0] if last else ""))
    if failed:
        return 1
    return 77 if skipped else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--list", action="store_true", help="print FILE:LINE: COMMAND for each")
    ap.add_argument("--explain", action="store_true",
                    help="with --list: also what was judged not a command, and why")
    ap.add_argument("--check", action="store_true",
                    help="every command run or mapped, mapped tests exist (runs nothing)")
    ap.add_argument("--run", action="store_true", help="--check, then run the commands")
    ap.add_argument("-b", "--build", help="the build directory (ctest -N, build/bin)")
    ap.add_argument("--log-dir", help="one log per command run (default BUILD/docs-logs)")
    ap.add_argument("--only", help="run only the commands matching this regex (by hand)")
    a = ap.parse_args()
    cmds, rejected = extract_all()
    if a.list or not (a.check or a.run):
        for c in cmds:
            print("%s:%d: %s" % (c.file, c.line, c.text))
        if a.explain:
            for r in rejected:
                print("%s:%d: not a command (%s): %s" % (r.file, r.line, r.why, r.text))
        return 0
    if not a.build:
        ap.error("--check and --run need -b BUILD")
    build = os.path.realpath(a.build)
    ents = entries(cmds)
    problems = check_coverage(ents, build)
    n_map = sum(1 for e in ents if e.key in MAPPED)
    n_rw = sum(1 for e in ents if e.key in REWRITES)
    n_as = sum(1 for e in ents if e.key in AS_WRITTEN)
    print("doc_commands: %d commands in %d places: %d run as written, %d run rewritten, "
          "%d mapped" % (len(ents), len(cmds), n_as, n_rw, n_map))
    if problems:
        for p in problems:
            print("doc_commands: " + p)
        return 1
    if a.check:
        for e in ents:
            how, what = plan(e)
            print("%-10s %s  (%s)%s" % (how, e.key, e.where,
                                        "  -> " + what[0] if how == "mapped" else ""))
        return 0
    return run_all(ents, build, a.log_dir or os.path.join(build, "docs-logs"), a.only)


if __name__ == "__main__":
    sys.exit(main())
