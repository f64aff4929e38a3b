#!/usr/bin/env python3
"""One config table is the only reader of LINCOLL_* variables.

Scans the C sources of the library and its programs (core/, kernels/,
transports/, perf/, deploy/, daemon/, include/, mpi/) and fails for, outside
core/base/config.c:

1. a call of getenv() or secure_getenv() whose argument names a LINCOLL_*
   variable.  The argument counts as naming one when it holds a
   "LINCOLL_..." string literal, or is (or indexes, or selects from) an
   identifier or macro whose definition in any scanned file holds one.
2. a variable's name retyped: a string literal (or a piece of a
   concatenated one) that is the name of a variable of the table (the rows
   LC_F(NAME, ...) of core/base/config.c, and the transports' rows it nests,
   LC_TL_CONFIG_ROW(SUFFIX, ...) of transports/<name>/config.c: the variable
   LINCOLL_<SUFFIX>), alone, followed by '=', or
   followed by '=' and one printf conversion ("LINCOLL_TIMEOUT",
   "LINCOLL_PORTS=", "LINCOLL_RANK=%d"): the forms code uses to look a
   variable up, set it or print it.  Such code takes the name from the
   table (lc_config_name, or lincoll_config_var with a lincoll_config_id_t).
   A literal with more text around the name (usage lines, error messages:
   "set LINCOLL_PORTS=p in every rank", "LINCOLL_RANK=%ld: %s") is prose
   documenting the variable and passes.

Comments are ignored and a call may span lines, so reformatting does not
hide one.

test/ is not scanned: tests read the variables they set up (or that
lincoll-run sets) to check what the library did with them.

  check_getenv.py SOURCE_ROOT      scan the tree (exit 1 on a violation)
  check_getenv.py --self-test      the scanner finds what it must on samples
"""
import os
import re
import sys

ALLOWED = {"core/base/config.c"}

# Files that still read LINCOLL_* variables themselves and are being moved
# onto the table (lc_config_reread) by their owners.  Each must still hold
# such a call: an entry that no longer does fails too, so the list only
# shrinks.
PENDING = {}

# Directories whose files may still retype variable names (check 2): being
# moved (issue 27: the encode and matmul families are being restructured,
# and their owners take the names from the table as they move them).  An
# entry under which no file retypes a name any more fails, so the list only
# shrinks.
BEING_MOVED = {}

SCAN_DIRS = ["core", "kernels", "transports", "perf", "deploy", "daemon", "include", "mpi"]
TABLE = "core/base/config.c"
ROW = re.compile(r"\bLC_F\(\s*([A-Z][A-Z0-9_]*)\s*,")
# a transport's rows, nested in the table: transports/<name>/config.c
TL_TABLE = re.compile(r"^transports/[^/]+/config\.c$")
TL_ROW = re.compile(r"\bLC_TL_CONFIG_ROW\(\s*([A-Z][A-Z0-9_]*)\s*,")
# the whole literal: NAME, NAME= or NAME=<one printf conversion>
RETYPED = re.compile(r'"(LINCOLL_[A-Z0-9_]+)(?:=(?:%[-+ #0-9.*]*[a-zA-Z]{1,3})?)?"$')

COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)
STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"')
CALL = re.compile(r"\b(?:secure_)?getenv\s*\(")
IDENT = re.compile(r"[A-Za-z_]\w*")


def strip_comments(text):
    # keep string literals intact while dropping comments
    out, pos = [], 0
    for m in re.finditer(r'"(?:[^"\\\n]|\\.)*"|//[^\n]*|/\*.*?\*/', text, re.S):
        out.append(text[pos:m.start()])
        tok = m.group(0)
        out.append(tok if tok.startswith('"') else " " * 0 + "\n" * tok.count("\n"))
        pos = m.end()
    out.append(text[pos:])
    return "".join(out)


def names_lincoll(expr):
    return any(s.startswith('"LINCOLL_') for s in STRING.findall(expr))


def definitions(text):
    """Identifiers whose initializer or macro body holds a LINCOLL_ literal:
    (all of them, those with external linkage)."""
    found, public = set(), set()
    for m in re.finditer(r"^\s*#\s*define\s+(\w+)([^\n]*(?:\\\n[^\n]*)*)", text, re.M):
        if names_lincoll(m.group(2)):
            found.add(m.group(1))
            public.add(m.group(1))  # a macro in a header reaches its includers
    # NAME [dims] = initializer ;   (initializer up to the terminating ';')
    for m in re.finditer(r"\b(\w+)\s*(?:\[[^\]]*\]\s*)*=\s*", text):
        end = text.find(";", m.end())
        if end >= 0 and names_lincoll(text[m.end():end]):
            found.add(m.group(1))
            line = text[text.rfind("\n", 0, m.start()) + 1:m.start()]
            if not line.startswith((" ", "\t")) and "static" not in line.split():
                public.add(m.group(1))
    return found, public


def call_args(text, start):
    """The argument text of the call whose '(' ends at start."""
    depth, i = 1, start
    while i < len(text) and depth:
        c = text[i]
        if c == '"':
            m = STRING.match(text, i)
            i = m.end() if m else i + 1
            continue
        depth += c == "("
        depth -= c == ")"
        i += 1
    return text[start:i - 1]


def violations(files, local, public):
    """(path, line, argument) of every getenv on a LINCOLL_ name: a literal,
    a name this file defines with one, or a name with external linkage that
    another file defines with one."""
    out = []
    for path, text in files.items():
        for m in CALL.finditer(text):
            arg = call_args(text, m.end())
            base = IDENT.match(arg.strip())
            base = base.group(0) if base else None
            if names_lincoll(arg) or (base and (base in local[path] or base in public)):
                out.append((path, text.count("\n", 0, m.start()) + 1, " ".join(arg.split())))
    return out


def table_names(files):
    """The variables of the table: LINCOLL_ + the first argument of each row,
    core's and the transports'."""
    names = {"LINCOLL_" + m.group(1) for m in ROW.finditer(files.get(TABLE, ""))}
    for path, text in files.items():
        if TL_TABLE.match(path.replace(os.sep, "/")):
            names |= {"LINCOLL_" + m.group(1) for m in TL_ROW.finditer(text)}
    return names


def retyped(files, names):
    """(path, line, literal) of every string literal outside the table that
    is a variable's name, alone or followed by '='."""
    out = []
    for path, text in files.items():
        if path == TABLE:
            continue
        for lit in STRING.finditer(text):
            m = RETYPED.fullmatch(lit.group(0))
            if m and m.group(1) in names:
                out.append((path, text.count("\n", 0, lit.start()) + 1, lit.group(0)))
    return out


def load_tree(root):
    files = {}
    for d in SCAN_DIRS:
        for dirpath, _, names in os.walk(os.path.join(root, d)):
            for n in names:
                if n.endswith((".c", ".h")):
                    p = os.path.join(dirpath, n)
                    with open(p, encoding="utf-8", errors="replace") as f:
                        files[os.path.relpath(p, root)] = strip_comments(f.read())
    return files


def scan(files):
    local, public = {}, set()
    for path, text in files.items():
        local[path], pub = definitions(text)
        public |= pub
    return violations(files, local, public)


def main(root):
    files = load_tree(root)
    if len(files) < 50 or "core/base/config.c" not in files:
        print("check_getenv: %s does not look like the lincoll source tree" % root)
        return 1
    found = scan(files)
    bad = [v for v in found if v[0] not in ALLOWED and v[0] not in PENDING]
    rc = 0
    for path, line, arg in bad:
        print("%s:%d: getenv(%s): LINCOLL_* variables are read by core/base/config.c only "
              "(lc_config_load, lc_config_reread, lincoll_config_var)" % (path, line, arg))
        rc = 1
    still = {v[0] for v in found}
    for path, why in sorted(PENDING.items()):
        if path not in still:
            print("%s: listed as pending (%s) but reads no LINCOLL_* variable any more: "
                  "remove it from PENDING in %s" % (path, why, os.path.basename(__file__)))
            rc = 1
        else:
            print("pending: %s (%s)" % (path, why))
    names = table_names(files)
    if len(names) < 20:
        print("check_getenv: found only %d variables in %s (rows LC_F(NAME, ...))" %
              (len(names), TABLE))
        return 1
    tl_rows = sum(len(TL_ROW.findall(t)) for p, t in files.items()
                  if TL_TABLE.match(p.replace(os.sep, "/")))
    if tl_rows == 0:
        print("check_getenv: no transport rows found in transports/*/config.c "
              "(LC_TL_CONFIG_ROW(SUFFIX, ...))")
        return 1
    moved = lambda path: next((d for d in BEING_MOVED if path.startswith(d)), None)
    names_found = retyped(files, names)
    bad_names = [v for v in names_found if moved(v[0]) is None]
    for path, line, lit in bad_names:
        print("%s:%d: %s: a variable's name retyped; take it from the table "
              "(lc_config_name(LINCOLL_CONFIG_...), or lincoll_config_var(LINCOLL_CONFIG_..., &v) "
              "outside the library)" % (path, line, lit))
        rc = 1
    for d, why in sorted(BEING_MOVED.items()):
        left = sorted({v[0] for v in names_found if v[0].startswith(d)})
        if not left:
            print("%s: listed in BEING_MOVED (%s) but no file there retypes a variable's name "
                  "any more: remove it from BEING_MOVED in %s" % (d, why, os.path.basename(__file__)))
            rc = 1
        else:
            print("being moved: %s (%s): %s" % (d, why, " ".join(left)))
    print("check_getenv: %d files scanned, %d reads outside the table, %d names retyped%s" %
          (len(files), len(bad), len(bad_names), "" if rc else ": ok"))
    return rc


SAMPLES = {
    # (source, number of violations the scanner must report)
    'const char *v = getenv("LINCOLL_PORTS");': 1,
    'const char *v = getenv(\n      "LINCOLL_PORTS"\n   );': 1,
    'const char *v = secure_getenv ( "LINCOLL_X" );': 1,
    'static const char *const vars[] = {"A", "LINCOLL_RANK"};\n'
    'void f(int i) { getenv(vars[i]); }': 1,
    '#define LC_VAR "LINCOLL_TIMEOUT"\nvoid f(void) { getenv(LC_VAR); }': 1,
    'void f(void) { getenv("UCX_TLS"); getenv("PMIX_NAMESPACE"); }': 0,
    '/* getenv("LINCOLL_IN_A_COMMENT") */ void f(void) {}': 0,
    '// getenv("LINCOLL_IN_A_COMMENT")\nvoid f(void) {}': 0,
    'void f(void) { lc_error("LINCOLL_PORTS=%s: bad", getenv("UCX_TLS")); }': 0,
    'void f(const char *n) { getenv(n); }': 0,
    'static const char *const vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"};\n'
    'void f(int i) { getenv(vars[i]); }': 0,
}


RETYPED_SAMPLES = {
    # (source, number of retyped names the scanner must report; the table
    # holds LINCOLL_TIMEOUT and LINCOLL_PORTS)
    'lc_config_reread("LINCOLL_TIMEOUT", &c);': 1,
    'snprintf(b, n, "LINCOLL_PORTS=%d", p);': 1,
    'lc_error("no signal within " "LINCOLL_TIMEOUT");': 1,
    'static const char *v[] = {"LINCOLL_PORTS=", "LINCOLL_TIMEOUT"};': 2,
    'puts("  --ports p   set LINCOLL_PORTS=p in every rank");': 0,
    'lc_error("LINCOLL_PORTS=%s: expected an integer", v);': 0,
    'lc_error("%s=%s: bad (" "LINCOLL_PORTS" ")", a, b);': 1,
    'putenv("LINCOLL_PORTS=%-4ld");': 1,
    'puts("LINCOLL_PORTS and LINCOLL_TIMEOUT are read at init");': 0,
    'setenv("LINCOLL_NOT_IN_TABLE", "1", 1);': 0,
    'setenv("LINCOLL_TIMEOUTS", "1", 1);': 0,
    '/* "LINCOLL_TIMEOUT" */ void f(void) {}': 0,
    'setenv(lc_config_name(LINCOLL_CONFIG_TIMEOUT), "1", 1);': 0,
}


def self_test():
    rc = 0
    for src, want in SAMPLES.items():
        got = len(scan({"sample.c": strip_comments(src)}))
        if got != want:
            print("self-test: %d reads found, %d expected, in:\n%s" % (got, want, src))
            rc = 1
    # a table of names defined in one file, read in another
    two = {"a.c": 'const char *const lc_vars[] = {"LINCOLL_A", "LINCOLL_B"};',
           "b.c": "extern const char *const lc_vars[];\nvoid f(int i) { getenv(lc_vars[i]); }"}
    if len(scan(two)) != 1:
        print("self-test: a name table defined in another file was missed")
        rc = 1
    # retyped names
    table = 'static const lc_config_field_t t[] = {LC_F(TIMEOUT, LC_CFG_TIME, "60"), LC_F(PORTS, 1)};'
    for src, want in RETYPED_SAMPLES.items():
        files = {TABLE: strip_comments(table), "sample.c": strip_comments(src)}
        got = len(retyped(files, table_names(files)))
        if got != want:
            print("self-test: %d retyped names found, %d expected, in:\n%s" % (got, want, src))
            rc = 1
    # a transport's row, nested in the table: its name counts too
    tl = {TABLE: strip_comments(table),
          "transports/x/config.c": "LC_TL_CONFIG_ROW(X_MODE, LC_TL_CONFIG_ENUM, \"a\", \"a|b\")",
          "sample.c": 'setenv("LINCOLL_X_MODE", "b", 1); puts("LINCOLL_TIMEOUT=");'}
    if len(retyped(tl, table_names(tl))) != 2:
        print("self-test: a transport row's name (LC_TL_CONFIG_ROW) retyped was missed")
        rc = 1
    n = len(SAMPLES) + 2 + len(RETYPED_SAMPLES)
    print("check_getenv self-test: %d samples%s" % (n, "" if rc else ": ok"))
    return rc


if __name__ == "__main__":
    if len(sys.argv) == 2 and sys.argv[1] == "--self-test":
        sys.exit(self_test())
    if len(sys.argv) != 2:
        print(__doc__)
        sys.exit(2)
    sys.exit(main(sys.argv[1]))
