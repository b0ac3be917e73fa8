#!/bin/sh
# Tests of the dmlops tool: info, run (the example models on each backend, and error
# models), bench --quick. B names the build directory (default build). Like every test,
# it ends with "N passed, N failed" and exits non-zero on a failure.
cd "$(dirname "$0")/.." || exit 1
B=${B:-build}
D=$B/bin/dmlops
M=examples/models
T=$(mktemp -d "${TMPDIR:-/tmp}/dmlops_cli.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT INT TERM
passed=0
failed=0

ok() { passed=$((passed + 1)); echo "ok   $1"; }
fail() {
    failed=$((failed + 1))
    echo "FAIL $1"
    if [ -n "$2" ] && [ -f "$2" ]; then sed 's/^/     | /' "$2" | head -n 30; fi
}
has_python() { command -v python3 >/dev/null 2>&1; }

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

# Same type, shape and bytes. Headers may be formatted differently, so with python3 the
# two files are parsed; without it they must be identical.
npy_same() {
    if has_python; then
        python3 - "$1" "$2" <<'EOF'
import ast, sys
def load(p):
    b = open(p, 'rb').read()
    assert b[:6] == b'\x93NUMPY', p
    n, h = (int.from_bytes(b[8:10], 'little'), 10) if b[6] == 1 else (int.from_bytes(b[8:12], 'little'), 12)
    d = ast.literal_eval(b[h:h + n].decode('latin1'))
    return d['descr'], tuple(d['shape']), d['fortran_order'], b[h + n:]
sys.exit(0 if load(sys.argv[1]) == load(sys.argv[2]) else 1)
EOF
    else
        cmp -s "$1" "$2"
    fi
}

if [ ! -x "$D" ]; then
    fail "$D is not built (make $D)"
    echo "$passed passed, $failed failed"
    exit 1
fi

# ---- info --------------------------------------------------------------------------
expect "info runs" 0 "Context" "$D" info
if grep -q '^Vulkan devices: none' "$T/out"; then
    vulkan=no
    echo "     (no Vulkan device: checking the CPU fallback only)"
    expect "info without Vulkan says the CPU backend is used" 0 "the CPU backend will be used" "$D" info
else
    vulkan=yes
    if grep -q '^Vulkan devices: [1-9]' "$T/out" && grep -q '(default)' "$T/out"; then
        ok "info lists at least one device and marks the default"
    else
        fail "info lists at least one device and marks the default" "$T/out"
    fi
fi
# A loader that finds no driver: the context falls back to the CPU and says so.
expect "info with no Vulkan driver says the CPU backend will be used" 0 "the CPU backend will be used" \
    env VK_ICD_FILENAMES=/nonexistent/icd.json VK_DRIVER_FILES=/nonexistent/icd.json "$D" info
expect "info honours DMLOPS_BACKEND=cpu" 0 "the CPU backend will be used" env DMLOPS_BACKEND=cpu "$D" info
expect "info --backend cpu" 0 "the CPU backend will be used" "$D" info --backend cpu
expect "info rejects unknown options" 2 "unknown option" "$D" info --frob

if "$D" info --json >"$T/info.json" 2>"$T/out"; then
    if ! has_python; then
        ok "info --json runs (python3 absent: not parsed)"
    elif python3 -c 'import json,sys; d=json.load(sys.stdin); assert "devices" in d and d["context"]["backend"] in ("vulkan", "cpu")' \
        <"$T/info.json" 2>"$T/out"; then
        ok "info --json parses as JSON"
    else
        fail "info --json parses as JSON" "$T/out"
    fi
    if [ "$vulkan" = yes ] && has_python; then
        if python3 -c 'import json,sys; d=json.load(sys.stdin); assert len(d["devices"]) >= 1 and any(x["is_default"] for x in d["devices"])' \
            <"$T/info.json" 2>"$T/out"; then
            ok "info --json lists the devices with the default marked"
        else
            fail "info --json lists the devices with the default marked" "$T/out"
        fi
    fi
else
    fail "info --json runs" "$T/out"
fi

# ---- run: the example models -------------------------------------------------------
backends=cpu
[ "$vulkan" = yes ] && backends="cpu vulkan"
for backend in $backends; do
    for model in "$M"/*.json; do
        name=$(basename "$model" .json)
        out="$T/out-$backend"
        if ! "$D" run "$model" --backend "$backend" --output-dir "$out" >"$T/out" 2>&1; then
            fail "run $name on $backend" "$T/out"
        elif ! [ -f "$out/$name.npy" ]; then
            fail "run $name on $backend: $out/$name.npy was not written" "$T/out"
        elif ! npy_same "$out/$name.npy" "$M/expected/$name.npy"; then
            fail "run $name on $backend: output differs from $M/expected/$name.npy" "$T/out"
        else
            ok "run $name on $backend"
        fi
    done
done
expect "run prints small outputs" 0 "[[[[2, 4]," "$D" run "$M/slice_strides.json" --backend cpu --output-dir "$T/o"
expect "run --iterations reports the median" 0 "median" "$D" run "$M/reverse_axis3.json" --iterations 3 --output-dir "$T/o"

# ---- run: error models -------------------------------------------------------------
# An inline copy of SLICE1 example 1 with a placeholder to break in different ways.
model() { # FILE OFFSETS SIZES_OF_INPUT
    cat >"$1" <<EOF
{
  "resources": [
    {"Name": "x", "DataType": "FLOAT32", "Sizes": [1, 1, 4, 4], "Data": [1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16]},
    {"Name": "y"}
  ],
  "operators": [
    {"Type": "SLICE1",
     "InputTensor": {"DataType": "FLOAT32", "Sizes": $3},
     "OutputTensor": {"DataType": "FLOAT32", "Sizes": [1, 1, 2, 2]},
     "InputWindowOffsets": $2, "InputWindowSizes": [1, 1, 4, 3], "InputWindowStrides": [1, 1, 2, 2],
     "Bindings": {"InputTensor": {"Resource": "x"}, "OutputTensor": {"Resource": "y"}}}
  ]
}
EOF
}
model "$T/good.json" "[0, 0, 0, 1]" "[1, 1, 4, 4]"
expect "run an inline model" 0 "[[[[2, 4]," "$D" run "$T/good.json"
model "$T/invalid.json" "[0, 0, 3, 1]" "[1, 1, 4, 4]"
expect "invalid descriptor: exit 2 with the library's message" 2 \
    "InputWindowOffsets[2] + InputWindowSizes[2] = 7 exceeds InputTensor.Sizes[2] = 4" "$D" run "$T/invalid.json"
model "$T/negative.json" "[0, 0, 0, 1]" "[1, 1, -4, 4]"
expect "bad value: exit 2 naming the file and JSON path" 2 \
    "negative.json: \$.operators[0].InputTensor.Sizes[2]: expected a non-negative integer" "$D" run "$T/negative.json"
head -c 200 "$T/good.json" >"$T/truncated.json"
expect "bad JSON: exit 2 naming the file" 2 "truncated.json:" "$D" run "$T/truncated.json"
printf '{"resources": [], "operators": [1,]}' >"$T/syntax.json"
expect "JSON syntax error: exit 2 with line and column" 2 "syntax.json:1:" "$D" run "$T/syntax.json"
expect "missing model file: exit 2 naming it" 2 "nothere.json: cannot open" "$D" run "$T/nothere.json"
sed 's#"Data": \[[0-9,]*\]#"File": "missing.npy"#' "$T/good.json" | sed 's#"DataType": "FLOAT32", "Sizes": \[1, 1, 4, 4\], "File"#"File"#' \
    >"$T/missing_npy.json"
expect "missing .npy: exit 2 naming it" 2 "missing.npy: cannot open" "$D" run "$T/missing_npy.json"
hdr="{'descr': '<f4', 'fortran_order': True, 'shape': (4, 4), }"
printf "\\223NUMPY\\001\\000\\$(printf %o $((${#hdr} + 1)))\\000%s\\n" "$hdr" >"$T/fortran.npy"
head -c 64 /dev/zero >>"$T/fortran.npy"
sed 's#missing.npy#fortran.npy#' "$T/missing_npy.json" >"$T/fortran.json"
expect "Fortran-order .npy: exit 2 with a clear message" 2 "fortran_order is True" "$D" run "$T/fortran.json"
sed 's#"Type": "SLICE1",#"Type": "SLICE1", "Bogus": 1,#' "$T/good.json" >"$T/unknown.json"
expect "unknown field: exit 2" 2 "unknown field \"Bogus\"" "$D" run "$T/unknown.json"
sed 's#"Resource": "y"#"Resource": "z"#' "$T/good.json" >"$T/noresource.json"
expect "unknown resource: exit 2" 2 "no resource is named \"z\"" "$D" run "$T/noresource.json"
expect "feature level below the operator: exit 2, UNSUPPORTED" 2 "DMLOPS_ERROR_UNSUPPORTED" \
    "$D" run "$T/good.json" --feature-level 2_0
expect "bad --feature-level: exit 2" 2 "--feature-level" "$D" run "$T/good.json" --feature-level banana
expect "run without a model: exit 2" 2 "usage" "$D" run
expect "unknown command: exit 2" 2 "unknown command" "$D" frobnicate

# 64-bit integers beyond 2^53 travel as strings, exactly.
cat >"$T/int64.json" <<'EOF'
{"resources": [{"Name": "x", "DataType": "INT64", "Data": ["-9223372036854775808", 5, "9223372036854775807", -1]},
               {"Name": "y", "Output": "int64.npy"}],
 "operators": [{"Type": "SLICE1", "InputTensor": {"DataType": "INT64", "Sizes": [4]},
                "OutputTensor": {"DataType": "INT64", "Sizes": [4]}, "InputWindowOffsets": [0],
                "InputWindowSizes": [4], "InputWindowStrides": [-1],
                "Bindings": {"InputTensor": {"Resource": "x"}, "OutputTensor": {"Resource": "y"}}}]}
EOF
expect "INT64 values beyond 2^53 are exact" 0 "[-1, 9223372036854775807, 5, -9223372036854775808]" \
    "$D" run "$T/int64.json" --backend cpu --output-dir "$T/o"
sed 's#"-9223372036854775808", 5#9007199254740993, 5#' "$T/int64.json" >"$T/inexact.json"
expect "a JSON number beyond 2^53 is refused" 2 "as a string" "$D" run "$T/inexact.json"

# ---- bench --quick ---------------------------------------------------------------------
expect "bench --quick" 0 "small-operator overhead" \
    "$D" bench --quick --csv "$T/bench.csv" --svg "$T/bench.svg" --report "$T/report"
if [ ! -s "$T/bench.csv" ]; then
    fail "bench --quick --csv writes a CSV"
elif has_python; then
    if python3 - "$T/bench.csv" >"$T/out" 2>&1 <<'EOF'
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline='')))
head, body = rows[0], rows[1:]
numeric = ['element_bytes', 'tensor_bytes', 'bytes_moved', 'iterations', 'median_us', 'min_us', 'gbps',
           'copy_gbps', 'ratio_copy', 'memcpy_gbps', 'ratio_memcpy']
assert head[:4] == ['device', 'backend', 'operator', 'variant'], head
assert all(c in head for c in numeric), head
assert len(body) >= 21, 'only %d rows' % len(body)
ops = set()
for r in body:
    assert len(r) == len(head), r
    for c in numeric:
        v = float(r[head.index(c)])
        assert v >= 0, (c, r)
    assert float(r[head.index('median_us')]) > 0, r
    assert r[head.index('timer')] in ('gpu', 'wall'), r
    ops.add(r[head.index('operator')])
assert ops == {'REVERSE_SUBSEQUENCES', 'SLICE1', 'ONE_HOT'}, ops
EOF
    then ok "bench --quick --csv is well formed"; else fail "bench --quick --csv is well formed" "$T/out"; fi
else
    cols=$(head -n 1 "$T/bench.csv" | awk -F, '{print NF}')
    if [ "$(wc -l <"$T/bench.csv")" -gt 1 ] && [ "$cols" -ge 18 ]; then
        ok "bench --quick --csv has a header and rows"
    else
        fail "bench --quick --csv has a header and rows" "$T/bench.csv"
    fi
fi
if head -c 4 "$T/bench.svg" 2>/dev/null | grep -q '<svg' && tail -n 1 "$T/bench.svg" | grep -q '</svg>'; then
    ok "bench --svg writes an SVG"
else
    fail "bench --svg writes an SVG"
fi
md="$T/report/performance.md"
"$D" bench --quick --filter "SLICE1 stride=1 UINT8" --report "$T/report" >"$T/out" 2>&1
begins=$(grep -c '^<!-- bench:.*:begin -->$' "$md" 2>/dev/null)
if [ "$begins" = 1 ] && grep -q '^<!-- bench:.*:end -->$' "$md" && grep -q '| Command |' "$md" \
    && [ "$(ls "$T/report/bench" | wc -l)" -eq 2 ]; then
    ok "bench --report writes one section per device and replaces it on a rerun"
else
    fail "bench --report writes one section per device and replaces it on a rerun" "$md"
fi
expect "bench --filter with no match: exit 2" 2 "no case matches" "$D" bench --quick --filter no-such-case

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
