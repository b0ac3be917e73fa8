#!/bin/sh
# Runs COMMAND with the device reporting PROFILE, the Khronos validation layer above the
# profile layer (README.md in this directory):
#   test/profile_layer/run.sh PROFILE COMMAND [ARGS...]
# PROFILE is a file, or a name under test/profile_layer/profiles/ (min, min-no-timestamps,
# rpi4-v3dv, ...). Needs `make profile-layer` (B= the build directory, default build).
# Fails when the layer did not run (no validation layer installed, a missing manifest), or
# when the validation layer printed anything, in a DEBUG context or not.
set -u
[ $# -ge 2 ] || { echo "usage: $0 PROFILE COMMAND [ARGS...]" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
profile=$1
shift
[ -f "$profile" ] || profile=$here/profiles/$profile.profile
[ -f "$profile" ] || { echo "run.sh: no profile $1" >&2; exit 2; }
layer_dir=$(cd "${B:-build}/profile_layer" 2>/dev/null && pwd) || {
    echo "run.sh: ${B:-build}/profile_layer is missing: make profile-layer" >&2; exit 2; }
record=$(mktemp)
out=$(mktemp)
# The implicit meta-layer (manifests/implicit_layer.d) is found through XDG_DATA_HOME and
# switched on by DMLOPS_PROFILE_LAYER; VK_INSTANCE_LAYERS would neither order the layers
# (loader 1.3.239) nor stay quiet (it warns every debug messenger).
XDG_DATA_HOME=$layer_dir DMLOPS_PROFILE_LAYER=1 DMLOPS_PROFILE=$profile DMLOPS_PROFILE_RECORD=$record \
    "$@" >"$out" 2>&1
rc=$?
cat "$out"
name=$(sed -n 's/^name *= *//p' "$profile" | tail -n 1)
if ! grep -q "^instance profile=" "$record"; then
    echo "FAIL profile layer: no Vulkan instance ran under profile $name (is the validation layer installed?)"
    rc=1
fi
# The validation layer's own output (contexts without DEBUG have no messenger).
if grep -q -E 'Validation (Error|Warning)|VUID-' "$out"; then
    echo "FAIL profile layer: the validation layer reported messages under profile $name"
    rc=1
fi
rm -f "$record" "$out"
exit $rc
