#!/usr/bin/env bash
# The unit tests (ctest label "unit") under valgrind memcheck: 0 errors and
# 0 definite leaks each.  Uses the build in build-rel/ (configured and built
# here if missing; RelWithDebInfo, no sanitizers).
#   deploy/valgrind.sh [ctest -R regex]
# Suppressions for UCX/hwloc/verbs internals: deploy/valgrind.supp.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
bdir=${LINCOLL_VALGRIND_BUILD:-$top/build-rel}
command -v valgrind >/dev/null || { echo "valgrind is not installed (apt-get install -y valgrind)"; exit 1; }
cmake -S "$top" -B "$bdir" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$bdir" -j"$(nproc)"
cd "$bdir"
regex=${1:-.}
ctest -L unit -R "$regex" --show-only=json-v1 >"$bdir/valgrind-tests.json"
python3 - "$bdir/valgrind-tests.json" "$top/deploy/valgrind.supp" <<'PY'
import json, os, subprocess, sys, time
tests = json.load(open(sys.argv[1]))["tests"]
supp = sys.argv[2]
vg = ["valgrind", "--tool=memcheck", "--error-exitcode=99", "--leak-check=full",
      "--show-leak-kinds=definite", "--errors-for-leak-kinds=definite",
      "--suppressions=" + supp, "--num-callers=30", "--quiet"]
bad = 0
for t in tests:
    env = dict(os.environ)
    for p in t.get("properties", []):
        if p["name"] == "ENVIRONMENT":
            for kv in p["value"]:
                k, _, v = kv.partition("=")
                env[k] = v
    # UCX's own memory hooks confuse memcheck; valgrind slows timeouts down
    env.setdefault("UCX_MEM_MALLOC_HOOKS", "no")
    env.setdefault("UCX_MEM_EVENTS", "no")
    # valgrind does not decode AVX-512/GFNI: keep the kernels on AVX2
    env.setdefault("LINCOLL_KERNEL_ISA", "avx2")
    t0 = time.time()
    try:
        r = subprocess.run(vg + t["command"], env=env, capture_output=True, text=True, timeout=1800)
        rc, out = r.returncode, r.stdout + r.stderr
    except subprocess.TimeoutExpired:
        rc, out = -1, "timeout"
    dt = time.time() - t0
    ok = rc == 0
    bad += not ok
    print("%-40s %s %6.1f s" % (t["name"], "OK  " if ok else "FAIL(rc=%d)" % rc, dt), flush=True)
    if not ok:
        lines = [l for l in out.splitlines() if l.startswith("==") or "FAIL" in l or "ERROR" in l]
        print("\n".join("    | " + l for l in lines[:60]))
print("valgrind: %d unit tests, %d failed" % (len(tests), bad))
sys.exit(1 if bad else 0)
PY
