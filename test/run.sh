#!/bin/sh
# Runs test binaries, shows their output, and ends with the total "N passed, N failed".
# VALGRIND=1 runs each under valgrind (errors fail the binary); RUNNER runs each under an
# emulator (qemu-aarch64 -L ..., wine), whose carriage returns are dropped.
passed=0; failed=0
for t in "$@"; do
    echo "== $t"
    start=$(date +%s)
    out=$(mktemp)
    if [ "${t%.sh}" != "$t" ]; then
        # Scripts run the dmlops tool, which cannot pin the Vulkan driver the way the C
        # harness does (see dmt_pin_driver), so leaks inside the driver would be
        # unattributable there; the library's own leaks are checked by the C tests.
        ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" sh "$t" >"$out" 2>&1
    elif [ -n "$VALGRIND" ]; then
        valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite "$t" >"$out" 2>&1
    elif [ -n "$RUNNER" ]; then
        # shellcheck disable=SC2086 # RUNNER is a command and its arguments
        $RUNNER "$t" >"$out.raw" 2>&1
        rc=$?
        tr -d '\r' <"$out.raw" >"$out"
        rm -f "$out.raw"
        (exit $rc)
    else
        "$t" >"$out" 2>&1
    fi
    rc=$?
    cat "$out"
    echo "   ($t: $(($(date +%s) - start)) s)"
    line=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$out" | tail -n 1)
    rm -f "$out"
    if [ -z "$line" ]; then
        echo "FAIL $t exited $rc without a summary"; failed=$((failed + 1)); continue
    fi
    p=${line%% passed*}; f=${line#*, }; f=${f%% failed*}
    passed=$((passed + p)); failed=$((failed + f))
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then echo "FAIL $t exited $rc"; failed=$((failed + 1)); fi
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
