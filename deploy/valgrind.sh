#!/usr/bin/env bash
# Every unit test (ctest label "unit") under valgrind memcheck: 0 errors and
# 0 definite leaks each.  Uses the build in build-rel/ (configured and built
# here if missing; RelWithDebInfo, no sanitizers).
#   deploy/valgrind.sh [ctest -R regex]      LINCOLL_VALGRIND_JOBS=n (default: cores)
# Kernels are pinned to AVX2 (LINCOLL_KERNEL_ISA=avx2: valgrind cannot decode
# AVX-512/GFNI); the big sim suites run at LC_TEST_SCALE=reduced (every code
# path, fewer rank counts).  Suppressions for UCX/hwloc/verbs/PMIx internals:
# deploy/valgrind.supp (never lincoll code).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
bdir=${LINCOLL_VALGRIND_BUILD:-$top/build-rel}
command -v valgrind >/dev/null || "$top/deploy/install-deps.sh" build test
cmake -S "$top" -B "$bdir" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$bdir" -j"$(nproc)"
cd "$bdir"
regex=${1:-.}
ctest -L unit -R "$regex" --show-only=json-v1 >"$bdir/valgrind-tests.json"
python3 - "$bdir/valgrind-tests.json" "$top/deploy/valgrind.supp" "${LINCOLL_VALGRIND_JOBS:-$(nproc)}" "$bdir" <<'PY'
import concurrent.futures, json, os, subprocess, sys, time
tests = json.load(open(sys.argv[1]))["tests"]
supp, jobs, bdir = sys.argv[2], int(sys.argv[3]), os.path.realpath(sys.argv[4])
# memcheck is for lincoll's programs: unit tests run by an interpreter (the
# Python models under test/) are named here and left to the main suite
own = [t for t in tests if os.path.realpath(t["command"][0]).startswith(bdir + os.sep)]
for t in tests:
    if t not in own:
        print("%-40s not a program of this build (%s): run by ctest, not under valgrind"
              % (t["name"], os.path.basename(t["command"][0])), flush=True)
tests = own
vg = ["valgrind", "--tool=memcheck", "--error-exitcode=99", "--leak-check=full",
      "--show-leak-kinds=definite", "--errors-for-leak-kinds=definite",
      "--suppressions=" + supp, "--num-callers=30", "-v"]

def run(t):
    env = dict(os.environ)
    cwd = None
    own_env = {}
    for p in t.get("properties", []):
        if p["name"] == "WORKING_DIRECTORY":
            cwd = p["value"]
        if p["name"] == "ENVIRONMENT":
            for kv in p["value"]:
                k, _, v = kv.partition("=")
                own_env[k] = v
    env.update(own_env)
    # UCX's own memory hooks confuse memcheck
    env.setdefault("UCX_MEM_MALLOC_HOOKS", "no")
    env.setdefault("UCX_MEM_EVENTS", "no")
    # valgrind does not decode AVX-512/GFNI: keep the kernels on AVX2.  A
    # test that sets LINCOLL_KERNEL_ISA itself (the configuration tests:
    # auto, a bad value, base) keeps its value: its "auto" then resolves
    # through valgrind's synthetic CPUID, which reports no AVX-512 or GFNI
    if "LINCOLL_KERNEL_ISA" not in own_env and \
            env.get("LINCOLL_KERNEL_ISA", "auto") not in ("base", "avx2"):
        env["LINCOLL_KERNEL_ISA"] = "avx2"
    env.setdefault("LC_TEST_SCALE", "reduced")
    t0 = time.time()
    try:
        r = subprocess.run(vg + t["command"], env=env, capture_output=True, text=True,
                           timeout=3600, cwd=cwd)
        rc, out = r.returncode, r.stdout + r.stderr
    except subprocess.TimeoutExpired:
        rc, out = -1, "timeout"
    return t["name"], rc, out, time.time() - t0

bad = 0
with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, jobs)) as ex:
    for name, rc, out, dt in ex.map(run, tests):
        ok = rc == 0
        bad += not ok
        # which third-party suppressions fired (-v lists them at exit)
        used = sorted({l.split("used_suppression:")[1].split()[1] for l in out.splitlines()
                       if "used_suppression:" in l})
        print("%-40s %s %7.1f s%s" % (name, "OK  " if ok else "FAIL(rc=%d)" % rc, dt,
              "  suppressed: " + ",".join(used) if used else ""), flush=True)
        if not ok:
            lines = [l for l in out.splitlines()
                     if l.startswith("==") or "FAIL" in l or "ERROR" in l]
            print("\n".join("    | " + l for l in lines[:80]))
print("valgrind: %d unit tests, %d failed" % (len(tests), bad))
sys.exit(1 if bad else 0)
PY
