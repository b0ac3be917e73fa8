#!/bin/sh
# The GPU run of issue 9 on a machine that the device tool lends (docs/performance.md, "On
# a lent GPU"). Those machines have no compiler toolchain for this project and reach no
# package registry, so the binaries travel from here:
#
#   here:   make gpu-bundle          # .gpu/: dmlops, the Vulkan test binaries, libcjson
#           (and once, the loader packages in .gl/, as the device tool's README says)
#   there:  carry [".gpu", ".gl"], command: sh bench/gpu_run.sh [tests|bench|all]
#
# Writes into $OUT, the tool's output folder (at most 8 files come back): info.txt (the
# GPU and `dmlops info`), tests.txt (the Vulkan suites on the GPU, ending "N passed, N
# failed"), bench.txt (the table) and report/: docs/performance.md with the device's
# section added by --report, and report/bench/<device>.csv and .svg. Copy the section and
# the two files into docs/ here. `tests` and `bench` each fit one 10-minute call;
# BENCH_FILTER keeps the bench cases whose name holds it ("64 MiB", to split a run).
set -u
: "${OUT:?OUT: the folder whose files come back}"
step=${1:-all}
for f in .gl/*.deb; do [ -f "$f" ] && dpkg -x "$f" /; done
ldconfig
# The NVIDIA driver's manifest lies outside the loader's search path on these machines.
icd=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
[ -f "$icd" ] && export VK_DRIVER_FILES="$icd"
export LD_LIBRARY_PATH="$PWD/.gpu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

{ nvidia-smi -L; .gpu/dmlops info; } >"$OUT/info.txt" 2>&1
rc=0
if [ "$step" = tests ] || [ "$step" = all ]; then
    # The same binaries as `make test` builds; AUTO picks the GPU, and each suite's
    # [vulkan] cases run against the CPU backend's answers and the naive references.
    sh test/run.sh .gpu/test_vulkan .gpu/test_targeted .gpu/test_random .gpu/big_tensors >"$OUT/tests.txt" 2>&1 || rc=1
    tail -n 1 "$OUT/tests.txt"
fi
if [ "$step" = bench ] || [ "$step" = all ]; then
    mkdir -p "$OUT/report"
    cp docs/performance.md "$OUT/report/"
    peer=; python3 -c 'import numpy' 2>/dev/null && peer="python3 bench/numpy_peer.py"
    DMLOPS_BENCH_TARGET='sh bench/gpu_run.sh bench (dmlops bench --backend vulkan --large)' \
        .gpu/dmlops bench --backend vulkan --large ${peer:+--numpy-peer "$peer"} --report "$OUT/report" \
        ${BENCH_FILTER:+--filter "$BENCH_FILTER"} \
        >"$OUT/bench.txt" 2>&1 || rc=1
    tail -n 3 "$OUT/bench.txt"
fi
exit $rc
