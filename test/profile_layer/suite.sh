#!/bin/sh
# The Vulkan suites under the device profiles (README.md in this directory), as `make
# test-profiles` and CI's "device profiles" stage run them:
#   sh test/profile_layer/suite.sh [full|quick]
# full: the minimum profile with every Vulkan suite (test_random with fewer cases), then
# each variant and each embedded profile with a subset chosen for what its limits change;
# quick: the subset everywhere. Every run goes through run.sh, so a run fails on any
# message of the validation layer, or when the layer did not run at all. Ends with the
# sum, "N passed, N failed". B= the build directory (default build).
set -u
B=${B:-build}
export B
mode=${1:-full}
here=$(dirname "$0")
passed=0 failed=0

# The slowest cases of test_vulkan and test_targeted, which the subsets leave to the
# minimum profile: random layouts over many tuning setups, which the variants' limits
# do not reach differently.
heavy_vulkan=-fast_paths_match_cpu,-tiny_binding_windows,-reverse_columns_match_cpu,-256_byte_allocations
heavy_vulkan=$heavy_vulkan,-preferring_copy_regions,-tiny_dispatch_grids,-long_rows_match_cpu
heavy_targeted=-targeted_1d,-targeted_rank8

# One run: PROFILE LABEL COMMAND...; harness binaries report "N passed, N failed", other
# commands count as one test passed or failed by their exit status.
run() {
    profile=$1 label=$2
    shift 2
    out=$(mktemp)
    start=$(date +%s)
    DMLOPS_TEST_BACKENDS=vulkan DMLOPS_TEST_REQUIRE_VULKAN=1 sh "$here/run.sh" "$profile" "$@" >"$out" 2>&1
    rc=$?
    line=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$out" | tail -n 1)
    p=0 f=0
    if [ -n "$line" ]; then
        p=${line%% passed*}
        f=${line#*, }
        f=${f%% failed*}
    elif [ "$rc" -eq 0 ]; then
        p=1
    fi
    [ "$rc" -ne 0 ] && [ "$f" -eq 0 ] && f=1
    if [ "$f" -ne 0 ]; then
        grep -E '^(FAIL|    )' "$out" | head -n 40
        echo "FAIL [$profile] $label (exit $rc)"
    fi
    echo "[$profile] $label: $p passed, $f failed ($(($(date +%s) - start)) s)"
    passed=$((passed + p))
    failed=$((failed + f))
    rm -f "$out"
}

# The suites every profile runs: the device's own checks, a subset of the rest, the
# examples (their own contexts, without DEBUG: run.sh reads the validation layer's output).
subset() {
    profile=$1
    run "$profile" test_small_devices "$B/test/test_small_devices"
    run "$profile" "test_vulkan (subset)" env DMT_FILTER="$heavy_vulkan" "$B/test/test_vulkan"
    run "$profile" "test_targeted (subset)" env DMT_FILTER="$heavy_targeted" "$B/test/test_targeted"
    run "$profile" "test_random (60 cases, forced paths left out)" env DMT_CASES=60 DMT_FILTER=-forced_paths \
        "$B/test/test_random"
    run "$profile" "test_validation" "$B/test/test_validation"
    run "$profile" quickstart env DMLOPS_BACKEND=vulkan "$B/examples/quickstart"
    run "$profile" vulkan_interop "$B/examples/vulkan_interop"
}

if [ "$mode" = full ]; then
    run min test_small_devices "$B/test/test_small_devices"
    # A share of the random cases (DMT_CASES_PERCENT): the bounded-work grids of 2026-11-28
    # made each case take more dispatches, and this stage went from 438 s to 1066 s.
    run min "test_vulkan (half its random cases)" env DMT_CASES_PERCENT=50 "$B/test/test_vulkan"
    run min test_targeted "$B/test/test_targeted"
    run min "test_random (15% of its cases, forced paths included)" env DMT_CASES_PERCENT=15 "$B/test/test_random"
    run min test_validation "$B/test/test_validation"
    # The 320 MiB cases run on copy regions on a CPU device, 160000 of them, recorded 256
    # a vkCmdCopyBuffer (src/vk/vk_record.c): the validation layer's pair-by-pair overlap
    # check of one call of them all took hours, so the cases were left out until then.
    run min big_tensors "$B/test/big_tensors"
    run min quickstart env DMLOPS_BACKEND=vulkan "$B/examples/quickstart"
    run min vulkan_interop "$B/examples/vulkan_interop"
else
    subset min
fi
for profile in min-no-timestamps min-align64 min-subgroup1 min-portability rpi4-v3dv adreno618-turnip mali-g610-panvk; do
    subset "$profile"
done
# The benchmark times with the wall clock where the device has no timestamps.
run min-no-timestamps "dmlops bench (no timestamps)" \
    "$B/bin/dmlops" bench --quick --backend vulkan --filter "SLICE1 stride=1" --iterations 2 --no-scaling
# A Raspberry Pi 4's 1 GiB heap refuses the 2.34 GiB tensors up front; the rest fit.
run rpi4-v3dv big_tensors "$B/test/big_tensors"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
