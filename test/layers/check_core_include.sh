#!/usr/bin/env bash
# kernels/ and transports/ never include core/, and the build enforces it:
# their object libraries' include path holds no directory where a core/
# header resolves.
#
#   check_core_include.sh CC SOURCE_ROOT CFLAGS FILE=INCLUDES...
#
# INCLUDES are the include directories (':'-separated) of the object library
# that compiles FILE (test/layers/CMakeLists.txt passes them from the
# targets).  For each FILE, with those directories, it checks:
#   1. the file compiles as it is;
#   2. the file with #include "core/base/log.h" in front does not, because
#      that header is not found;
#   3. the same with the source root added to the path compiles (so step 2
#      fails for the include path, not for anything else).
# Then every #include in kernels/ and transports/ must stay inside its own
# tree (no "core/...", no "../../core/...").
set -u
cc=$1 root=$(realpath "$2") extra=$3
shift 3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

flags() { # include dirs (':'-separated) -> -I flags
    local IFS=:
    for d in $1; do printf -- '-I%s ' "$d"; done
}

compile() { # out-file incdirs source...
    local out=$1 inc=$2
    shift 2
    # shellcheck disable=SC2086
    "$cc" -std=c11 -D_GNU_SOURCE -DLINCOLL_BUILDING_LIBRARY $(flags "$inc") $extra \
        -fsyntax-only "$@" >"$out" 2>&1
}

probe() { # incdirs file
    local inc=$1 src=$root/$2 name
    name=$(echo "$2" | tr / _)
    printf '#include "core/base/log.h"\n#include "%s"\n' "$src" >"$tmp/$name.inj.c"
    if ! compile "$tmp/$name.plain" "$inc" "$src"; then
        echo "FAIL $2: does not compile with its own include path:"
        head -5 "$tmp/$name.plain"
        fail=1
        return
    fi
    if compile "$tmp/$name.inj" "$inc" "$tmp/$name.inj.c"; then
        echo "FAIL $2: compiles with #include \"core/base/log.h\" (the include path reaches core/)"
        fail=1
    elif ! grep -q 'core/base/log.h: No such file' "$tmp/$name.inj"; then
        echo "FAIL $2: the injected core include failed for another reason:"
        head -5 "$tmp/$name.inj"
        fail=1
    elif ! compile "$tmp/$name.root" "$inc:$root" "$tmp/$name.inj.c"; then
        echo "FAIL $2: with the source root on the path the probe still fails:"
        head -5 "$tmp/$name.root"
        fail=1
    else
        echo "ok   $2: #include \"core/base/log.h\" is not found on its include path"
    fi
}

[ $# -gt 0 ] || { echo "FAIL: no FILE=INCLUDES given"; exit 1; }
for arg in "$@"; do
    probe "${arg#*=}" "${arg%%=*}"
done

# every quoted include resolves inside the including file's own tree
n=0
while IFS= read -r -d '' f; do
    top=${f#"$root"/}
    top=${top%%/*}
    while IFS= read -r inc; do
        n=$((n + 1))
        case $inc in
        core/* | */core/*)
            echo "FAIL ${f#"$root"/}: #include \"$inc\" names core/"
            fail=1
            continue
            ;;
        esac
        target=$(realpath -m "$(dirname "$f")/$inc")
        case $target in
        "$root/$top"/*) ;;
        *)
            echo "FAIL ${f#"$root"/}: #include \"$inc\" leaves $top/ (resolves to $target)"
            fail=1
            ;;
        esac
    done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f")
done < <(find "$root/kernels" "$root/transports" -name '*.[ch]' -print0)
echo "includes checked in kernels/ and transports/: $n"
[ "$n" -gt 20 ] || { echo "FAIL: too few includes found under $root"; fail=1; }
exit $fail
