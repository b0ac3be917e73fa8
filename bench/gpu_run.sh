#!/bin/sh
# The GPU run on a machine that the device tool lends (docs/performance.md, "On a lent GPU,
# the procedure"). Those machines have no compiler toolchain for this project and reach no
# package registry, so the binaries travel from here:
#
#   here:   make gpu-bundle          # .gpu/: dmlops, the Vulkan test binaries, libcjson, the peers
#           (and once, the loader, glvnd and validation-layer packages in .gl/, see the docs)
#   there:  carry [".gpu", ".gl"], command: sh bench/gpu_run.sh [STEP...]
#
# STEPs, run in the order given (default: tune bench tests); `tests bench` is the one call
# that gives the suites and the whole table (every column, PyTorch beside it) in under 8
# minutes of an H100 (docs/performance.md):
#   tests  the Vulkan suites on the GPU (TESTS: which), each under a time limit -> tests.txt
#   tune   the device tunes itself (issue 49): dmlops tune over the TUNE_FILTER cases
#          ("64 MiB"), TUNE_BUDGET seconds a class (3) -> tuning.txt, the tuning file; then
#          dmlops bench --tuning on them, the defaults and the file in the same rounds, to
#          show what tuning bought -> tune.txt. A bench step after it runs with the file too.
#   bench  dmlops bench --backend vulkan --large --report, with the PyTorch peer wherever
#          python3 imports a torch that sees a CUDA device (and --tuning where a tune step
#          ran first) -> bench.txt, report/
#   sweep  the 256 MiB cases again under each DMLOPS_VK_* setting below -> sweep.txt
#   ab     two builds or settings (AB_A, AB_B) in alternating rounds -> ab.txt (see below)
#   model  dmlops bench --model: the access model, with GPU timings to set it against -> model.txt
# Always writes info.txt (the GPU and `dmlops info`). Files come back from $OUT: these,
# report/performance.md (with the device's section added) and report/bench/<device>.csv and
# .svg. Variables: BENCH_FILTER keeps the bench cases whose name holds it, SWEEP_FILTER
# those of sweep ("256 MiB"); NUMPY=1 adds the numpy peer
# (minutes of CPU time at --large), TORCH=0 leaves PyTorch out; TESTS names the test
# binaries; TEST_LIMIT (150) and BENCH_LIMIT (300) are seconds per test binary and for the
# bench; TOTAL_LIMIT (460) the seconds of the whole call, of which the tests leave
# BENCH_RESERVE (180) to a bench step that follows them.
set -u
: "${OUT:?OUT: the folder whose files come back}"
[ $# -gt 0 ] || set -- tune bench tests
for f in .gl/*.deb; do [ -f "$f" ] && dpkg -x "$f" /; done
# make gpu-bundle's binaries travel as one archive (the carry limit): unpacked beside it.
[ -f .gpu/bundle.tar.gz ] && tar -xzf .gpu/bundle.tar.gz -C .gpu
ldconfig
# The NVIDIA driver's manifest lies outside the loader's search path on these machines.
icd=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
[ -f "$icd" ] && export VK_DRIVER_FILES="$icd"
export LD_LIBRARY_PATH="$PWD/.gpu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
# Line-buffered output, so that a step stopped at its limit still leaves what it printed.
lb=; command -v stdbuf >/dev/null 2>&1 && lb="stdbuf -oL"

{ date -u; nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv
  ls /usr/share/vulkan/explicit_layer.d 2>&1; .gpu/dmlops info; } >"$OUT/info.txt" 2>&1
if grep -q "Vulkan devices: none" "$OUT/info.txt"; then
    # No driver: say why (the loader's own log) and spend no more of the lease.
    { find / -xdev -name '*nvidia_icd*.json' 2>/dev/null; VK_LOADER_DEBUG=error,warn,driver .gpu/dmlops info 2>&1 | tail -n 40; } >>"$OUT/info.txt"
    tail -n 20 "$OUT/info.txt"; exit 3
fi
# The driver's own statistics of the pipelines the standard cases get (make isa's report;
# NVIDIA's driver gives statistics without disassembly): a second or two.
[ -x .gpu/dmlops-isa ] && { echo "== dmlops-isa --stats"; timeout 60 .gpu/dmlops-isa --stats; } >>"$OUT/info.txt" 2>&1
rc=0
start=$(date +%s)
# Seconds a step may still take: the call's TOTAL_LIMIT less what has run, less the
# bench's reserve while a bench step is still to come; at most $1.
left() {
    l=$(( start + ${TOTAL_LIMIT:-460} - $(date +%s) ))
    [ -n "$bench_to_come" ] && l=$(( l - ${BENCH_RESERVE:-180} ))
    [ "$l" -lt "$1" ] && echo "$l" || echo "$1"
}
bench_to_come=; case " $* " in *" bench "*) bench_to_come=y ;; esac
for step in "$@"; do
    case $step in
    tests)
        # The same binaries as `make test` builds; AUTO picks the GPU, and each suite's
        # [vulkan] cases run against the CPU backend's answers and the naive references,
        # under the validation layer when .gl carries it. big_tensors first: its 2.34 GiB
        # kernel output failed on the H200 before the 2 GiB window cap (docs/performance.md);
        # test_random last, the longest (over 3 minutes there).
        # test_random last, the longest (over 3 minutes there): it gets what the limits leave.
        # test_gpu_tiles second: the GPU tiles (issue 41) against the CPU backend, on the
        # hardware they were written for, which no session before had.
        for t in ${TESTS:-big_tensors test_gpu_tiles test_vulkan test_targeted test_random}; do
            s=$(date +%s) lim=$(left "${TEST_LIMIT:-150}")
            if [ "$lim" -lt 20 ]; then echo "== $t: not run, ${lim} s left of TOTAL_LIMIT" >>"$OUT/tests.txt"; continue; fi
            DMLOPS_TEST_REQUIRE_VULKAN=1 timeout "$lim" $lb ".gpu/$t" >>"$OUT/tests.txt" 2>&1
            r=$?; [ $r -eq 0 ] || rc=1
            echo "== $t: exit $r, $(( $(date +%s) - s )) s (limit $lim s)" >>"$OUT/tests.txt"
        done
        awk '/^[0-9]+ passed, [0-9]+ failed$/ {p += $1; f += $3} /^== .*: exit/ {print}
             END {print p " passed, " f " failed"}' "$OUT/tests.txt" | tee -a "$OUT/tests.txt"
        ;;
    bench)
        bench_to_come=
        mkdir -p "$OUT/report"
        cp docs/performance.md "$OUT/report/"
        # The peers from the bundle (make gpu-bundle), else from the tree.
        p=.gpu; [ -f "$p/torch_peer.py" ] || p=bench
        np=; [ "${NUMPY:-0}" = 1 ] && python3 -c 'import numpy' 2>/dev/null && np="python3 $p/numpy_peer.py"
        # PyTorch wherever python3 imports a torch that sees a CUDA device; else the bench's
        # table says why its PyTorch columns are empty.
        tp=; [ "${TORCH:-1}" = 1 ] && tp="python3 $p/torch_peer.py"
        python3 -c 'import sys, torch; print("torch", torch.__version__, "cuda", torch.cuda.is_available())' \
            >>"$OUT/info.txt" 2>&1
        tf=; [ -s "$OUT/tuning.txt" ] && tf="$OUT/tuning.txt"
        DMLOPS_BENCH_TARGET='sh bench/gpu_run.sh bench (dmlops bench --backend vulkan --large)' \
            timeout "$(left "${BENCH_LIMIT:-300}")" $lb .gpu/dmlops bench --backend vulkan --large ${np:+--numpy-peer "$np"} \
            ${tp:+--torch-peer "$tp"} ${tf:+--tuning "$tf"} --report "$OUT/report" \
            ${BENCH_FILTER:+--filter "$BENCH_FILTER"} >"$OUT/bench.txt" 2>&1 || rc=1
        tail -n 3 "$OUT/bench.txt"
        ;;
    model)
        timeout "$(left 300)" $lb .gpu/dmlops bench --model --backend vulkan >"$OUT/model.txt" 2>&1 || rc=1
        tail -n 3 "$OUT/model.txt"
        ;;
    tune)
        # The tuner on the device (docs/performance.md, "The tuner"): the cases' classes
        # tuned into tuning.txt, then the cases under the defaults and under the file.
        tf=${TUNE_FILTER:-64 MiB}
        { echo "== dmlops tune --filter \"$tf\" --budget ${TUNE_BUDGET:-3}"
          timeout "$(left 240)" $lb .gpu/dmlops tune --backend vulkan --out "$OUT/tuning.txt" --filter "$tf" \
              --budget "${TUNE_BUDGET:-3}"; } >"$OUT/tune.txt" 2>&1 || rc=1
        if [ -s "$OUT/tuning.txt" ]; then
            { echo "== dmlops bench --tuning tuning.txt --filter \"$tf\""
              timeout "$(left 150)" $lb .gpu/dmlops bench --backend vulkan --filter "$tf" --tuning "$OUT/tuning.txt" \
                  --no-scaling; } >>"$OUT/tune.txt" 2>&1 || rc=1
        fi
        tail -n 12 "$OUT/tune.txt"
        ;;
    sweep)
        # Each GPU default of src/vk/vk_properties.c against its neighbours, same binary.
        for v in "" DMLOPS_VK_GRID=1024 DMLOPS_VK_GRID=65536 DMLOPS_VK_GRID=1048576 DMLOPS_VK_WORKGROUP=64 \
                 DMLOPS_VK_WORKGROUP=256 DMLOPS_VK_WORKGROUP=512 DMLOPS_VK_TEXEL=1 DMLOPS_VK_COPY_MIN=1099511627776 ""; do
            echo "== setting: ${v:-defaults}" >>"$OUT/sweep.txt"
            env $v timeout 60 $lb .gpu/dmlops bench --backend vulkan --large --filter "${SWEEP_FILTER:-256 MiB}" --iterations 20 \
                --no-scaling >>"$OUT/sweep.txt" 2>&1 || rc=1
        done
        ;;
    ab)
        # Two builds or settings in alternating rounds over the same cases, for a change
        # under 10-30% that one run cannot tell from the GPU's noise: AB_A and AB_B are the
        # commands (default .gpu/dmlops; e.g. AB_B=".gpu/dmlops_old" from a second build,
        # or AB_B="env DMLOPS_VK_RUN=1 .gpu/dmlops"), AB_FILTER the cases ("64 MiB"),
        # AB_ROUNDS the rounds (2) -> ab.txt; here, bench/ab_table.py ab.txt tabulates it.
        for i in $(seq "${AB_ROUNDS:-2}"); do
            for side in A B; do
                eval "cmd=\${AB_$side:-.gpu/dmlops}"
                echo "== $side: $cmd (round $i)" >>"$OUT/ab.txt"
                timeout 60 $lb $cmd bench --backend vulkan --large --filter "${AB_FILTER:-64 MiB}" --iterations 20 \
                    --no-scaling >>"$OUT/ab.txt" 2>&1 || rc=1
            done
        done
        ;;
    *) echo "gpu_run.sh: unknown step '$step' (tests, tune, bench, sweep, ab, model)" >&2; exit 2 ;;
    esac
done
exit $rc
