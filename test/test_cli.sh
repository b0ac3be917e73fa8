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
if [ "$(wc -l <"$T/out")" -eq 1 ]; then ok "unknown command: one line"; else fail "unknown command: one line" "$T/out"; fi
expect "bench, unknown argument: exit 2" 2 "unknown argument '--frob'" "$D" bench --frob
if [ "$(wc -l <"$T/out")" -eq 1 ]; then ok "bench, unknown argument: one line"; else fail "bench, unknown argument: one line" "$T/out"; fi

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
sed 's#"-9223372036854775808", 5#1.5, 5#' "$T/int64.json" >"$T/fraction.json"
expect "a value error ends with its type in brackets" 2 "Data[0]: 1.5 is not an integer (INT64)" \
    "$D" run "$T/fraction.json"
# Floats that their type would round to an infinity are refused, as integers out of range are.
sed 's#"INT64"#"FLOAT16"#g; s#\["-9223372036854775808", 5, "9223372036854775807", -1\]#[1, 70000, 2, 3]#' \
    "$T/int64.json" >"$T/f16big.json"
expect "a FLOAT16 value past 65504 is refused" 2 "Data[1]: 70000 is out of range for the data type (FLOAT16)" \
    "$D" run "$T/f16big.json" --backend cpu
sed 's#"INT64"#"FLOAT32"#g; s#\["-9223372036854775808", 5, "9223372036854775807", -1\]#[1, 2, "1e39", 3]#' \
    "$T/int64.json" >"$T/f32big.json"
expect "a FLOAT32 string past FLT_MAX is refused" 2 'Data[2]: "1e39" is out of range for the data type (FLOAT32)' \
    "$D" run "$T/f32big.json" --backend cpu
sed 's#\[1, 2, "1e39", 3\]#[1, 2, "inf", 3.4028234e38]#' "$T/f32big.json" >"$T/f32inf.json"
expect "an infinity written as such and FLT_MAX pass" 0 "[3.40282e+38, inf, 2, 1]" "$D" run "$T/f32inf.json" --backend cpu
sed 's#^{"resources"#{"description": 5, "resources"#' "$T/int64.json" >"$T/descnum.json"
expect "a description that is not a string is refused" 2 '$.description: expected a string, not a number' \
    "$D" run "$T/descnum.json"
# An Output's missing folders are made; a directory in its place is the model's mistake.
sed 's#"int64.npy"#"nd/sub/int64.npy"#' "$T/int64.json" >"$T/outdirs.json"
expect "an Output's missing folders are made" 0 "wrote" "$D" run "$T/outdirs.json" --backend cpu --output-dir "$T/od"
if [ -f "$T/od/nd/sub/int64.npy" ]; then ok "the Output was written in the folders made"; else fail "the Output was written in the folders made"; fi
mkdir -p "$T/odir/int64.npy"
expect "an Output that is a directory exits 2" 2 '$.resources[1].Output: ' "$D" run "$T/int64.json" --backend cpu --output-dir "$T/odir"
touch "$T/ofile"
sed 's#"int64.npy"#"ofile/int64.npy"#' "$T/int64.json" >"$T/outfile.json"
expect "an Output under a file exits 2 naming the field" 2 '$.resources[1].Output: ' \
    "$D" run "$T/outfile.json" --backend cpu --output-dir "$T"

# ---- run: ONNX nodes ---------------------------------------------------------------------
# onnx NAME NODE: a model of one ONNX Slice node over x = [10, 11, 12, 13, 14] (NODE: the
# "ONNX" member), writing NAME.npy.
onnx() {
    cat >"$T/$1.json" <<EOF
{"resources": [{"Name": "x", "DataType": "FLOAT32", "Data": [10, 11, 12, 13, 14]}, {"Name": "y", "Output": "$1.npy"}],
 "operators": [{"ONNX": $2, "Bindings": {"data": {"Resource": "x"}, "output": {"Resource": "y"}}}]}
EOF
}
onnx trap '{"op_type": "Slice", "inputs": {"starts": [-100], "ends": [-100], "steps": [-1]}}'
# line NAME TEXT: the last command printed the line TEXT, whole.
line() { if grep -qxF -- "$2" "$T/out"; then ok "$1"; else fail "$1" "$T/out"; fi; }
expect "ONNX Slice: starts -100, ends -100, step -1 on 5 elements: shape [1], as ONNX clamps" 0 "y = FLOAT32 [1]" \
    "$D" run "$T/trap.json" --backend cpu --output-dir "$T/o"
line "... element 0, where numpy would take none" "  [10]"
onnx slice1 '{"op_type": "Slice", "attributes": {"starts": [1], "ends": [-1], "axes": [0]}}'
expect "ONNX Slice-1: starts, ends and axes as attributes" 0 "y = FLOAT32 [3]" "$D" run "$T/slice1.json" --backend cpu --output-dir "$T/o"
line "... elements 1 to 3" "  [11, 12, 13]"
onnx empty '{"op_type": "Slice", "inputs": {"starts": [3], "ends": [1]}}'
expect "ONNX Slice selecting nothing: exit 0, nothing run" 0 "the ONNX output is FLOAT32 [0], with no elements: nothing to run" \
    "$D" run "$T/empty.json" --backend cpu --output-dir "$T/o"
if grep -qF "y = FLOAT32 [0]" "$T/out" && [ -f "$T/o/empty.npy" ]; then ok "... and its empty output is printed and saved"; else fail "... and its empty output is printed and saved" "$T/out"; fi
onnx zero_step '{"op_type": "Slice", "inputs": {"starts": [0], "ends": [5], "steps": [0]}}'
expect "ONNX Slice with a zero step: exit 2 with the library's message naming steps[0]" 2 \
    "zero_step.json: \$.operators[0].ONNX: DMLOPS_ERROR_INVALID_ARGUMENT: ONNX Slice: steps[0] = 0" "$D" run "$T/zero_step.json"
onnx both '{"op_type": "Slice", "attributes": {"starts": [0], "ends": [1]}, "inputs": {"starts": [0]}}'
expect "ONNX Slice: starts as attribute and input: exit 2" 2 "inputs.starts: also an attribute" "$D" run "$T/both.json"
onnx mismatch '{"op_type": "Slice", "inputs": {"starts": [0, 1], "ends": [1]}}'
expect "ONNX Slice: ends shorter than starts: exit 2" 2 "inputs.ends: 1 entries, but starts has 2" "$D" run "$T/mismatch.json"
onnx badop '{"op_type": "Gather"}'
expect "unknown ONNX op_type: exit 2" 2 'unknown op_type "Gather"' "$D" run "$T/badop.json"
sed 's#, "DataType": "FLOAT32", "Data": \[10, 11, 12, 13, 14\]##' "$T/trap.json" >"$T/unshaped.json"
expect "an ONNX input without type and shape: exit 2" 2 'Bindings.data: resource "x" has no type and shape' \
    "$D" run "$T/unshaped.json"
cat >"$T/hot.json" <<'EOF'
{"resources": [{"Name": "i", "DataType": "INT32", "Sizes": [], "Data": -1}, {"Name": "v", "DataType": "UINT8", "Data": [0, 7]},
               {"Name": "y", "Output": "hot.npy"}],
 "operators": [{"ONNX": {"op_type": "OneHot", "inputs": {"depth": 3}},
                "Bindings": {"indices": {"Resource": "i"}, "values": {"Resource": "v"}, "output": {"Resource": "y"}}}]}
EOF
expect "ONNX OneHot of a rank-0 index: output shape [depth]" 0 "y = UINT8 [3]" "$D" run "$T/hot.json" --backend cpu --output-dir "$T/o"
line "... index -1 is the last of depth 3" "  [0, 0, 7]"
sed 's#"INT32", "Sizes": \[\], "Data": -1#"FLOAT32", "Data": [1]#' "$T/hot.json" >"$T/hotf.json"
expect "ONNX OneHot of FLOAT32 indices: exit 2, UNSUPPORTED, naming the cast" 2 "cast them to INT64" "$D" run "$T/hotf.json"
sed 's#"inputs": {"depth": 3}#"inputs": {"depth": 3}, "attributes": {"axis": 2}#' "$T/hot.json" >"$T/hotaxis.json"
expect "ONNX OneHot with axis out of range: exit 2 naming axis" 2 "ONNX OneHot: axis = 2 is out of range [-1, 0]" \
    "$D" run "$T/hotaxis.json"

# ---- run: DirectML DxDispatch models -----------------------------------------------------
# examples/dxdispatch holds one model per example of the DirectML pages. The lines each
# must print were computed by hand from the pages' examples, not taken from the tool.
X=examples/dxdispatch
cat >"$T/dxd_expected" <<'EOF'
reverse_axis3|Resource 'input': 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12
reverse_axis3|Resource 'output': 2, 1, 3, 4, 8, 7, 6, 5, 11, 10, 9, 12
reverse_axis2|Resource 'lengths': 2, 3, 1, 0
reverse_axis2|Resource 'output': 5, 10, 3, 4, 1, 6, 7, 8, 9, 2, 11, 12
slice_strides|Resource 'output': 2, 4, 10, 12
slice_negative_stride|Resource 'output': 0, 0, 0, 0, 14, 16, 6, 8
slice_legacy|Resource 'output': 2, 4, 10, 12
one_hot_axis3|Resource 'output': 1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0
one_hot_axis2|Resource 'output': 1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0
one_hot_values|Resource 'output': 2, 4, 4, 4, 4, 4, 4, 2, 4, 4, 2, 4
one_hot_negative|Resource 'indices': -3, 100, 3
one_hot_negative|Resource 'output': 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1
EOF
dispatch_re="^Dispatch '[^']*': 1 iterations, [0-9]+\.[0-9]{4} ms median \(CPU\)(, [0-9]+\.[0-9]{6} ms median \(GPU\))?\$"
for backend in $backends; do
    for model in "$X"/*.json; do
        name=$(basename "$model" .json)
        grep "^$name|" "$T/dxd_expected" | cut -d'|' -f2- >"$T/want"
        if ! "$D" run "$model" --backend "$backend" --output-dir "$T/dxo" >"$T/out" 2>&1; then
            fail "DxDispatch $name on $backend" "$T/out"
        elif [ ! -s "$T/want" ]; then
            fail "DxDispatch $name on $backend: the test has no expected lines for it"
        elif ! grep "^Resource '" "$T/out" | grep -v "' written to '" | cmp -s - "$T/want"; then
            { echo "     expected:"; cat "$T/want"; } >>"$T/out"
            fail "DxDispatch $name on $backend prints the documented values" "$T/out"
        elif [ "$(grep -cE "$dispatch_re" "$T/out")" -ne "$(grep -c '^Dispatch ' "$T/out")" ] || ! grep -q '^Dispatch ' "$T/out"; then
            fail "DxDispatch $name on $backend: the Dispatch line has DxDispatch's form" "$T/out"
        else
            ok "DxDispatch $name on $backend prints the documented values"
        fi
    done
done
if [ -f "$T/dxo/slice_strides_output.npy" ] && npy_same "$T/dxo/slice_strides_output.npy" "$M/expected/slice_strides.npy"; then
    ok "DxDispatch writeFile with dimensions writes the .npy"
else
    fail "DxDispatch writeFile with dimensions writes the .npy"
fi
if [ "$vulkan" = yes ] && "$D" info --backend vulkan | grep -q 'features.*TIMESTAMPS'; then
    expect "DxDispatch on a device with timestamps: CPU and GPU medians" 0 "ms median (CPU), " \
        "$D" run "$X/slice_strides.json" --backend vulkan --output-dir "$T/dxo"
fi
out=$("$D" run "$X/slice_strides.json" --backend cpu --output-dir "$T/dxo" 2>&1)
if echo "$out" | grep -Eq "^Dispatch 'slice': 1 iterations, [0-9.]+ ms median \(CPU\), [0-9.]+ ms median \(GPU\)\$"; then
    ok "DxDispatch timing line is whole on the CPU backend too (spec/dxdispatch.md)"
else
    fail "DxDispatch timing line is whole on the CPU backend too (spec/dxdispatch.md)"
    echo "$out" | sed 's/^/     | /' | head -5
fi
expect "-i sets the dispatch iterations" 0 "Dispatch 'slice': 3 iterations, " \
    "$D" run "$X/slice_legacy.json" -i 3
expect "--dispatch_iterations sets them too" 0 "Dispatch 'one_hot': 2 iterations, " \
    "$D" run "$X/one_hot_axis3.json" --dispatch_iterations=2
expect "-i 0 is refused" 2 "expected a count from 1" "$D" run "$X/one_hot_axis3.json" -i 0

# Resources keep their contents from one command to the next; raw writeFile.
cat >"$T/chain.json" <<'EOF'
{"resources": {"x": {"initialValuesDataType": "FLOAT32", "initialValues": [1, 2, 3, 4]},
               "y": {"initialValuesDataType": "FLOAT32", "initialValues": {"valueCount": 4, "value": 0}},
               "z": {"initialValuesDataType": "FLOAT32", "initialValues": {"valueCount": 4, "value": 0}}},
 "dispatchables": {"flip": {"type": "SLICE1", "desc": {
     "InputTensor": {"DataType": "FLOAT32", "Sizes": [4]}, "OutputTensor": {"DataType": "FLOAT32", "Sizes": [4]},
     "DimensionCount": 1, "InputWindowOffsets": [0], "InputWindowSizes": [4], "InputWindowStrides": [-1]}}},
 "commands": [{"type": "dispatch", "dispatchable": "flip", "bindings": {"InputTensor": "x", "OutputTensor": "y"}},
              {"type": "print", "resource": "y"},
              {"type": "dispatch", "dispatchable": "flip", "bindings": {"InputTensor": "y", "OutputTensor": "z"}},
              {"type": "print", "resource": "z"},
              {"type": "writeFile", "resource": "y", "targetPath": "y.bin"}]}
EOF
if "$D" run "$T/chain.json" --output-dir "$T/dxo" >"$T/out" 2>&1 && grep -qx "Resource 'y': 4, 3, 2, 1" "$T/out" \
    && grep -qx "Resource 'z': 1, 2, 3, 4" "$T/out" && [ "$(od -An -tf4 "$T/dxo/y.bin" | tr -s ' ')" = " 4 3 2 1" ]; then
    ok "DxDispatch resources keep their contents between commands; writeFile .bin writes raw bytes"
else
    fail "DxDispatch resources keep their contents between commands; writeFile .bin writes raw bytes" "$T/out"
fi

# dxd FILE RESOURCES DISPATCHABLE_DESC BINDINGS: a one-dispatch model printing "out".
dxd() {
    cat >"$1" <<EOF
{"resources": {$2},
 "dispatchables": {"op": $3},
 "commands": [{"type": "dispatch", "dispatchable": "op", "bindings": {$4}}, {"type": "print", "resource": "out"}]}
EOF
}
copy4='{"type": "SLICE1", "desc": {"InputTensor": {"DataType": "UINT32", "Sizes": [4]}, "OutputTensor": {"DataType": "UINT32", "Sizes": [4]}, "DimensionCount": 1, "InputWindowOffsets": [0], "InputWindowSizes": [4], "InputWindowStrides": [1]}}'
dxd "$T/reinterpret.json" '"in": {"initialValuesDataType": "FLOAT32", "initialValues": [1, 2, 0.5, -2]},
    "out": {"initialValuesDataType": "UINT32", "initialValues": {"valueCount": 4, "value": 0}, "sizeInBytes": 64}' \
    "$copy4" '"InputTensor": "in", "OutputTensor": "out"'
expect "DxDispatch: a FLOAT32 resource read as UINT32 (reinterpretation is allowed)" 0 \
    "Resource 'out': 1065353216, 1073741824, 1056964608, 3221225472" "$D" run "$T/reinterpret.json"
copy2='{"type": "SLICE1", "desc": {"InputTensor": {"DataType": "UINT32", "Sizes": [2]}, "OutputTensor": {"DataType": "UINT32", "Sizes": [2]}, "DimensionCount": 1, "InputWindowOffsets": [0], "InputWindowSizes": [2], "InputWindowStrides": [1]}}'
# 4 elements of the bound UINT32 tensor are 16 bytes (offsets are multiples of 16): bytes
# 16..23 of the UINT8 resource, read as UINT32. Counted in the resource's UINT8 elements,
# 4 would be byte 4 (misaligned), and 16 would put the tensor past the resource's end.
dxd "$T/eoffset.json" '"in": {"initialValuesDataType": "UINT8", "initialValues": {"valueCount": 32, "valueStart": 0, "valueDelta": 1}},
    "out": {"initialValuesDataType": "UINT32", "initialValues": [0, 0]}' "$copy2" '"InputTensor": {"name": "in", "elementOffset": 4}, "OutputTensor": "out"'
expect "DxDispatch: elementOffset counts elements of the bound tensor's type (spec/dxdispatch.md)" 0 \
    "Resource 'out': 319951120, 387323156" "$D" run "$T/eoffset.json"
dxd "$T/small.json" '"in": {"initialValuesDataType": "UINT32", "initialValues": [1, 2, 3, 4]},
    "out": {"initialValuesDataType": "UINT32", "initialValues": [0, 0, 0]}' "$copy4" '"InputTensor": "in", "OutputTensor": "out"'
expect "DxDispatch: a binding larger than its resource is an error" 2 \
    "\$.commands[0].bindings.OutputTensor: OutputTensor needs 16 bytes at offset 0, but resource \"out\" holds 12 bytes" \
    "$D" run "$T/small.json"
dxd "$T/offset.json" '"in": {"initialValuesDataType": "UINT32", "initialValues": [1, 2, 3, 4]},
    "out": {"initialValuesDataType": "UINT32", "initialValues": [0, 0, 0, 0]}' "$copy4" \
    '"InputTensor": "in", "OutputTensor": {"name": "out", "elementOffset": 1}'
expect "DxDispatch: elementOffset that pushes the tensor past the resource is an error" 2 \
    "OutputTensor needs 16 bytes at offset 4, but resource \"out\" holds 16 bytes" "$D" run "$T/offset.json"
dxd "$T/twice.json" '"in": {"initialValuesDataType": "UINT32", "initialValues": [1, 2, 3, 4]},
    "out": {"initialValuesDataType": "UINT32", "initialValues": [0, 0, 0, 0]}' "$copy4" '"InputTensor": ["in", "in"], "OutputTensor": "out"'
expect "DxDispatch: two resources on one bind point" 2 "bind point InputTensor takes 1 resource, but 2 were bound" \
    "$D" run "$T/twice.json"
dxd "$T/bindpoint.json" '"in": {"initialValuesDataType": "UINT32", "initialValues": [1, 2, 3, 4]},
    "out": {"initialValuesDataType": "UINT32", "initialValues": [0, 0, 0, 0]}' "$copy4" '"Input": "in", "OutputTensor": "out"'
expect "DxDispatch: an unknown bind point" 2 "unknown bind point \"Input\" (SLICE1 has InputTensor, OutputTensor)" \
    "$D" run "$T/bindpoint.json"
dxd "$T/gemm.json" '"out": {"initialValuesDataType": "FLOAT32", "initialValues": [0]}' \
    '{"type": "DML_OPERATOR_GEMM", "desc": {}}' '"OutputTensor": "out"'
expect "DxDispatch: another operator type exits 2 naming it" 2 "\$.dispatchables.op.type: \"DML_OPERATOR_GEMM\" is not supported" \
    "$D" run "$T/gemm.json"
dxd "$T/hlsl.json" '"out": {"initialValuesDataType": "FLOAT32", "initialValues": [0]}' \
    '{"type": "hlsl", "sourcePath": "add.hlsl", "compiler": "dxc"}' '"output": "out"'
expect "DxDispatch: an HLSL dispatchable exits 2 naming it" 2 "\"hlsl\" dispatchables are not supported" "$D" run "$T/hlsl.json"
dxd "$T/image.json" '"out": {"initialValuesDataType": "FLOAT32", "initialValues": {"sourcePath": "cat.png"}}' "$copy4" '"OutputTensor": "out"'
expect "DxDispatch: an image initializer exits 2 naming it" 2 "cat.png: image initializers are not supported" \
    "$D" run "$T/image.json"
dxd "$T/list.json" '"out": {"initialValuesDataType": "UNKNOWN", "initialValues": [{"type": "UINT32", "value": 6}]}' "$copy4" '"OutputTensor": "out"'
expect "DxDispatch: the list initializer exits 2 naming it" 2 "the list initializer (initialValuesDataType UNKNOWN" \
    "$D" run "$T/list.json"
dxd "$T/deferred.json" '"out": {"initialValuesDataType": "FLOAT32", "initialValues": "deferred"}' "$copy4" '"OutputTensor": "out"'
expect "DxDispatch: a deferred resource exits 2 naming it" 2 "\"deferred\" resources" "$D" run "$T/deferred.json"
dxd "$T/wrap.json" '"out": {"initialValuesDataType": "UINT8", "initialValues": {"valueCount": 300, "valueStart": 0, "valueDelta": 1}}' \
    "$copy4" '"OutputTensor": "out"'
# The print shows "in" itself: copy its first element to "out" and print "in".
u8op() { # N TYPE: SLICE1 copying N elements of TYPE
    echo '{"type": "SLICE1", "desc": {"InputTensor": {"DataType": "'"$2"'", "Sizes": ['"$1"']}, "OutputTensor": {"DataType": "'"$2"'", "Sizes": ['"$1"']}, "DimensionCount": 1, "InputWindowOffsets": [0], "InputWindowSizes": ['"$1"'], "InputWindowStrides": [1]}}'
}
cat >"$T/wrap.json" <<'EOF'
{"resources": {"in": {"initialValuesDataType": "UINT8", "initialValues": {"valueCount": 300, "valueStart": 0, "valueDelta": 1}},
               "out": {"initialValuesDataType": "UINT8", "initialValues": {"valueCount": 4, "value": 0}}},
 "dispatchables": {"op": {"type": "SLICE1", "desc": {"InputTensor": {"DataType": "UINT8", "Sizes": [4]}, "OutputTensor": {"DataType": "UINT8", "Sizes": [4]}, "DimensionCount": 1, "InputWindowOffsets": [0], "InputWindowSizes": [4], "InputWindowStrides": [1]}}},
 "commands": [{"type": "dispatch", "dispatchable": "op", "bindings": {"InputTensor": "in", "OutputTensor": "out"}},
              {"type": "print", "resource": "in"}]}
EOF
expect "DxDispatch: a sequence wraps in its type, as DxDispatch's sums do" 0 "253, 254, 255, 0, 1, 2," "$D" run "$T/wrap.json"
# Values convert as a C cast would (spec/dxdispatch.md): truncated toward zero, wrapped.
dxd "$T/cast.json" '"in": {"initialValuesDataType": "UINT8", "initialValues": [1.9, -1, 300, -1.5, "0x1ff", 18446744073709551615]},
    "out": {"initialValuesDataType": "UINT8", "initialValues": {"valueCount": 6, "value": 0}}' \
    "$(u8op 6 UINT8)" '"InputTensor": "in", "OutputTensor": "out"'
expect "DxDispatch: UINT8 values cast as C casts them" 0 "Resource 'out': 1, 255, 44, 255, 255, 255" "$D" run "$T/cast.json"
dxd "$T/castseq.json" '"in": {"initialValuesDataType": "INT8", "initialValues": {"valueCount": 4, "valueStart": 126, "valueDelta": 1.7}},
    "out": {"initialValuesDataType": "INT8", "initialValues": {"valueCount": 4, "value": 0}}' \
    "$(u8op 4 INT8)" '"InputTensor": "in", "OutputTensor": "out"'
expect "DxDispatch: an INT8 sequence from 126 by 1.7 (a delta of 1) wraps" 0 "Resource 'out': 126, 127, -128, -127" "$D" run "$T/castseq.json"
dxd "$T/castnan.json" '"out": {"initialValuesDataType": "INT32", "initialValues": ["nan"]}' "$copy4" '"OutputTensor": "out"'
expect "DxDispatch: NaN into an integer type is refused" 2 "is not a number, which no integer type holds" "$D" run "$T/castnan.json"
dxd "$T/sizein.json" '"out": {"initialValuesDataType": "UINT32", "initialValues": [1, 2, 3], "sizeInBytes": 8}' "$copy4" '"OutputTensor": "out"'
expect "DxDispatch: sizeInBytes smaller than the initial values" 2 \
    "\$.resources.out.sizeInBytes: 8 bytes cannot hold the 12 bytes of initialValues" "$D" run "$T/sizein.json"
dxd "$T/nofile.json" '"out": {"initialValues": {"sourcePath": "nothere.npy"}}' "$copy4" '"OutputTensor": "out"'
expect "DxDispatch: a missing file" 2 "nothere.npy: cannot open" "$D" run "$T/nofile.json"
cp "$X/reverse_lengths_axis2.dat" "$T/lengths.dat"
dxd "$T/rawfile.json" '"in": {"initialValuesDataType": "UINT32", "initialValues": {"sourcePath": "lengths.dat"}},
    "out": {"initialValuesDataType": "UINT32", "initialValues": {"valueCount": 4, "value": 9}}' "$copy4" '"InputTensor": "in", "OutputTensor": "out"'
expect "DxDispatch: a raw .dat initializer" 0 "Resource 'out': 2, 3, 1, 0" "$D" run "$T/rawfile.json"
dxd "$T/rawnotype.json" '"in": {"initialValues": {"sourcePath": "lengths.dat"}},
    "out": {"initialValuesDataType": "UINT32", "initialValues": [0, 0, 0, 0]}' "$copy4" '"InputTensor": "in", "OutputTensor": "out"'
expect "DxDispatch: a raw file needs initialValuesDataType" 2 "a raw file needs \"initialValuesDataType\"" \
    "$D" run "$T/rawnotype.json"
dxd "$T/int64.json" '"in": {"initialValuesDataType": "INT64", "initialValues": [9007199254740993, -9223372036854775808, 5, 9223372036854775807]},
    "out": {"initialValuesDataType": "INT64", "initialValues": {"valueCount": 4, "valueStart": -2, "valueDelta": -3}}' \
    '{"type": "SLICE1", "desc": {"InputTensor": {"DataType": "INT64", "Sizes": [2]}, "OutputTensor": {"DataType": "INT64", "Sizes": [2]}, "DimensionCount": 1, "InputWindowOffsets": [0], "InputWindowSizes": [2], "InputWindowStrides": [1]}}' \
    '"InputTensor": "in", "OutputTensor": {"name": "out", "elementOffset": 2}'
expect "DxDispatch: 64-bit integers are exact; a sequence counts down" 0 \
    "Resource 'out': -2, -5, 9007199254740993, -9223372036854775808" "$D" run "$T/int64.json"
sed 's#"type": "print", "resource": "out"#"type": "Print", "resource": "out", "verbose": true#' "$T/int64.json" >"$T/verbose.json"
expect "DxDispatch: a verbose print shows each element with its bits, as DxDispatch pads them" 0 \
    "[2] 9007199254740993 (0x  20000000000001)" \
    "$D" run "$T/verbose.json"
sed 's#{"type": "print", "resource": "out"}#{"type": "printf", "resource": "out"}#' "$T/int64.json" >"$T/badcmd.json"
expect "DxDispatch: an unknown command" 2 "unknown command \"printf\" (expected dispatch, print or writeFile)" \
    "$D" run "$T/badcmd.json"
dxd "$T/int64low.json" '"in": {"initialValuesDataType": "INT64", "initialValues": [-9223372036854775809]},
    "out": {"initialValuesDataType": "INT64", "initialValues": [0]}' "$copy4" '"InputTensor": "in", "OutputTensor": "out"'
expect "DxDispatch: an integer just below -2^63 is refused, not rounded onto -2^63" 2 \
    "-9223372036854775809 is beyond every 64-bit integer" "$D" run "$T/int64low.json"
# Names are any JSON strings, the empty one included (spec/dxdispatch.md).
cat >"$T/emptyname.json" <<'EOF'
{"resources": {"": {"initialValuesDataType": "UINT32", "initialValues": [7, 8, 9, 10]},
               "out": {"initialValuesDataType": "UINT32", "initialValues": [0, 0, 0, 0]}},
 "dispatchables": {"": {"type": "SLICE1", "desc": {"InputTensor": {"DataType": "UINT32", "Sizes": [4]}, "OutputTensor": {"DataType": "UINT32", "Sizes": [2]}, "InputWindowOffsets": [1], "InputWindowSizes": [2], "InputWindowStrides": [-1]}}},
 "commands": [{"type": "dispatch", "dispatchable": "", "bindings": {"InputTensor": "", "OutputTensor": "out"}},
              {"type": "print", "resource": "out"}, {"type": "print", "resource": ""}]}
EOF
expect "DxDispatch: a resource and a dispatchable named \"\"" 0 "Resource 'out': 9, 8, 0, 0" "$D" run "$T/emptyname.json"
# writeFile dimensions: a 0 among them makes an empty array however large the rest; a shape
# past what a .npy can describe is refused before anything runs.
sed 's#{"type": "print", "resource": "out"}#{"type": "writeFile", "resource": "out", "targetPath": "empty.npy", "dimensions": [3, 0, 7]}#' \
    "$T/int64.json" >"$T/wempty.json"
expect "DxDispatch: writeFile with a 0 dimension writes an empty array" 0 "" "$D" run "$T/wempty.json" --output-dir "$T/we"
if [ -f "$T/we/empty.npy" ] && head -c 80 "$T/we/empty.npy" | grep -q "'shape': (3, 0, 7)"; then
    ok "DxDispatch: the empty array's shape is (3, 0, 7)"
else
    fail "DxDispatch: the empty array's shape is (3, 0, 7)"
fi
sed 's#{"type": "print", "resource": "out"}#{"type": "writeFile", "resource": "out", "targetPath": "huge.npy", "dimensions": [65536, 65536, 65536, 65536, 0]}#' \
    "$T/int64.json" >"$T/whuge.json"
expect "DxDispatch: writeFile dimensions past 2^63 bytes are refused" 2 \
    "the nonzero dimensions multiply past 2^60 elements" "$D" run "$T/whuge.json" --output-dir "$T/we"
touch "$T/we/afile"
sed 's#{"type": "print", "resource": "out"}#{"type": "writeFile", "resource": "out", "targetPath": "afile/x.npy"}#' \
    "$T/int64.json" >"$T/wunder.json"
expect "DxDispatch: a writeFile target under a file names the command" 2 'wunder.json: $.commands[' \
    "$D" run "$T/wunder.json" --output-dir "$T/we"
mkdir -p "$T/we/adir"
sed 's#{"type": "print", "resource": "out"}#{"type": "writeFile", "resource": "out", "targetPath": "adir"}#' \
    "$T/int64.json" >"$T/wdir.json"
expect "DxDispatch: a writeFile target that is a directory exits 2" 2 'adir: is a directory' \
    "$D" run "$T/wdir.json" --output-dir "$T/we"
sed 's#{"type": "print", "resource": "out"}#{"type": "writeFile", "resource": "out", "targetPath": "o.png"}#' "$T/int64.json" >"$T/png.json"
expect "DxDispatch: writing an image exits 2" 2 "o.png: writing images is not supported" "$D" run "$T/png.json"
mkdir -p "$T/sub"
sed "s#lengths.dat#$X/reverse_lengths_axis2.dat#" "$T/rawfile.json" >"$T/sub/cwd.json"
expect "DxDispatch: a sourcePath not beside the model is tried in the current directory" 0 "Resource 'out': 2, 3, 1, 0" \
    "$D" run "$T/sub/cwd.json"

# Models with no value say why.
printf '  \n\t ' >"$T/blank.json"
expect "a model of white space says so" 2 "no JSON value: the file holds only white space" "$D" run "$T/blank.json"
printf '/* never closed {"resources": []}' >"$T/opencomment.json"
expect "a comment that is never closed says so" 2 "a /* comment is not closed" "$D" run "$T/opencomment.json"
if [ -e /dev/zero ]; then
    expect "an endless model (/dev/zero) is refused at its first byte, which no JSON holds" 2 \
        "/dev/zero: a NUL byte at offset 0: not a JSON text" timeout 60 "$D" run /dev/zero
fi
# A model file past 256 MiB is refused before it is read (a sparse file: no disk taken).
if truncate -s 300M "$T/huge.json" 2>/dev/null; then
    expect "a model of 300 MiB is refused before it is read" 2 "it holds 300 MiB, more than a model may (256 MiB)" \
        timeout 20 "$D" run "$T/huge.json"
    rm -f "$T/huge.json"
fi

# ---- robustness (issue 11, section 3) ----------------------------------------------------
# mknpy FILE DESCR SHAPE BYTES: a version 1.0 .npy holding BYTES zero bytes of data.
mknpy() {
    h="{'descr': '$2', 'fortran_order': False, 'shape': $3, }"
    printf "\\223NUMPY\\001\\000\\$(printf %o $((${#h} + 1)))\\000%s\\n" "$h" >"$1"
    head -c "$4" /dev/zero >>"$1"
}

for sub in run info bench; do
    for h in --help -h; do
        if "$D" "$sub" "$h" >"$T/help" 2>"$T/err" && grep -q "^usage: dmlops $sub" "$T/help" && [ ! -s "$T/err" ]; then
            ok "$sub $h prints its usage on stdout with status 0"
        else
            fail "$sub $h prints its usage on stdout with status 0" "$T/err"
        fi
    done
done
expect "dmlops -V prints the version" 0 "dmlops 1." "$D" -V
expect "dmlops --version prints the version" 0 "dmlops 1." "$D" --version

printf '{"resources": [] "operators":\n  []}\n' >"$T/syntax2.json"
"$D" run "$T/syntax2.json" >/dev/null 2>"$T/err"
rc=$?
if [ "$rc" -eq 2 ] && [ "$(wc -l <"$T/err")" -eq 1 ] && grep -q 'syntax2.json:1:18: ' "$T/err"; then
    ok "a JSON syntax error is one line with line:column"
else
    echo "     status $rc" >>"$T/err"
    fail "a JSON syntax error is one line with line:column" "$T/err"
fi

cat >"$T/axis.json" <<'EOF'
{"resources": [{"Name": "x", "DataType": "FLOAT32", "Data": [1, 2, 3]},
               {"Name": "l", "DataType": "UINT32", "Data": [2]}, {"Name": "y"}],
 "operators": [{"Type": "REVERSE_SUBSEQUENCES", "InputTensor": {"DataType": "FLOAT32", "Sizes": [3]},
                "SequenceLengthsTensor": {"DataType": "UINT32", "Sizes": [1]},
                "OutputTensor": {"DataType": "FLOAT32", "Sizes": [3]}, "Axis": -1,
                "Bindings": {"InputTensor": {"Resource": "x"}, "SequenceLengthsTensor": {"Resource": "l"},
                             "OutputTensor": {"Resource": "y"}}}]}
EOF
expect "Axis -1: DirectML's Axis is an unsigned index from the first dimension" 2 \
    "\$.operators[0].Axis: -1: DirectML's Axis is an unsigned dimension index, counted from the first dimension" \
    "$D" run "$T/axis.json"

if has_python; then
    for how in "--backend cpu" "DMLOPS_BACKEND=cpu"; do
        if [ "$how" = "--backend cpu" ]; then "$D" info --json --backend cpu >"$T/info.json" 2>"$T/err"
        else env DMLOPS_BACKEND=cpu "$D" info --json >"$T/info.json" 2>"$T/err"; fi
        if python3 -c 'import json,sys; c=json.load(sys.stdin)["context"]; assert c["backend"] == "cpu" and c["cpu_fallback"] is False, c' \
            <"$T/info.json" 2>"$T/err"; then
            ok "info --json with $how: the CPU was asked for, so cpu_fallback is false"
        else
            fail "info --json with $how: the CPU was asked for, so cpu_fallback is false" "$T/err"
        fi
    done
    env VK_ICD_FILENAMES=/nonexistent/icd.json VK_DRIVER_FILES=/nonexistent/icd.json "$D" info --json >"$T/info.json" 2>"$T/err"
    if python3 -c 'import json,sys; c=json.load(sys.stdin)["context"]; assert c["backend"] == "cpu" and c["cpu_fallback"] is True, c' \
        <"$T/info.json" 2>"$T/err"; then
        ok "info --json without a Vulkan driver: cpu_fallback is true"
    else
        fail "info --json without a Vulkan driver: cpu_fallback is true" "$T/err"
    fi
fi

# 1 PiB tensors: refused at once with status 2, never allocated. Every operator is checked
# before any buffer exists (here DirectML's limit of 2^32 - 1 elements), then every buffer
# against the memory it would live in (here a TotalTensorSizeInBytes of 1 PiB).
cat >"$T/huge.json" <<'EOF'
{"resources": [{"Name": "x"}, {"Name": "y"}],
 "operators": [{"Type": "SLICE1",
   "InputTensor": {"DataType": "FLOAT32", "Sizes": [65536, 65536, 65536]},
   "OutputTensor": {"DataType": "FLOAT32", "Sizes": [65536, 65536, 65536]},
   "InputWindowOffsets": [0, 0, 0], "InputWindowSizes": [65536, 65536, 65536], "InputWindowStrides": [1, 1, 1],
   "Bindings": {"InputTensor": {"Resource": "x"}, "OutputTensor": {"Resource": "y"}}}]}
EOF
sed 's#"Sizes": \[65536, 65536, 65536\]}#"Sizes": [4], "TotalTensorSizeInBytes": 1125899906842624}#; s#"OutputTensor": {"DataType": "FLOAT32", "Sizes": \[4\], "TotalTensorSizeInBytes": 1125899906842624}#"OutputTensor": {"DataType": "FLOAT32", "Sizes": [4]}#; s#\[65536, 65536, 65536\]#[4]#; s#\[0, 0, 0\]#[0]#; s#\[1, 1, 1\]#[1]#' \
    "$T/huge.json" >"$T/huge_total.json"
for backend in $backends; do
    expect "Sizes [65536, 65536, 65536] on $backend: the operator's error at once, before any buffer" 2 \
        "huge.json: \$.operators[0]: DMLOPS_ERROR_INVALID_ARGUMENT: SLICE1: InputTensor has more than 2^32 - 1 elements" \
        timeout 60 "$D" run "$T/huge.json" --backend "$backend"
    expect "a 1 PiB binding on $backend: refused before any buffer" 2 \
        "huge_total.json: \$.resources[0] (x): 1 PiB (1125899906842624 bytes) exceeds the" \
        timeout 60 "$D" run "$T/huge_total.json" --backend "$backend"
done
expect "a 1 PiB binding on the CPU: the message says the buffer exceeds host memory" 2 \
    "(x): 1 PiB (1125899906842624 bytes) exceeds the host memory" timeout 60 "$D" run "$T/huge_total.json" --backend cpu
sed 's#{"Name": "y"}#{"Name": "y"}, {"Name": "big", "SizeInBytes": 1000000000000000}#' "$T/good.json" >"$T/bigsize.json"
expect "SizeInBytes of 1 PB: exit 2 naming the resource" 2 \
    "\$.resources[2] (big): 909.5 TiB (1000000000000000 bytes) exceeds the host memory" \
    timeout 60 "$D" run "$T/bigsize.json" --backend cpu

# Input files that do not fit the tensor bound to them.
mknpy "$T/i32.npy" '<i4' '(2, 3)' 24
mknpy "$T/empty.npy" '<f4' '(0, 6)' 0
mknpy "$T/f16.npy" '<f2' '(6,)' 12
mknpy "$T/f32.npy" '<f4' '(8,)' 32
slice6() { # FILE NPY TYPE: SLICE1 copying a [2, 3] tensor of TYPE from NPY
    cat >"$1" <<EOF
{"resources": [{"Name": "x", "File": "$2"}, {"Name": "y"}],
 "operators": [{"Type": "SLICE1", "InputTensor": {"DataType": "$3", "Sizes": [2, 3]},
   "OutputTensor": {"DataType": "$3", "Sizes": [2, 3]}, "InputWindowOffsets": [0, 0],
   "InputWindowSizes": [2, 3], "InputWindowStrides": [1, 1],
   "Bindings": {"InputTensor": {"Resource": "x"}, "OutputTensor": {"Resource": "y"}}}]}
EOF
}
slice6 "$T/in_i32.json" i32.npy INT64
expect "an int32 file bound to an INT64 tensor: exit 2 naming both" 2 \
    "\$.operators[0].Bindings.InputTensor: $T/i32.npy holds INT32 [2, 3] (24 bytes), but InputTensor is INT64 [2, 3] (48 bytes)" \
    "$D" run "$T/in_i32.json"
slice6 "$T/in_empty.json" empty.npy FLOAT32
expect "a (0, 6) file bound to a [2, 3] tensor: exit 2 naming both" 2 \
    "$T/empty.npy holds FLOAT32 [0, 6] (0 bytes), but InputTensor is FLOAT32 [2, 3] (24 bytes)" \
    "$D" run "$T/in_empty.json"
slice6 "$T/in_f16.json" f16.npy FLOAT32
expect "a float16 file bound to a FLOAT32 tensor: exit 2 naming both" 2 \
    "$T/f16.npy holds FLOAT16 [6] (12 bytes), but InputTensor is FLOAT32 [2, 3] (24 bytes)" \
    "$D" run "$T/in_f16.json"
slice6 "$T/in_f32.json" f32.npy FLOAT32
expect "a larger file of the same type still runs" 0 "[[0, 0, 0]," "$D" run "$T/in_f32.json" --output-dir "$T/o"

# A UINT8 [3] tensor reads 3 bytes, though its binding (TotalTensorSizeInBytes) is 4: Data of
# 3 bytes is enough, 2 are not.
slice_u8() { # FILE N DATA: SLICE1 reversing a UINT8 [3] tensor bound to N bytes of Data
    cat >"$1" <<EOF
{"resources": [{"Name": "x", "DataType": "UINT8", "Sizes": [$2], "Data": [$3]}, {"Name": "y"}],
 "operators": [{"Type": "SLICE1", "InputTensor": {"DataType": "UINT8", "Sizes": [3]},
   "OutputTensor": {"DataType": "UINT8", "Sizes": [3]}, "InputWindowOffsets": [0],
   "InputWindowSizes": [3], "InputWindowStrides": [-1],
   "Bindings": {"InputTensor": {"Resource": "x"}, "OutputTensor": {"Resource": "y"}}}]}
EOF
}
slice_u8 "$T/u8_3.json" 3 "7, 8, 9"
expect "UINT8 Data of 3 bytes for a [3] tensor (a 4-byte binding) runs" 0 "[9, 8, 7]" "$D" run "$T/u8_3.json"
slice_u8 "$T/u8_2.json" 2 "7, 8"
expect "UINT8 Data of 2 bytes for a [3] tensor: exit 2 naming the 3 bytes it reads" 2 \
    "the Data of resource \"x\" holds UINT8 [2] (2 bytes), but InputTensor is UINT8 [3] (3 bytes)" \
    "$D" run "$T/u8_2.json"

# A write that fails (the file size limit) leaves the previous file whole, and no temporary.
# SIGXFSZ is left at its default here (it kills): the tool must ignore it itself.
mknpy "$T/in1024.npy" '<f4' '(1024,)' 4096
cat >"$T/w1024.json" <<'EOF'
{"resources": [{"Name": "x", "File": "in1024.npy"}, {"Name": "y", "Output": "out1024.npy"}],
 "operators": [{"Type": "SLICE1", "InputTensor": {"DataType": "FLOAT32", "Sizes": [1024]},
   "OutputTensor": {"DataType": "FLOAT32", "Sizes": [1024]}, "InputWindowOffsets": [0],
   "InputWindowSizes": [1024], "InputWindowStrides": [-1],
   "Bindings": {"InputTensor": {"Resource": "x"}, "OutputTensor": {"Resource": "y"}}}]}
EOF
mkdir -p "$T/wo"
printf 'the previous output\n' >"$T/wo/out1024.npy"
(ulimit -f 1; exec "$D" run "$T/w1024.json" --backend cpu --output-dir "$T/wo") >"$T/out" 2>&1
rc=$?
if [ "$rc" -eq 1 ] && [ "$(cat "$T/wo/out1024.npy")" = "the previous output" ] && [ "$(ls -A "$T/wo")" = out1024.npy ]; then
    ok "a failed write keeps the previous file and leaves no temporary"
else
    { echo "     status $rc; $T/wo holds:"; ls -lA "$T/wo"; } >>"$T/out"
    fail "a failed write keeps the previous file and leaves no temporary" "$T/out"
fi
# Where the output goes: through a symbolic link (the file it names is written, the link
# stays), into a device node (written in place, not replaced by a file), under a name of
# 250 characters (the temporary beside it must still fit the file system's limit).
mkdir -p "$T/wl"
printf 'old\n' >"$T/wl/real.npy"
ln -s real.npy "$T/wl/out1024.npy"
expect "an output through a symbolic link" 0 "wrote" "$D" run "$T/w1024.json" --backend cpu --output-dir "$T/wl"
if [ -L "$T/wl/out1024.npy" ] && [ "$(wc -c <"$T/wl/real.npy")" -eq 4224 ] && [ "$(ls -A "$T/wl" | wc -l)" -eq 2 ]; then
    ok "the link stays and the file it names holds the output"
else
    ls -lA "$T/wl" >"$T/out"
    fail "the link stays and the file it names holds the output" "$T/out"
fi
# (A FIFO with a reader stands for /dev/null, so that a regression replaces nothing of the
# machine's.)
mkfifo "$T/fifo"
sed "s|\"Output\": \"out1024.npy\"|\"Output\": \"$T/fifo\"|" "$T/w1024.json" >"$T/wfifo.json"
(timeout 20 cat "$T/fifo" >"$T/fifo.out") &
reader=$!
expect "an output into a FIFO" 0 "wrote $T/fifo" timeout 20 "$D" run "$T/wfifo.json" --backend cpu --allow-any-output-path
wait "$reader"
if [ -p "$T/fifo" ] && [ "$(wc -c <"$T/fifo.out")" -eq 4224 ]; then
    ok "the FIFO stays a FIFO and its reader gets the output"
else
    { ls -lA "$T/fifo"; wc -c "$T/fifo.out"; } >"$T/out" 2>&1
    fail "the FIFO stays a FIFO and its reader gets the output" "$T/out"
fi
long=$(printf '%0250d' 0 | tr 0 n)
sed "s|\"Output\": \"out1024.npy\"|\"Output\": \"$long\"|" "$T/w1024.json" >"$T/wlong.json"
mkdir -p "$T/wn"
expect "an output named with 250 characters" 0 "wrote" "$D" run "$T/wlong.json" --backend cpu --output-dir "$T/wn"
expect "a standard output that cannot be written: exit 1" 1 "writing standard output" \
    sh -c '"$1" run "$2" --backend cpu --output-dir "$3" >/dev/full' sh "$D" "$T/w1024.json" "$T/wf"
# copy1d FILE TYPE N RESOURCES IN OUT: a model of our format over RESOURCES whose one
# operator, a SLICE1, copies N elements of TYPE from binding IN to binding OUT.
copy1d() {
    cat >"$1" <<EOF
{"resources": [$4],
 "operators": [{"Type": "SLICE1", "InputTensor": {"DataType": "$2", "Sizes": [$3]},
   "OutputTensor": {"DataType": "$2", "Sizes": [$3]}, "InputWindowOffsets": [0],
   "InputWindowSizes": [$3], "InputWindowStrides": [1],
   "Bindings": {"InputTensor": $5, "OutputTensor": $6}}]}
EOF
}
# An output of no elements prints [] however long its other extents.
copy1d "$T/zero.json" FLOAT32 4 '{"Name": "in", "DataType": "FLOAT32", "Data": [1, 2, 3, 4]},
  {"Name": "out", "DataType": "FLOAT32", "Sizes": [4294967295, 0], "SizeInBytes": 16}' \
    '{"Resource": "in"}' '{"Resource": "out"}'
expect "an output of shape [4294967295, 0] prints []" 0 "FLOAT32 [4294967295, 0]" \
    timeout 20 "$D" run "$T/zero.json" --backend cpu
if [ "$(wc -c <"$T/out")" -lt 2000 ] && grep -qx '  \[\]' "$T/out"; then ok "and prints only []"; else fail "and prints only []" "$T/out"; fi
# Every error is one line, even when a name in it holds a newline.
nl='
'
printf '{"resources": [' >"$T/bad${nl}name.json"
"$D" run "$T/bad${nl}name.json" >"$T/out" 2>&1
rc=$?
if [ "$rc" -eq 2 ] && [ "$(wc -l <"$T/out")" -eq 1 ]; then ok "an error naming a file with a newline is one line"
else echo "     status $rc" >>"$T/out"; fail "an error naming a file with a newline is one line" "$T/out"; fi
# Input that never ends (/dev/zero) was read until memory ran out (2 GB before failing,
# issue 45): a .npy is read header first, so its first bytes refuse it at once, exit 2.
sed 's|"File": "in1024.npy"|"File": "/dev/zero"|' "$T/w1024.json" >"$T/wzero.json"
expect "an input that never ends (/dev/zero) is refused at its first bytes" 2 \
    '$.resources[0].File: /dev/zero: not a .npy file (bad magic)' timeout 20 "$D" run "$T/wzero.json" --backend cpu
# Integer text is decimal, or hexadecimal after 0x; a leading zero is not octal.
copy1d "$T/ints.json" INT32 4 '{"Name": "in", "DataType": "INT32", "Data": ["010", "0x10", "-010", "-0x10"]},
  {"Name": "out", "DataType": "INT32", "Sizes": [4]}' '{"Resource": "in"}' '{"Resource": "out"}'
expect "integer strings: \"010\" is ten, \"0x10\" sixteen" 0 "[10, 16, -10, -16]" "$D" run "$T/ints.json" --backend cpu
expect "-i 08 is eight iterations" 0 "timing, 8 iterations" "$D" run "$T/ints.json" --backend cpu -i 08
# Every DirectML rule is the library's to judge (docs/cli.md): where the tool cannot size a
# resource from its binding, or the binding does not fit a SizeInBytes given, the run stops
# with the library's own message, as a program would get it.
copy1d "$T/ovf.json" FLOAT32 4 '{"Name": "in", "DataType": "FLOAT32", "Data": [1, 2, 3, 4]}, {"Name": "out"}' \
    '{"Resource": "in"}' '{"Resource": "out", "Offset": 18446744073709551615}'
expect "an Offset that passes 2^64: the library's message" 2 \
    'binding outputs[0] (OutputTensor) offset = 18446744073709551615 is not a multiple of 16' \
    "$D" run "$T/ovf.json" --backend cpu
copy1d "$T/short.json" FLOAT32 4 '{"Name": "in", "DataType": "FLOAT32", "Data": [1, 2, 3, 4]}, {"Name": "out", "SizeInBytes": 12}' \
    '{"Resource": "in"}' '{"Resource": "out"}'
expect "SizeInBytes below the output tensor: the library's message" 2 \
    'binding outputs[0] (OutputTensor) range [0, 0 + 16) exceeds the buffer size 12' "$D" run "$T/short.json" --backend cpu
sed 's/"OutputTensor": {"DataType": "FLOAT32", "Sizes": \[4\]}/"OutputTensor": {"DataType": "FLOAT32", "Sizes": [0]}/' \
    "$T/ovf.json" | sed 's/, "Offset": 18446744073709551615//' >"$T/size0.json"
expect "an output of size 0: the library's message" 2 'OutputTensor.Sizes[0] = 0 is invalid' \
    "$D" run "$T/size0.json" --backend cpu
sed 's/"OutputTensor": {"DataType": "FLOAT32"/"OutputTensor": {"DataType": 99/' "$T/size0.json" |
    sed 's/"Sizes": \[0\]}/"Sizes": [4]}/' >"$T/dtype99.json"
expect "a raw DataType 99: the library's message" 2 'OutputTensor.DataType = 99 is not a data type' \
    "$D" run "$T/dtype99.json" --backend cpu
sed 's/"Name": "out"}/"Name": "out", "SizeInBytes": 1e16}/; s/, "Offset": 18446744073709551615//' "$T/ovf.json" >"$T/e16.json"
expect "SizeInBytes 1e16: asks for its digits" 2 "1e16 is 2^53 or more in a float's notation" \
    "$D" run "$T/e16.json" --backend cpu
# --output-dir: made with its parents, only for a model that loads; a file there is refused.
expect "--output-dir with missing parents" 0 "wrote" "$D" run "$T/w1024.json" --backend cpu --output-dir "$T/od/a//b/"
if [ -f "$T/od/a/b/out1024.npy" ]; then ok "the output lies in the nested directory"; else fail "the output lies in the nested directory"; fi
printf '{' >"$T/broken.json"
expect "a refused model" 2 "" "$D" run "$T/broken.json" --output-dir "$T/od2"
if [ ! -e "$T/od2" ]; then ok "leaves no --output-dir behind"; else fail "leaves no --output-dir behind"; fi
expect "a model the library refuses" 2 "does not exist at feature level 1_0" \
    "$D" run "$T/w1024.json" --backend cpu --feature-level 1_0 --output-dir "$T/od3/sub"
if [ ! -e "$T/od3" ]; then ok "leaves no --output-dir behind either"; else fail "leaves no --output-dir behind either"; fi
# An explicit --backend auto wins over $DMLOPS_BACKEND (AUTO is also the library's "unset").
expect "--backend auto overrides DMLOPS_BACKEND" 0 '"backend_requested":	"auto"' \
    env DMLOPS_BACKEND=cpu "$D" info --json --backend auto
expect "--output-dir naming a file: exit 2 before the run" 2 "--output-dir: $T/ints.json: Not a directory" \
    "$D" run "$T/w1024.json" --backend cpu --output-dir "$T/ints.json"
# DxDispatch's reader takes comments, trailing commas and text after the model (RapidJSON's
# flags in DxDispatch); ours stays strict JSON. Its first line is exactly "Running on 'NAME'".
cat >"$T/relaxed.json" <<'EOF'
// DxDispatch's guide writes models like this
{"resources": {"in": {"initialValuesDataType": "UINT8", "initialValues": [1, 2, 3, 4,],
                      "initialValuesOffsetInBytes": 0, },
               /* a comment */ "out": {"initialValuesDataType": "UINT8", "initialValues": {"valueCount": 4, "value": 0}}},
 "dispatchables": {"op": {"type": "SLICE1", "desc": {"InputTensor": {"DataType": "UINT8", "Sizes": [4], "Strides": []},
   "OutputTensor": {"DataType": "UINT8", "Sizes": [4]}, "DimensionCount": 1, "InputWindowOffsets": [0],
   "InputWindowSizes": [4], "InputWindowStrides": [-1]}}},
 "commands": [{"type": "dispatch", "dispatchable": "op", "bindings": {"InputTensor": "in", "OutputTensor": "out"}},
              {"type": "print", "resource": "out"},],
}
trailing text
EOF
expect "DxDispatch: comments, trailing commas, Strides [] and initialValuesOffsetInBytes" 0 "Resource 'out': 4, 3, 2, 1" \
    "$D" run "$T/relaxed.json" --backend cpu
"$D" run "$T/relaxed.json" --backend cpu 2>/dev/null | head -n 1 >"$T/first"
if [ "$(cat "$T/first")" = "Running on 'CPU backend'" ]; then ok "DxDispatch: the first line is DxDispatch's"
else fail "DxDispatch: the first line is DxDispatch's" "$T/first"; fi
sed 's/"initialValuesOffsetInBytes": 0/"initialValuesOffsetInBytes": 1/' "$T/relaxed.json" >"$T/offb.json"
expect "DxDispatch: initialValuesOffsetInBytes past the buffer" 2 \
    "the buffer (4 bytes) is too small for the 4 bytes of initialValues at offset 1" "$D" run "$T/offb.json" --backend cpu
printf '{"resources": [], "operators": [],}\n' >"$T/ourcomma.json"
expect "our format stays strict JSON" 2 "JSON has no trailing commas" "$D" run "$T/ourcomma.json"
# writeFile makes its target's missing folders, as DxDispatch does.
sed 's|{"type": "print", "resource": "out"},\]|{"type": "writeFile", "resource": "out", "targetPath": "new/deeper/out.npy"}]|' \
    "$T/relaxed.json" >"$T/wdeep.json"
expect "DxDispatch: writeFile into missing folders" 0 "written to" "$D" run "$T/wdeep.json" --backend cpu --output-dir "$T/wd"
if [ -f "$T/wd/new/deeper/out.npy" ]; then ok "and the file is there"; else fail "and the file is there"; fi
# Resource names are unique; the second of two is named (the check sorts the names).
copy1d "$T/dup.json" UINT8 1 '{"Name": "a", "DataType": "UINT8", "Data": [1]}, {"Name": "b", "DataType": "UINT8", "Data": [2]},
  {"Name": "c", "DataType": "UINT8", "Data": [3]}, {"Name": "b", "DataType": "UINT8", "Data": [4]},
  {"Name": "a", "DataType": "UINT8", "Data": [5]}' '{"Resource": "a"}' '{"Resource": "c"}'
expect "a resource name given twice: the first repeat is named" 2 '$.resources[3]: a resource named "b" already exists' \
    "$D" run "$T/dup.json" --backend cpu
# A DxDispatch model with a trailing comma (allowed there) and a real error after it: the
# message names the real one.
printf '{"resources": {"a": {"initialValuesDataType": "UINT8", "initialValues": [1,],}},\n "dispatchables": {}, "commands": [{"type": "print" "resource": "a"}]}\n' >"$T/r2.json"
expect "DxDispatch: the error after an allowed trailing comma is the one named" 2 \
    "r2.json:2:53: expected ',' or '}' after an object member" "$D" run "$T/r2.json"
expect "bench --csv into a missing directory fails before running" 2 "--csv /nonexistent/b.csv: cannot be written" \
    timeout 20 "$D" bench --csv /nonexistent/b.csv
# The folder exists but the file cannot be made there, or the path is a folder: refused
# before anything is measured (the timeout would stop a full run), and nothing is left.
expect "bench --csv naming a folder fails before running" 2 "--csv $T: is a folder" timeout 20 "$D" bench --csv "$T"
expect "bench --svg where no file can be created fails before running" 2 "--svg /proc/b.svg: cannot be written" \
    timeout 20 "$D" bench --svg /proc/b.svg
: >"$T/plain"
expect "bench --report naming a file fails before running" 2 "--report $T/plain: is not a folder" \
    timeout 20 "$D" bench --report "$T/plain"
expect "bench --report in a folder that takes no files fails before running" 2 "--report /proc: cannot create files in it" \
    timeout 20 "$D" bench --report /proc
if ls -a "$T" | grep -q dmlops-probe; then fail "bench's path checks leave no probe file"; else ok "bench's path checks leave no probe file"; fi

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
           'copy_gbps', 'ratio_copy', 'memcpy_gbps', 'ratio_memcpy', 'sector_bytes', 'reps', 'buffer_sets']
assert head[:4] == ['device', 'backend', 'operator', 'variant'], head
assert all(c in head for c in numeric), head
# The CPU backend keeps its figures: none of the GPU method's columns is filled.
for r in body:
    for c in ('best_copy_gbps', 'peak_gbps', 'torch_us', 'ratio_torch', 'cache_included'):
        assert r[head.index(c)] == '', (c, r)
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
if grep -q 'quick suite: 4 KiB and 64 KiB only)' "$T/bench.svg"; then
    ok "bench --svg titles the quick suite in plain words"
else
    fail "bench --svg titles the quick suite in plain words"
fi
expect "bench names the numpy peer's own exit status" 0 "numpy peer 'false' exited with status 1 after 0" \
    "$D" bench --quick --filter "SLICE1 stride=1 UINT8 4 KiB" --numpy-peer false
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

# ---- issue 40: the GPU method on lavapipe, the peers, the device table, the access model -----
missing=
for c in sector_bytes reps buffer_sets barriers cache_included best_copy_gbps ratio_best_copy best_copy_shape \
    peak_gbps best_copy_ratio_peak torch_us ratio_torch torch_call; do
    head -n 1 "$T/bench.csv" | tr ',' '\n' | grep -qx "$c" || missing="$missing $c"
done
if [ -z "$missing" ]; then ok "bench --csv has every column of issue 40"
else echo "     lacks:$missing" >"$T/out"; fail "bench --csv has every column of issue 40" "$T/out"; fi
if "$D" info 2>/dev/null | grep -q "llvmpipe\|Vulkan devices: [1-9]"; then have_vk=1; else have_vk=; fi
has_torch() { python3 -c 'import sys, torch; sys.exit(not torch.cuda.is_available())' >/dev/null 2>&1; }
if [ -z "$have_vk" ]; then
    ok "bench on Vulkan: skipped (no Vulkan device)"
else
    # No timing assertions: what the method records, which ceilings and columns come out.
    expect "bench --quick --backend vulkan: the steady method, its ceilings and peers" 0 "best copy per size" \
        "$D" bench --quick --backend vulkan --filter " 4 KiB" --csv "$T/vk.csv" --report "$T/vkreport" \
        --torch-peer "python3 bench/torch_peer.py"
    cp "$T/out" "$T/vk.txt"
    missing=
    for pat in "last-level cache:" "vs compute:    the plain compute copy" "best copy:     the faster of the plain copy" \
        "peak:          unknown for this device" "GB/s: the 32-byte sectors"; do
        grep -qF -- "$pat" "$T/vk.txt" || missing="$missing '$pat'"
    done
    if [ -z "$missing" ]; then ok "bench on Vulkan says which ceiling is which"
    else echo "     lacks:$missing" >>"$T/vk.txt"; fail "bench on Vulkan says which ceiling is which" "$T/vk.txt"; fi
    if has_torch; then
        pat=
    elif python3 -c 'import torch' >/dev/null 2>&1; then
        pat="sees no CUDA device"
    else
        pat="PyTorch peer: python3 cannot import torch"
    fi
    if [ -n "$pat" ] && ! grep -qF "$pat" "$T/vk.txt"; then fail "bench says why PyTorch is not measured" "$T/vk.txt"
    else ok "bench says why PyTorch is not measured, or measures it"; fi
    if has_python; then
        cat >"$T/vk.py" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline='')))
head, body = rows[0], rows[1:]
col = lambda r, c: r[head.index(c)]
assert len(body) == 16, len(body)
for r in body:
    assert int(col(r, 'reps')) >= 1 and int(col(r, 'buffer_sets')) >= 1, r
    assert col(r, 'cache_included') in ('yes', 'no'), r
    # The best copy is the faster of the sweep's winner and the plain copy, measured beside.
    assert float(col(r, 'best_copy_gbps')) >= float(col(r, 'compute_copy_gbps')) > 0, r
    assert 'uvec4' in col(r, 'best_copy_shape'), r
    assert int(col(r, 'sector_bytes')) >= int(col(r, 'bytes_moved')), r
    if col(r, 'variant') == 'rows=-1,stride=2':  # reads all of its input: 1.5x the element bytes
        assert int(col(r, 'sector_bytes')) * 2 == int(col(r, 'bytes_moved')) * 3, r
    assert col(r, 'peak_gbps') == '' and col(r, 'best_copy_ratio_peak') == '', r  # lavapipe: no peak
    if sys.argv[2] == 'torch':
        assert float(col(r, 'ratio_torch')) > 0 and col(r, 'torch_call'), r
    else:
        assert col(r, 'torch_us') == col(r, 'ratio_torch') == col(r, 'torch_call') == '', r
PY
        if python3 "$T/vk.py" "$T/vk.csv" "$(has_torch && echo torch)" >"$T/out" 2>&1; then
            ok "bench --backend vulkan --csv: steady columns, best copy >= plain copy, sectors, no peak, torch"
        else
            fail "bench --backend vulkan --csv: steady columns, best copy >= plain copy, sectors, no peak, torch" "$T/out"
        fi
    fi
    md="$T/vkreport/performance.md"
    if grep -q '^| Peak | unknown' "$md" 2>/dev/null && grep -q '^| Last-level cache |' "$md" \
        && grep -q '^Best copy per size' "$md" && grep -q '| vs best copy |' "$md"; then
        ok "bench --report on Vulkan: peak, cache, best copy per size and its columns"
    else
        fail "bench --report on Vulkan: peak, cache, best copy per size and its columns" "$md"
    fi
    # The bench's side of the PyTorch protocol, with a peer that answers for case 0 alone
    # (its CSV row ends with the call, then the three --tuning columns, empty here).
    printf '#!/bin/sh\necho "torch 9.9 cuda 1 on a fake"\necho "0 0.000001 5 torch.flip(x, [0])"\necho "junk"\n' \
        >"$T/fake_torch"
    chmod +x "$T/fake_torch"
    "$D" bench --quick --backend vulkan --filter "axis=outer FLOAT32 4 KiB" --csv "$T/fake.csv" \
        --torch-peer "$T/fake_torch" >"$T/out" 2>&1
    if grep -qF 'torch.flip(x, [0])' "$T/out" && grep -qF 'PyTorch 9.9 cuda 1 on a fake' "$T/out" \
        && tail -n 1 "$T/fake.csv" | grep -q ',1.000,[0-9.]*,"torch.flip(x, \[0\])",,,$'; then
        ok "bench reads the PyTorch peer: its time (ratio_torch), version and call"
    else
        cat "$T/fake.csv" >>"$T/out"
        fail "bench reads the PyTorch peer: its time (ratio_torch), version and call" "$T/out"
    fi
fi
# The PyTorch peer beside the CPU backend (issue 47): CPU tensors (--device cpu, the CPU
# method's warm-up and budget), its ratio beside numpy's and memcpy's, and a note when it
# timed nothing. A stub answers for case 0 and keeps its arguments.
printf '#!/bin/sh\necho "$@" >"%s/fake_cpu_args"\necho "torch 9.9 cpu, 3 threads"\necho "0 0.000001 5 torch.flip(x, [0])"\n' \
    "$T" >"$T/fake_cpu_torch"
chmod +x "$T/fake_cpu_torch"
"$D" bench --quick --backend cpu --no-scaling --filter "axis=outer FLOAT32 4 KiB" --csv "$T/fake_cpu.csv" \
    --torch-peer "$T/fake_cpu_torch" >"$T/out" 2>&1
if grep -q ' vs torch vs memset$' "$T/out" && grep -qF 'vs torch: PyTorch doing the same operation on CPU tensors' "$T/out" \
    && grep -qF '9.9 cpu, 3 threads' "$T/out" && grep -qF 'torch.flip(x, [0])' "$T/out" \
    && grep -q -- '--device cpu --warmup 0.05 --budget 0.005$' "$T/fake_cpu_args" \
    && tail -n 1 "$T/fake_cpu.csv" | grep -q ',1.000,[0-9.]*,"torch.flip(x, \[0\])",,,$'; then
    ok "bench --backend cpu runs the PyTorch peer on CPU tensors: its ratio, version and call"
else
    cat "$T/fake_cpu.csv" "$T/fake_cpu_args" >>"$T/out" 2>/dev/null
    fail "bench --backend cpu runs the PyTorch peer on CPU tensors: its ratio, version and call" "$T/out"
fi
expect "bench --backend cpu: a PyTorch peer that timed nothing is a note, not a failure" 0 \
    "vs torch: not measured: the peer 'false' timed no case" \
    "$D" bench --quick --backend cpu --no-scaling --filter "SLICE1 stride=1 UINT8 4 KiB" --torch-peer false
expect "bench --backend cpu without --torch-peer says so" 0 "vs torch: not measured (no --torch-peer)" \
    "$D" bench --quick --backend cpu --no-scaling --filter "SLICE1 stride=1 UINT8 4 KiB"
# With a real torch (Debian's python3-torch, where a python3 has it): every case of a
# family timed on CPU tensors, a ratio in each row.
torch_python=
for p in python3 /usr/bin/python3; do
    if "$p" -c 'import torch' >/dev/null 2>&1; then torch_python=$p; break; fi
done
if [ -n "$torch_python" ]; then
    "$D" bench --quick --backend cpu --no-scaling --filter "SLICE1 stride=-1" --csv "$T/torch_cpu.csv" \
        --torch-peer "$torch_python bench/torch_peer.py" >"$T/out" 2>&1
    if [ "$(grep -c ',[0-9.]*,[0-9.]*,"x.flip(1)",,,$' "$T/torch_cpu.csv")" -eq 4 ] \
        && grep -q '^vs torch: PyTorch .* cpu, [0-9]* thread' "$T/out"; then
        ok "bench --backend cpu --torch-peer bench/torch_peer.py: PyTorch $($torch_python -c 'import torch; print(torch.__version__)') timed every case"
    else
        cat "$T/torch_cpu.csv" >>"$T/out" 2>/dev/null
        fail "bench --backend cpu --torch-peer bench/torch_peer.py: every case timed" "$T/out"
    fi
else
    echo "skip bench --backend cpu with a real torch: no python3 imports torch"
fi

# bench/torch_peer.py without torch: its arguments, its reading of the cases and the calls
# it would time (gpu.md's), and a clean refusal. The cases come from the bench itself.
if has_python; then
    "$D" bench --quick --backend cpu --no-scaling --filter "64 KiB" \
        --numpy-peer "sh -c 'cp \"\$0\" $T/cases.json'" >/dev/null 2>&1
    expect "torch_peer.py --dry-run reads the bench's cases and names each call" 0 "x[:, ::2].flip(0)" \
        python3 bench/torch_peer.py --dry-run "$T/cases.json"
    missing=
    for call in "torch.gather(x, 1, idx)" "torch.flip(x, [0])" "torch.gather(x, 0, idx)" "x[:, 32:96].contiguous()" \
        "x.flip(1)" "torch.zeros(16, 1024).scatter_(1, idx, 1)"; do
        grep -qF -- "$call" "$T/out" || missing="$missing '$call'"
    done
    if [ -z "$missing" ] && [ "$(grep -c '^[0-9]* 0 0 ' "$T/out")" -eq 16 ]; then
        ok "torch_peer.py --dry-run: one line per case, gpu.md's calls"
    else
        echo "     lacks:$missing" >>"$T/out"
        fail "torch_peer.py --dry-run: one line per case, gpu.md's calls" "$T/out"
    fi
    expect "torch_peer.py without the cases: exit 2" 2 "required" python3 bench/torch_peer.py
    expect "torch_peer.py --samples 0: exit 2" 2 "--samples >= 1" python3 bench/torch_peer.py --samples 0 "$T/cases.json"
    expect "torch_peer.py --device cpu --budget 0: exit 2" 2 "--budget > 0" \
        python3 bench/torch_peer.py --device cpu --budget 0 "$T/cases.json"
    printf '[{"index": 0, "op": "SLICE1"}]' >"$T/bad.json"
    expect "torch_peer.py: a case without its fields: exit 2" 2 "a case without 'dtype'" \
        python3 bench/torch_peer.py --dry-run "$T/bad.json"
    expect "torch_peer.py: a file that is not JSON: exit 2" 2 "torch_peer.py: " python3 bench/torch_peer.py "$T/plain"
    if ! has_torch; then
        expect "torch_peer.py without torch or CUDA: 'unavailable', exit 3" 3 "unavailable " \
            python3 bench/torch_peer.py "$T/cases.json"
    fi
fi

# The table of known devices: lookups by name, an unknown device, and the docs' table.
expect "bench --peak finds the H100 SXM by its Vulkan name" 0 "NVIDIA H100 SXM5 80GB: 3350.0 GB/s" \
    "$D" bench --peak "NVIDIA H100 80GB HBM3"
expect "bench --peak tells the H100 PCIe apart" 0 "2000.0 GB/s" "$D" bench --peak "NVIDIA H100 PCIe"
expect "bench --peak: a device not in the table has no peak" 1 "not in the table of known devices" \
    "$D" bench --peak "llvmpipe (LLVM 15.0.6, 256 bits)"
"$D" bench --peak all >"$T/peaks" 2>&1
n=0 missing=
while IFS= read -r line; do
    case $line in "  source: "*) continue ;; esac
    name=${line%%:*} n=$((n + 1))
    grep -qF "| $name |" docs/performance.md || missing="$missing '$name'"
done <"$T/peaks"
if [ "$n" -ge 12 ] && [ -z "$missing" ] && [ "$(grep -c '^  source: ' "$T/peaks")" -eq "$n" ]; then
    ok "bench --peak all: $n devices, each with its source and in performance.md's table"
else
    echo "     missing from docs/performance.md:$missing" >>"$T/peaks"
    fail "bench --peak all: each device with its source and in performance.md's table" "$T/peaks"
fi
"$D" bench --list --filter "rows=-1,stride=2 FLOAT32 4 KiB" >"$T/out" 2>&1
if grep -q '32-byte sectors: 128 read, 64 written' "$T/out"; then
    ok "bench --list: the stride-2 slice of 4 KiB reads all 128 sectors of its input"
else
    fail "bench --list: the stride-2 slice of 4 KiB reads all 128 sectors of its input" "$T/out"
fi

# --model: the library's trace may not be there yet; then a clear error, else the figures,
# with the 16-byte-per-lane copies at 512 bytes per request and a sector ratio of 1.
expect "bench --model takes Vulkan only" 2 "takes --backend vulkan" "$D" bench --model --backend cpu
expect "bench --model refuses the suite's options" 2 "--model takes" "$D" bench --model --quick
if [ -n "$have_vk" ]; then
    "$D" bench --model --backend vulkan --filter "FLOAT32" --csv "$T/model.csv" >"$T/out" 2>&1
    rc=$?
    cat >"$T/model.py" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline='')))
cases = [r for r in rows if r['operator'] != 'COPY']
copies = [r for r in rows if r['operator'] == 'COPY']
assert len(cases) == 8 and len(copies) == 2, (len(cases), len(copies))
for r in rows:
    for c in ('model_bytes_per_request', 'model_sector_ratio', 'model_loads_in_flight'):
        assert float(r[c]) > 0, (c, r)
for r in copies:
    assert abs(float(r['model_bytes_per_request']) - 512) < 1 and abs(float(r['model_sector_ratio']) - 1) < 0.01, r
assert max(float(r['model_loads_in_flight']) for r in copies) >= 3.9, copies
PY
    if [ "$rc" -eq 1 ] && grep -q "cannot trace kernel accesses" "$T/out" && [ "$(wc -l <"$T/out")" -le 2 ]; then
        ok "bench --model: a clear error where the library cannot trace"
    elif [ "$rc" -eq 0 ] && has_python && python3 "$T/model.py" "$T/model.csv" >>"$T/out" 2>&1; then
        ok "bench --model: every case's figures, the copies at 512 bytes per request and ratio 1"
    else
        echo "     exit status $rc" >>"$T/out"
        fail "bench --model: a clear error, or the figures" "$T/out"
    fi
fi

# ---- issue 45: where models write, memory, strict values, what the tool says -----------------
# Written files stay in the output directory: an absolute Output or targetPath, or one
# through "..", is refused before anything runs (exit 2), unless --allow-any-output-path.
mkdir -p "$T/jail/out" "$T/jail/away"
copy1d "$T/jail/abs.json" FLOAT32 4 '{"Name": "in", "DataType": "FLOAT32", "Data": [1, 2, 3, 4]},
  {"Name": "out", "Output": "'"$T/jail/away/abs.npy"'"}' '{"Resource": "in"}' '{"Resource": "out"}'
expect "an absolute Output is refused" 2 \
    '$.resources[1].Output: "'"$T/jail/away/abs.npy"'": an absolute path would write outside the output directory' \
    "$D" run "$T/jail/abs.json" --backend cpu --output-dir "$T/jail/out"
sed 's#"Output": "[^"]*"#"Output": "sub/../../away/up.npy"#' "$T/jail/abs.json" >"$T/jail/up.json"
expect "an Output through .. is refused, naming --allow-any-output-path" 2 \
    'a path through ".." would write outside the output directory "'"$T/jail/out"'": give a path inside it, or run with --allow-any-output-path' \
    "$D" run "$T/jail/up.json" --backend cpu --output-dir "$T/jail/out"
# DxDispatch: a writeFile of initialValues (a 24-byte shell script, as in the review) to an
# absolute path and through "..", without --output-dir (the current directory).
case $D in /*) dabs=$D ;; *) dabs=$(pwd)/$D ;; esac
dxd "$T/jail/script.json" '"s": {"initialValuesDataType": "UINT8", "initialValues": [35, 33, 47, 98, 105, 110, 47, 115, 104, 10, 101, 99, 104, 111, 32, 112, 119, 110, 101, 100, 10, 10, 10, 10]},
    "out": {"initialValuesDataType": "UINT32", "initialValues": [0, 0, 0, 0]}' "$copy4" '"InputTensor": "s", "OutputTensor": "out"'
sed 's#{"type": "print", "resource": "out"}#{"type": "writeFile", "resource": "s", "targetPath": "'"$T/jail/away/x.sh"'"}#' \
    "$T/jail/script.json" >"$T/jail/wabs.json"
sed 's#{"type": "print", "resource": "out"}#{"type": "writeFile", "resource": "s", "targetPath": "../away/y.sh"}#' \
    "$T/jail/script.json" >"$T/jail/wup.json"
expect "DxDispatch: an absolute targetPath is refused" 2 '.targetPath: "'"$T/jail/away/x.sh"'": an absolute path' \
    sh -c 'cd "$1" && "$2" run "$3" --backend cpu' sh "$T/jail/out" "$dabs" "$T/jail/wabs.json"
expect "DxDispatch: a targetPath through .. is refused" 2 '.targetPath: "../away/y.sh": a path through ".."' \
    sh -c 'cd "$1" && "$2" run "$3" --backend cpu' sh "$T/jail/out" "$dabs" "$T/jail/wup.json"
if [ -z "$(ls -A "$T/jail/away")" ]; then
    ok "... and nothing was written outside"
else
    ls -lA "$T/jail/away" >"$T/out"
    fail "... and nothing was written outside" "$T/out"
fi
expect "--allow-any-output-path lets an absolute targetPath be written" 0 "written to '$T/jail/away/x.sh'" \
    "$D" run "$T/jail/wabs.json" --backend cpu --allow-any-output-path
expect "--allow-any-output-path lets an Output through .. be written" 0 "wrote $T/jail/out/sub/../../away/up.npy" \
    "$D" run "$T/jail/up.json" --backend cpu --output-dir "$T/jail/out" --allow-any-output-path
# A name longer than the file system takes is the model's to fix, found before the run.
long=$(printf '%0300d' 0 | tr 0 n)
sed "s#\"Output\": \"[^\"]*\"#\"Output\": \"$long.npy\"#" "$T/jail/abs.json" >"$T/jail/long.json"
expect "an Output name past NAME_MAX: exit 2 before the run" 2 "has 304 bytes, more than the 255 a file name may have there" \
    "$D" run "$T/jail/long.json" --backend cpu --output-dir "$T/jail/out"
if ! grep -q "on CPU backend" "$T/out"; then ok "... nothing ran"; else fail "... nothing ran" "$T/out"; fi

# Memory: a model's numbers take about their text (20 MB of "0," took 960 MB as nodes); a
# model whose text and tables would take more than 32 bytes per byte is refused before;
# an input .npy's data is bounded by its header before it is read.
awk 'BEGIN { printf "{\"resources\": [{\"Name\": \"x\", \"DataType\": \"UINT8\", \"Data\": ["
             for (i = 0; i < 1000000; i++) printf "0,"
             printf "7]}, {\"Name\": \"y\"}],\n" }' >"$T/zeros.json"
cat >>"$T/zeros.json" <<'JSON'
 "operators": [{"Type": "SLICE1", "InputTensor": {"DataType": "UINT8", "Sizes": [4]}, "OutputTensor": {"DataType": "UINT8", "Sizes": [4]},
   "InputWindowOffsets": [0], "InputWindowSizes": [4], "InputWindowStrides": [-1],
   "Bindings": {"InputTensor": {"Resource": "x"}, "OutputTensor": {"Resource": "y"}}}]}
JSON
case "$B" in
*asan* | *tsan*) ok "a model of 2 MB of numbers in 80 MB (skipped under a sanitizer)" ;;
*)
    (ulimit -v 80000; exec "$D" run "$T/zeros.json" --backend cpu) >"$T/out" 2>&1
    rc=$?
    if [ "$rc" -eq 0 ] && grep -q "y = UINT8 \[4\]" "$T/out"; then
        ok "a model of 2 MB of numbers runs in 80 MB of address space"
    else
        echo "     status $rc" >>"$T/out"
        fail "a model of 2 MB of numbers runs in 80 MB of address space" "$T/out"
    fi
    ;;
esac
awk 'BEGIN { printf "{\"resources\": ["; for (i = 0; i < 1500000; i++) printf "{},"; printf "{}], \"operators\": [{}]}" }' \
    >"$T/objects.json"
expect "4.5 MB of empty objects: refused before their tables are made" 2 "1500001 resources and 1 operators would take" \
    timeout 60 "$D" run "$T/objects.json" --backend cpu
awk 'BEGIN { printf "{\"resources\": ["; for (i = 0; i < 300000; i++) printf "{\"Name\": \"r%d\"},", i
             printf "{\"Name\": \"x\"}], \"operators\": [{}]}" }' >"$T/names.json"
expect "300,000 resources of a name each: the tables are refused before they are made" 2 \
    '$: 300001 resources and 1 operators would take' timeout 60 "$D" run "$T/names.json" --backend cpu
# A .npy through a FIFO is read as a file is; one whose header announces more than the
# host memory is refused at its header.
mkfifo "$T/in.fifo"
sed "s|\"File\": \"in1024.npy\"|\"File\": \"$T/in.fifo\"|" "$T/w1024.json" >"$T/wpipe.json"
(timeout 20 cat "$T/in1024.npy" >"$T/in.fifo") &
expect "an input .npy through a FIFO" 0 "wrote" timeout 20 "$D" run "$T/wpipe.json" --backend cpu --output-dir "$T/wpo"
wait
mknpy "$T/huge.npy" '<f8' '(1125899906842624,)' 0
(timeout 20 sh -c 'cat "$1"; exec cat /dev/zero' sh "$T/huge.npy" >"$T/in.fifo" 2>/dev/null) &
expect "a piped .npy announcing 8 PiB is refused at its header" 2 "its shape needs 8 PiB of data" \
    timeout 20 "$D" run "$T/wpipe.json" --backend cpu
wait
dxd "$T/rawzero.json" '"z": {"initialValuesDataType": "UINT32", "initialValues": {"sourcePath": "/dev/zero"}},
    "out": {"initialValuesDataType": "UINT32", "initialValues": [0, 0, 0, 0]}' "$copy4" '"InputTensor": "z", "OutputTensor": "out"'
expect "DxDispatch: a raw initializer from /dev/zero needs a sizeInBytes" 2 "/dev/zero is not a regular file (a pipe or a device)" \
    timeout 20 "$D" run "$T/rawzero.json" --backend cpu
sed 's#"sourcePath": "/dev/zero"}#"sourcePath": "/dev/zero"}, "sizeInBytes": 16#' "$T/rawzero.json" >"$T/rawzero16.json"
expect "... and is read no further than it" 2 "/dev/zero: it holds more than the resource's sizeInBytes (16 B)" \
    timeout 20 "$D" run "$T/rawzero16.json" --backend cpu

# An empty ONNX output keeps its shape however large its other extents (OneHot of no
# indices, depth 2^63 - 1: printed as FLOAT32 [4] and saved as a (4,) .npy before).
cat >"$T/hot0.json" <<'JSON'
{"resources": [{"Name": "i", "DataType": "INT64", "Sizes": [0]}, {"Name": "v", "DataType": "FLOAT32", "Data": [0, 1]}, {"Name": "y"}],
 "operators": [{"ONNX": {"op_type": "OneHot", "inputs": {"depth": 9223372036854775807}},
   "Bindings": {"indices": {"Resource": "i"}, "values": {"Resource": "v"}, "output": {"Resource": "y"}}}]}
JSON
expect "ONNX OneHot of no indices and depth 2^63 - 1 prints its shape" 0 "y = FLOAT32 [0, 9223372036854775807]" \
    "$D" run "$T/hot0.json" --backend cpu
line "... and []" "  []"
sed 's#{"Name": "y"}#{"Name": "y", "Output": "y.npy"}#' "$T/hot0.json" >"$T/hot0o.json"
expect "... and saves it as an empty .npy of that shape" 0 "y = FLOAT32 [0, 9223372036854775807]" \
    "$D" run "$T/hot0o.json" --backend cpu --output-dir "$T/hot0"
if [ -f "$T/hot0/y.npy" ] && head -c 128 "$T/hot0/y.npy" | grep -q "'shape': (0, 9223372036854775807)" &&
    [ "$(wc -c <"$T/hot0/y.npy")" -eq 128 ]; then
    ok "... whose header says (0, 9223372036854775807) and which holds no data"
else
    fail "... whose header says (0, 9223372036854775807) and which holds no data"
fi

# Strict values: 1e-400 is not the integer 0; " 5" and "\t5" are not numbers; a feature
# level of 0x0 is refused as 0 is.
copy1d "$T/tiny.json" INT32 2 '{"Name": "in", "DataType": "INT32", "Data": [1e-400, 2]}, {"Name": "out"}' \
    '{"Resource": "in"}' '{"Resource": "out"}'
expect "1e-400 in an INT32 Data is not the integer 0" 2 '$.resources[0].Data[0]: 1e-400 is not an integer (INT32)' \
    "$D" run "$T/tiny.json" --backend cpu
sed 's#"InputWindowOffsets": \[0\]#"InputWindowOffsets": [1e-400]#; s#1e-400, 2#1, 2#' "$T/tiny.json" >"$T/tinyoff.json"
expect "1e-400 as a window offset is not 0" 2 '$.operators[0].InputWindowOffsets[0]: expected a non-negative integer, not 1e-400' \
    "$D" run "$T/tinyoff.json" --backend cpu
for v in '" 5"' '"\t5"' '"5 "'; do
    for type in INT32 FLOAT32; do
        copy1d "$T/pad.json" $type 2 "{\"Name\": \"in\", \"DataType\": \"$type\", \"Data\": [$v, 2]}, {\"Name\": \"out\"}" \
            '{"Resource": "in"}' '{"Resource": "out"}'
        expect "the $type string $v is refused" 2 '$.resources[0].Data[0]: ' "$D" run "$T/pad.json" --backend cpu
    done
done
expect "--feature-level 0x0 is refused as 0 is" 2 "--feature-level 0x0: expected a level such as 6_4 or 0x6400" \
    "$D" run "$T/ints.json" --backend cpu --feature-level 0x0
expect "-i ' 5' is refused" 2 "expected a count from 1 to" "$D" run "$T/ints.json" --backend cpu -i ' 5'

# What the tool says: the CPU backend's threads, the options as typed (not the C fields
# the library's note names), that make deps found everything, and no warm-cache time on a
# driver that keeps nothing in its pipeline cache.
expect "info shows the CPU backend's threads" 0 "    threads         " "$D" info --backend cpu
expect "info --json gives cpu_threads" 0 '"cpu_threads":' "$D" info --backend cpu --json
expect "the note names --backend cpu as typed" 0 "note: CPU backend: asked for (--backend cpu)" \
    "$D" run "$T/ints.json" --backend cpu
if [ "$vulkan" = yes ]; then
    expect "the note names --backend vulkan as typed" 0 "asked for (--backend vulkan)" "$D" run "$T/ints.json" --backend vulkan
    if ! grep -q "dmlops_context_desc" "$T/out"; then ok "... and no C field"; else fail "... and no C field" "$T/out"; fi
    expect "the note names --device as typed" 0 'named by --device = "0"' "$D" run "$T/ints.json" --device 0
    if "$D" info --backend vulkan | grep -q "llvmpipe"; then
        expect "bench on lavapipe, whose pipeline cache keeps nothing: no warm-cache time" 0 \
            "no warm-cache time: the driver keeps nothing" "$D" bench --quick --backend vulkan --filter overhead
        if ! grep -q "with a warm pipeline cache file" "$T/out"; then
            ok "... and none printed as if measured"
        else
            fail "... and none printed as if measured" "$T/out"
        fi
    fi
fi
expect "deps --say says that nothing is missing" 0 "deps: nothing missing for the build profile" \
    sh .ci/deps.sh --check --say build

# ---- the pipeline cache file (issue 45) ------------------------------------------------------
# DMLOPS_PIPELINE_CACHE names a file the library reads at context creation and replaces at
# destroy. A device node (as root /dev/zero itself was replaced by a regular file) and a
# FIFO (creation waited forever for a writer) are neither read nor replaced; a symbolic
# link is followed, and the file it names is replaced. The device node is a copy made
# here (mknod, as root), so that a regression replaces nothing of the machine's.
if [ "$vulkan" = yes ]; then
    cache_run() { # name, cache path: a Vulkan run that must end in 60 s with status 0
        expect "$1" 0 "wrote" env DMLOPS_PIPELINE_CACHE="$2" timeout 60 "$D" run "$M/slice_strides.json" \
            --backend vulkan --output-dir "$T/cache-out"
    }
    # dmlc FILE: the file holds a cache the library wrote (its "DMLC" magic).
    dmlc() { [ -f "$1" ] && [ "$(head -c 4 "$1")" = DMLC ]; }
    mkdir -p "$T/cache"
    if mknod "$T/cache/zero" c 1 5 2>/dev/null; then
        cache_run "a pipeline cache path on a device node (a copy of /dev/zero)" "$T/cache/zero"
        if [ -c "$T/cache/zero" ] && [ -z "$(ls -A "$T/cache" | grep -v '^zero$')" ]; then
            ok "the device node stays a device node, and no temporary is left"
        else
            ls -lA "$T/cache" >"$T/out"
            fail "the device node stays a device node, and no temporary is left" "$T/out"
        fi
        rm -f "$T/cache/zero"
    else # not root: /dev/null itself cannot be replaced, only refused
        cache_run "a pipeline cache path on /dev/null" /dev/null
        if [ -c /dev/null ]; then ok "/dev/null stays a device node"; else fail "/dev/null stays a device node"; fi
    fi
    mkfifo "$T/cache/fifo"
    cache_run "a pipeline cache path on a FIFO does not block context creation" "$T/cache/fifo"
    if [ -p "$T/cache/fifo" ] && [ "$(ls -A "$T/cache")" = fifo ]; then
        ok "the FIFO stays a FIFO, and no temporary is left"
    else
        ls -lA "$T/cache" >"$T/out"
        fail "the FIFO stays a FIFO, and no temporary is left" "$T/out"
    fi
    rm -f "$T/cache/fifo"
    mkdir -p "$T/cache/real"
    ln -s real/pipelines "$T/cache/link"
    cache_run "a pipeline cache path through a symbolic link to no file yet" "$T/cache/link"
    cache_run "... and again, the link now naming the file written" "$T/cache/link"
    if [ -L "$T/cache/link" ] && [ "$(readlink "$T/cache/link")" = real/pipelines ] && dmlc "$T/cache/real/pipelines" &&
        [ "$(ls -A "$T/cache/real")" = pipelines ]; then
        ok "the link stays a link, and the file it names holds the cache"
    else
        ls -lAR "$T/cache" >"$T/out"
        fail "the link stays a link, and the file it names holds the cache" "$T/out"
    fi
fi

# ---- issue 49: dmlops tune and bench --tuning ------------------------------------------
# The command line's mistakes (exit 2); on a Vulkan device (lavapipe in CI), planned as a
# GPU, one case tuned into a file that the bench then runs beside the defaults, and a
# damaged file refused with a note.
expect "tune without --out" 2 "--out FILE is required" "$D" tune
expect "tune --backend cpu" 2 "the CPU backend has no tuning knobs" "$D" tune --out "$T/t.txt" --backend cpu
expect "tune --budget 0" 2 "--budget 0: expected seconds per class" "$D" tune --out "$T/t.txt" --budget 0
expect "tune --budget junk" 2 "--budget 2s: expected seconds per class" "$D" tune --out "$T/t.txt" --budget 2s
expect "tune --filter matching nothing" 2 "no case matches --filter" "$D" tune --out "$T/t.txt" --filter "no such case"
expect "tune --out in a missing folder" 2 "cannot write beside it" "$D" tune --out "$T/no/such/t.txt" --quick \
    --filter "SLICE1 stride=1 FLOAT32 4 KiB"
expect "tune --help" 0 "usage: dmlops tune --out FILE" "$D" tune --help
expect "bench --model takes no --tuning" 2 "--model takes" "$D" bench --model --tuning "$T/t.txt"

if [ "$vulkan" = yes ]; then
    # One case, planned as a GPU, tuned in at most 2 s: the file is written, the class's line in it.
    case="SLICE1 stride=1 FLOAT32 4 KiB"
    expect "tune one case on lavapipe planned as a GPU" 0 "1 classes tuned" \
        env DMLOPS_VK_TUNING=gpu "$D" tune --out "$T/t.txt" --quick --filter "$case" --budget 2
    if head -n 3 "$T/t.txt" | grep -q '^dmlops-tuning 1$' && grep -q '^class slice\.v1\.copy\.e4\.' "$T/t.txt" &&
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

    # A file whose device was changed by hand fails its checksum: the tuned context says so
    # and runs the defaults (test_tuning covers foreign and stale files signed as they come).
    sed 's/^uuid .*/uuid 00000000-0000-0000-0000-000000000000/' "$T/t.txt" >"$T/edited.txt"
    expect "bench --tuning with an edited file runs the defaults, noted" 0 "ignored (damaged" \
        "$D" bench --backend vulkan --quick --filter "$case" --tuning "$T/edited.txt"
    grep -qF "(not in the file: the defaults)" "$T/out" && ok "a refused file's cases run the defaults" ||
        fail "a refused file's cases" "$T/out"
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
