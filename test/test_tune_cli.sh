#!/bin/sh
# Tests of dmlops tune and dmlops bench --tuning (issue 49; docs/cli.md): the command line's
# mistakes (exit 2), and on a Vulkan device (lavapipe in CI), planned as a GPU, one case
# tuned into a file that the bench then runs beside the defaults; a foreign file is
# refused with a note. B names the build directory (default build). Like every test, it
# ends with "N passed, N failed" and exits non-zero on a failure.
cd "$(dirname "$0")/.." || exit 1
B=${B:-build}
D=$B/bin/dmlops
T=$(mktemp -d "${TMPDIR:-/tmp}/dmlops_tune.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT INT TERM
passed=0
failed=0

ok() { passed=$((passed + 1)); echo "ok   $1"; }
fail() {
    failed=$((failed + 1))
    echo "FAIL $1"
    if [ -n "$2" ] && [ -f "$2" ]; then sed 's/^/     | /' "$2" | head -n 40; fi
}

# expect NAME STATUS PATTERN CMD...: CMD exits STATUS and its output (stdout and stderr)
# contains the fixed string PATTERN (empty: anything).
expect() {
    name=$1 want=$2 pat=$3
    shift 3
    "$@" >"$T/out" 2>&1
    rc=$?
    if [ "$rc" -ne "$want" ]; then
        echo "     exit status $rc, expected $want" >>"$T/out"
        fail "$name" "$T/out"
    elif [ -n "$pat" ] && ! grep -qF -- "$pat" "$T/out"; then
        echo "     output lacks: $pat" >>"$T/out"
        fail "$name" "$T/out"
    else
        ok "$name"
    fi
}

if [ ! -x "$D" ]; then
    fail "$D is not built (make $D)"
    echo "$passed passed, $failed failed"
    exit 1
fi

expect "tune without --out" 2 "--out FILE is required" "$D" tune
expect "tune --backend cpu" 2 "the CPU backend has no tuning knobs" "$D" tune --out "$T/t.txt" --backend cpu
expect "tune --budget 0" 2 "--budget 0: expected seconds per class" "$D" tune --out "$T/t.txt" --budget 0
expect "tune --budget junk" 2 "--budget 2s: expected seconds per class" "$D" tune --out "$T/t.txt" --budget 2s
expect "tune --filter matching nothing" 2 "no case matches --filter" "$D" tune --out "$T/t.txt" --filter "no such case"
expect "tune --out in a missing folder" 2 "cannot write beside it" "$D" tune --out "$T/no/such/t.txt" --quick \
    --filter "SLICE1 stride=1 FLOAT32 4 KiB"
expect "tune --help" 0 "usage: dmlops tune --out FILE" "$D" tune --help
expect "bench --model takes no --tuning" 2 "--model takes" "$D" bench --model --tuning "$T/t.txt"

if ! "$D" info 2>/dev/null | grep -q '^Vulkan devices: [1-9]' || [ "${DMLOPS_TEST_BACKENDS:-vulkan}" = cpu ]; then
    echo "     (no Vulkan device, or DMLOPS_TEST_BACKENDS leaves it out: the tuner's runs are skipped)"
    echo "$passed passed, $failed failed"
    [ "$failed" -eq 0 ]
    exit
fi

# One case, planned as a GPU, tuned in at most 2 s: the file is written, the class's line in it.
case="SLICE1 stride=1 FLOAT32 4 KiB"
expect "tune one case on lavapipe planned as a GPU" 0 "1 classes tuned" \
    env DMLOPS_VK_TUNING=gpu "$D" tune --out "$T/t.txt" --quick --filter "$case" --budget 2
if head -n 3 "$T/t.txt" | grep -q '^dmlops-tuning 1$' && grep -q '^class slice\.v1\.e4\.' "$T/t.txt" &&
    tail -n 1 "$T/t.txt" | grep -q '^checksum [0-9a-f]\{16\}$'; then
    ok "the tuning file names the format, the class and its checksum"
else
    fail "the tuning file" "$T/t.txt"
fi
ls "$T" | grep -q '\.tuning$' && fail "tune left its temporary file" || ok "tune leaves no temporary file"

# The bench runs the case under the defaults and under the file, in the same rounds.
expect "bench --tuning: both columns" 0 "tuning file $T/t.txt" \
    env DMLOPS_VK_TUNING=gpu "$D" bench --backend vulkan --quick --filter "$case" --tuning "$T/t.txt" --csv "$T/b.csv"
grep -q "^tuned: .*tuning: file \"$T/t.txt\" (1 classes)" "$T/out" && ok "bench --tuning: the tuned context uses the file" ||
    fail "bench --tuning: the tuned context's note" "$T/out"
if head -n 1 "$T/b.csv" | grep -q ',tuned_us,ratio_tuned,tuned_config$' &&
    awk -F, 'NR == 2 && $(NF - 2) > 0 && $(NF - 1) > 0 { found = 1 } END { exit !found }' "$T/b.csv"; then
    ok "bench --tuning --csv: tuned_us and ratio_tuned measured"
else
    fail "bench --tuning --csv" "$T/b.csv"
fi

# A file for another device: the tuned context says so and runs the defaults.
sed 's/^uuid .*/uuid 00000000-0000-0000-0000-000000000000/' "$T/t.txt" >"$T/foreign.txt"
expect "bench --tuning with a damaged or foreign file runs the defaults, noted" 0 "ignored (damaged" \
    "$D" bench --backend vulkan --quick --filter "$case" --tuning "$T/foreign.txt"
grep -qF "(not in the file: the defaults)" "$T/out" && ok "a refused file's cases run the defaults" ||
    fail "a refused file's cases" "$T/out"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
