#!/usr/bin/env bash
# The CMake stage of .ci/run: the Release configuration of this tree (docs/cmake.md), the
# build type of a CMake user's first command (`cmake -S . -B b -DCMAKE_BUILD_TYPE=Release`),
# with both compilers: gcc and clang each build everything (library, tool, tests, examples)
# warning-free under -Werror at -O3, whose warnings -O2 builds never show (gcc's
# -Wmaybe-uninitialized stopped the Release build of test_onnx.c, issue 45). make test's
# test_cmake.sh has already held the CMake build to the Makefile's with gcc.
#
# Then CTest runs the suites as a CMake user does, each suite once, on one build or the
# other (gcc's runs the suites GCC_SUITES names, clang's every other one, a suite added
# later included: each is run by a -O3 build, and both compilers' code runs), two at a
# time on CI's two cores (2026-11-27, every suite on one clang build: 227 s one at a time,
# 146 s two). The halves hold about the same time (the 2026-11-28 run: test_faults and
# test_random on gcc's, test_vulkan and test_targeted on clang's). Split so, the suites
# take the time one build's took; to pay for the second build, their random tests run a
# sixth of their cases (DMT_CASES_PERCENT, test/harness.h; a third, then a quarter before), every path
# still taken. Then test/cmake_subprojects.sh,
# the add_subdirectory and FetchContent consumers (2 minutes). Ends with ctest's summaries
# and "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."
unset MAKEFLAGS MFLAGS MAKELEVEL CFLAGS
log=$(mktemp)
trap 'rm -f "$log"' EXIT
passed=0 failed=0

# build NAME CC: configures and builds build-cmake-ci-NAME; the output only on failure.
build() {
    local b=build-cmake-ci-$1
    echo "CC=$2 cmake -S . -B $b -DCMAKE_BUILD_TYPE=Release && cmake --build $b -j2"
    rm -rf "$b"
    if ! { CC=$2 cmake -S . -B "$b" -DCMAKE_BUILD_TYPE=Release && cmake --build "$b" -j2; } >"$log" 2>&1; then
        tail -n 60 "$log"
        echo "FAIL the CMake Release configuration builds with $2"
        failed=$((failed + 1))
        return 1
    fi
    passed=$((passed + 1))
    echo "ok   the CMake Release configuration builds with $2, warning-free"
}

# suites NAME -R|-E: ctest on build-cmake-ci-NAME, of the suites GCC_SUITES names (-R) or
# of the others (-E).
GCC_SUITES='^(test_faults|test_random|test_onnx|test_abi|test_api_misuse|test_fastdiv|test_json|test_npy|test_small_devices|test_threads|test_vk_limits|no_alloc|interop_volk)$'
suites() {
    local b=build-cmake-ci-$1 line total f
    echo "DMT_CASES_PERCENT=${DMT_CASES_PERCENT:-15} ctest -j2 --test-dir $b $2 '$GCC_SUITES'"
    DMT_CASES_PERCENT=${DMT_CASES_PERCENT:-15} ctest -j2 --test-dir "$b" "$2" "$GCC_SUITES" --output-on-failure 2>&1 |
        tee "$log"
    # "100% tests passed, 0 tests failed out of 13"
    line=$(grep -E '^[0-9]+% tests passed, [0-9]+ tests failed out of [0-9]+' "$log" | tail -n 1)
    if [ -z "$line" ]; then
        echo "FAIL ctest on $b printed no summary"
        failed=$((failed + 1))
        return
    fi
    total=${line##* out of } f=${line#*passed, }
    f=${f%% tests failed*}
    passed=$((passed + total - f)) failed=$((failed + f))
}

gcc_cc=${CC_GCC:-$(command -v gcc || echo cc)}
clang_cc=${CC_CLANG:-$(command -v clang || echo cc)}
build gcc "$gcc_cc" && suites gcc -R
build clang "$clang_cc" && suites clang -E

# Then the two ways a project builds the library from source (add_subdirectory,
# FetchContent), kept out of make test for its ten minutes.
sh test/cmake_subprojects.sh 2>&1 | tee "$log"
sub=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$log" | tail -n 1)
if [ -n "$sub" ]; then
    sf=${sub#*, }
    passed=$((passed + ${sub%% passed*})) failed=$((failed + ${sf%% failed*}))
else
    failed=$((failed + 1))
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
