#!/usr/bin/env bash
# The CMake stage of .ci/run: one CMake configuration of this tree (docs/cmake.md), built
# and tested under CTest. make test's test_cmake.sh has already held the CMake build to the
# Makefile's with gcc; this one is clang's (CC, default clang where it is installed), so
# that a second compiler builds it warning-free (-Werror), and runs the suites the way a
# CMake user does (4 minutes here, 2.5 of them the suites); then
# test/cmake_subprojects.sh, the add_subdirectory and FetchContent consumers (2 minutes).
# Ends with ctest's summary and "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."
unset MAKEFLAGS MFLAGS MAKELEVEL
cc=${CC:-$(command -v clang || echo cc)}
b=build-cmake-ci
log=$(mktemp)
trap 'rm -f "$log"' EXIT

echo "CC=$cc cmake -S . -B $b && cmake --build $b -j2 && ctest -j2 --test-dir $b"
rm -rf "$b"
# The configure and build output is shown only when one of them fails.
if ! { CC=$cc cmake -S . -B "$b" && cmake --build "$b" -j2; } >"$log" 2>&1; then
    tail -n 60 "$log"
    echo "FAIL the CMake configuration builds"
    echo "0 passed, 1 failed"
    exit 1
fi
# The suites are make test's, built by another compiler: their random tests run a third of
# their cases (DMT_CASES_PERCENT, test/harness.h), every path still taken; two at a time on
# CI's two cores (2026-11-27: 227 s one at a time, 146 s two; no suite shares a file).
DMT_CASES_PERCENT=${DMT_CASES_PERCENT:-33} ctest -j2 --test-dir "$b" --output-on-failure 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
# "100% tests passed, 0 tests failed out of 18"
line=$(grep -E '^[0-9]+% tests passed, [0-9]+ tests failed out of [0-9]+' "$log" | tail -n 1)
if [ -z "$line" ]; then
    echo "FAIL ctest printed no summary (exit $rc)"
    echo "0 passed, 1 failed"
    exit 1
fi
total=${line##* out of } f=${line#*passed, }
f=${f%% tests failed*}
# Then the two ways a project builds the library from source (add_subdirectory,
# FetchContent), kept out of make test for its ten minutes.
sh test/cmake_subprojects.sh 2>&1 | tee "$log"
src=${PIPESTATUS[0]}
sub=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$log" | tail -n 1)
sp=${sub%% passed*} sf=${sub#*, }
sf=${sf%% failed*}
[ -n "$sub" ] || { sp=0 sf=1; }
echo "$((total - f + sp)) passed, $((f + sf)) failed"
[ "$rc" -eq 0 ] && [ "$f" -eq 0 ] && [ "$src" -eq 0 ] && [ "$sf" -eq 0 ]
