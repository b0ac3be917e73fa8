#!/bin/sh
# Runs each libFuzzer target of `make fuzz` for FUZZ_SECONDS (default 60), starting from
# its seed corpus in test/fuzz/<name>/ (read only; fuzz_vulkan shares ops/) and growing build-fuzz/corpus/<name>/.
# A target passes when it ran the whole time without a finding; a finding is saved as
# build-fuzz/<name>-crash-* and printed. Ends with "N passed, N failed".
# Usage: test/fuzz/run.sh BUILD_DIR TARGET...
B=$1; shift
S=${FUZZ_SECONDS:-60}
passed=0 failed=0
for name in "$@"; do
    bin=$B/fuzz_$name
    mkdir -p "$B/corpus/$name"
    log=$B/fuzz_$name.log
    # LSan is off for the Vulkan target: the driver keeps allocations until exit.
    leaks=1; [ "$name" = vulkan ] && leaks=0
    seeds=test/fuzz/$name; [ "$name" = vulkan ] && seeds=test/fuzz/ops # the same input format
    quiet=; [ "$name" = tool ] && quiet=-close_fd_mask=2 # the loader reports each refusal on stderr
    ASAN_OPTIONS="detect_leaks=$leaks${ASAN_OPTIONS:+:$ASAN_OPTIONS}" "$bin" $quiet -max_total_time="$S" -rss_limit_mb=4096 \
        -timeout=60 -print_final_stats=1 -artifact_prefix="$B/$name-" "$B/corpus/$name" "$seeds" >"$log" 2>&1
    rc=$?
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    cov=$(grep -o 'cov: [0-9]*' "$log" | tail -n 1)
    if [ "$rc" -eq 0 ]; then
        passed=$((passed + 1)); echo "ok   fuzz_$name: ${runs:-?} executions in ${S} s, ${cov:-cov: ?} edges, no finding"
        grep '^fuzz: ' "$log" | tail -n 1 | sed 's/^/     | /'
    else
        failed=$((failed + 1)); echo "FAIL fuzz_$name (exit $rc); last lines of $log:"
        tail -n 30 "$log" | sed 's/^/     | /'
    fi
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
