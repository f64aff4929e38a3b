#!/usr/bin/env bash
# Writes a machine profile for this machine with lincoll_info --calibrate
# (perf/calibrate.c says what it measures and how):
#   perf/calibrate_profile.sh [BUILD_DIR] [OUT] [NAME]
#   (defaults: build, perf/profiles/<hostname>.profile, <hostname>)
# lincoll_sim --profile OUT and the library (LINCOLL_PROFILE=OUT) read it.
# Run it on a quiet machine: the profile says when it was measured and the
# load then.  Takes about a minute.
set -uo pipefail
build=${1:-build}
host=$(hostname -s 2>/dev/null || echo this-machine)
out=${2:-perf/profiles/$host.profile}
name=${3:-$host}
info="$build/bin/lincoll_info"
[ -x "$info" ] || { echo "calibrate_profile: $info not found (build first)" >&2; exit 2; }
"$info" --calibrate -o "$out" || exit $?
sed -i "s/^name .*/name          $name/" "$out"
echo "calibrate_profile: wrote $out"
