#!/usr/bin/env bash
# The CMake stage of .ci/run: one CMake configuration of this tree (docs/cmake.md), built
# and tested under CTest. make test's test_cmake.sh has already held the CMake build to the
# Makefile's with gcc; this one is clang's (CC, default clang where it is installed), so
# that a second compiler builds it warning-free (-Werror), and runs the suites the way a
# CMake user does (about 5 minutes here, 4.5 of them the suites). Ends with ctest's summary
# and "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."
unset MAKEFLAGS MFLAGS MAKELEVEL
cc=${CC:-$(command -v clang || echo cc)}
b=build-cmake-ci
log=$(mktemp)
trap 'rm -f "$log"' EXIT

echo "CC=$cc cmake -S . -B $b && cmake --build $b -j2 && ctest --test-dir $b"
rm -rf "$b"
# The configure and build output is shown only when one of them fails.
if ! { CC=$cc cmake -S . -B "$b" && cmake --build "$b" -j2; } >"$log" 2>&1; then
    tail -n 60 "$log"
    echo "FAIL the CMake configuration builds"
    echo "0 passed, 1 failed"
    exit 1
fi
ctest --test-dir "$b" --output-on-failure 2>&1 | tee "$log"
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
echo "$((total - f)) passed, $f failed"
[ "$rc" -eq 0 ] && [ "$f" -eq 0 ]
