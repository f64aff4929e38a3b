#!/usr/bin/env python3
"""The names docs/architecture.md uses exist in the tree.

docs/architecture.md describes the layers by the files, functions, types,
variables, transport operations and tests that make them.  Its rules on
includes are checked by layers_test.sh; this check covers the rest of what a
test can check: every name it writes in `code` is real.

  check_arch_doc.py [SOURCE_ROOT] [--doc FILE]   exit 1 naming each stale name
  check_arch_doc.py --self-test                  the checker finds what it must

What is checked, for every `code` span outside fenced blocks:
  - a path (core/..., transports/..., test/..., ucx/ep.c, ...): the file or
    directory exists (globs and {a,b} lists expanded; a name alone, such as
    alive.c, exists somewhere under the source directories);
  - an lc_/LC_/lincoll_ identifier (trailing (), [] and arguments dropped;
    one with <...> or * is a prefix): it occurs in the sources;
  - a LINCOLL_ variable or constant: a configuration row
    (LINCOLL_CONFIG_<X> in include/lincoll/info.h) or an identifier of the
    public headers;
  - a snake_case word (send_nb, mapped_put_is_store, global_rounds, ...): it
    occurs in the sources;
  - a ctest name (layers_test, matrix_ipcns, ...) written as such: a test of
    that name is declared in a CMakeLists.txt.
Names of other projects (ucp_*, uct_*, nccl*, kernel.*) and prose in code
style (formulas, shell commands) are left alone.
"""
import fnmatch
import glob
import os
import re
import sys

SOURCE_DIRS = ["core", "transports", "kernels", "include", "test", "perf", "deploy", "daemon",
               "tools", "mpi"]
FOREIGN = re.compile(r"^(ucp_|uct_|ucs_|nccl|kernel\.|/proc|/dev/|transport/\{)")  # gloo's too


def expand_braces(p):
    m = re.search(r"\{([^{}]*)\}", p)
    if not m:
        return [p]
    out = []
    for alt in m.group(1).split(","):
        out += expand_braces(p[:m.start()] + alt + p[m.end():])
    return out


class Tree:
    def __init__(self, root):
        self.root = root
        self.text = []
        self.names = set()
        self.cmake = ""
        for d in SOURCE_DIRS:
            for dirpath, _, files in os.walk(os.path.join(root, d)):
                for f in files:
                    path = os.path.join(dirpath, f)
                    if os.path.abspath(path) == os.path.abspath(__file__):
                        continue  # its own samples are not the tree
                    self.names.add(f)
                    if f == "CMakeLists.txt":
                        self.cmake += open(path, errors="replace").read()
                    if f.endswith((".c", ".h", ".py", ".sh", ".txt", ".cu", ".cmake")):
                        self.text.append(open(path, errors="replace").read())
        self.cmake += open(os.path.join(root, "CMakeLists.txt"), errors="replace").read() \
            if os.path.exists(os.path.join(root, "CMakeLists.txt")) else ""
        self.blob = "\n".join(self.text)
        info = os.path.join(root, "include", "lincoll", "info.h")
        self.info = open(info).read() if os.path.exists(info) else ""
        pub = ""
        for h in glob.glob(os.path.join(root, "include", "lincoll", "*.h")):
            pub += open(h).read()
        self.public = pub

    def occurs(self, word, prefix=False):
        pat = r"\b" + re.escape(word) + (r"" if prefix else r"\b")
        return re.search(pat, self.blob) is not None

    def path_exists(self, p):
        for q in expand_braces(p):
            q = q.rstrip("/")
            if glob.glob(os.path.join(self.root, q)):
                return True
            # ucx/ep.c, sim/world.c: a transport's file
            if glob.glob(os.path.join(self.root, "transports", q)):
                return True
            if "/" not in q and (q in self.names or
                                 any(fnmatch.fnmatch(n, q) for n in self.names)):
                return True
        return False

    def ctest(self, name):
        return re.search(r"(add_test\s*\(\s*(NAME\s+)?|lc_add_\w*\s*\(\s*)" + re.escape(name) +
                         r"\b", self.cmake) is not None or \
            re.search(r"\b" + re.escape(name) + r"\b", self.cmake) is not None


def spans(doc_text):
    text = re.sub(r"```.*?```", "", doc_text, flags=re.S)
    out = []
    for lineno, line in enumerate(text.split("\n"), 1):
        for m in re.finditer(r"`([^`]+)`", line):
            out.append((lineno, m.group(1).strip()))
    return out


IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def check_span(tree, s):
    """None when fine or not checkable, else why it is stale."""
    if FOREIGN.match(s) or " " in s.strip() and not s.startswith("test/"):
        return None
    if s.startswith("test/") and " " in s:  # a command: its script
        s = s.split()[0]
    # paths
    if "/" in s or re.search(r"\.(c|h|sh|py|md|txt)$", s):
        if s.startswith(("/", "http", ".")) or "(" in s:
            return None
        return None if tree.path_exists(s) else "no such file or directory"
    core = re.sub(r"\(.*\)$", "", s)  # calls: drop the arguments
    core = re.sub(r"\[\]$", "", core)
    core = core.split("=")[0]
    core = core.replace("struct ", "")
    if "->" in core:
        core = core.split("->")[-1]
    core = core.split("::")[0]  # type::member: the type
    prefix = False
    for c in "<*.":
        if c in core:
            core = core[:core.index(c)]
            prefix = True
    if not core or not IDENT.match(core):
        return None
    if core.startswith("LINCOLL_"):
        if prefix:
            return None if re.search(r"\b" + core, tree.public + tree.blob) else "no such name"
        var = core[len("LINCOLL_"):]
        if re.search(r"\bLINCOLL_CONFIG_" + re.escape(var) + r"\b", tree.info):
            return None
        if re.search(r"\b" + re.escape(core) + r"\b", tree.public):
            return None
        return "neither a configuration row (LINCOLL_CONFIG_%s) nor a public name" % var
    if core.startswith(("lc_", "LC_", "lincoll_")) or "_" in core:
        if tree.occurs(core, prefix):
            return None
        if tree.ctest(core):
            return None
        return "occurs nowhere in the sources"
    return None


def run(root, doc):
    tree = Tree(root)
    bad = 0
    n = 0
    for lineno, s in spans(open(doc).read()):
        why = check_span(tree, s)
        n += 1
        if why:
            print("check_arch_doc: %s:%d: `%s`: %s" % (os.path.relpath(doc, root), lineno, s, why))
            bad += 1
    if n < 50:
        print("check_arch_doc: only %d names in %s: is it the right file?" % (n, doc))
        return 1
    if bad:
        return 1
    print("check_arch_doc: %d names in %s, every one exists" % (n, os.path.relpath(doc, root)))
    return 0


def self_test(root):
    tree = Tree(root)
    must_fail = ["core/plan/no_such_file.c", "lc_no_such_function", "LINCOLL_NO_SUCH_VARIABLE",
                 "no_such_member_name", "lc_no_such_prefix_<x>", "ucx/no_such.c"]
    must_pass = ["core/plan/plan.h", "lc_plan_finalize", "LINCOLL_TIMEOUT", "LINCOLL_ERR_INVALID",
                 "recv_chain_nb", "lc_config_name(LINCOLL_CONFIG_...)", "ucx/ep.c",
                 "/proc/self/ns/{ipc,pid,mnt}", "ucp_put_nbx", "layers_test",
                 "test/matrix/matrix.py --ipcns", "lc_transports[]", "ctx->tl_ops"]
    bad = 0
    for s in must_fail:
        if check_span(tree, s) is None:
            print("check_arch_doc self-test: `%s` passed, must fail" % s)
            bad = 1
    for s in must_pass:
        why = check_span(tree, s)
        if why is not None:
            print("check_arch_doc self-test: `%s` failed (%s), must pass" % (s, why))
            bad = 1
    if not bad:
        print("check_arch_doc self-test: %d stale names found, %d real ones passed" %
              (len(must_fail), len(must_pass)))
    return bad


def main(argv):
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    doc = None
    args = list(argv[1:])
    if "--self-test" in args:
        args.remove("--self-test")
        if args:
            root = os.path.abspath(args[0])
        return self_test(root)
    if "--doc" in args:
        i = args.index("--doc")
        doc = args[i + 1]
        del args[i:i + 2]
    if args and args[0] in ("-h", "--help"):
        print(__doc__)
        return 0
    if args:
        root = os.path.abspath(args[0])
    return run(root, doc or os.path.join(root, "docs", "architecture.md"))


if __name__ == "__main__":
    sys.exit(main(sys.argv))
