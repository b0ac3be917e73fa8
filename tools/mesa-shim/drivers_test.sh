#!/bin/sh
# The drivers test (issue 46; `make test-drivers`, CI's "drivers" stage): every pipeline the
# library can make (`dmlops-isa --all`: every kernel module, element size, AUX type,
# alignment and unit shape, under the GPU's and the CPU's tuning, each path) compiled by
# the real compilers of the GPUs our users run, with no GPU: Mesa's v3dv (Raspberry Pi 4's
# V3D 4.2), turnip (Adreno 618, 630, 660) and ANV (Intel Skylake, Tiger Lake, DG2) under
# drm-shim, Debian's RADV for an RDNA2 and a GCN family with RADV_FORCE_FAMILY, and
# lavapipe. A driver fails on a crash (the process dies), a refused pipeline, shared memory
# a module does not use, or a spill or an Intel build below SIMD16 that the baseline of
# known faults does not hold (below); the new faults go to stdout.
#
# Usage: drivers_test.sh [--tables] DMLOPS_ISA [CONFIG...]   (configs as below: "anv tgl", "v3dv",
# ...). --tables (`make isa`): instead, each driver's table of the standard cases
# (`dmlops-isa --summary`: instructions, registers, spills, waves or SIMD width or
# threads, shared memory), as docs/performance.md carries them.
# The shimmed drivers are built once (build_mesa.sh, 3-14 minutes) into
# $DMLOPS_MESA_CACHE/<key> (default /var/cache/dmlops-mesa-shim), the key the Mesa source
# package's version, this directory's build script (its code, not its comments) and patch,
# so that a new package, script or patch builds again and nothing else does; DMLOPS_MESA_DIR names a finished build to use
# instead. Ends with "N passed, N failed", as the test binaries do.
# DMLOPS_DRIVERS_EVERY: see below.
set -u
mode=--all
if [ "${1:-}" = --tables ]; then mode=--summary; shift; fi
ISA=$1
shift
HERE=$(cd "$(dirname "$0")" && pwd)
if [ $# -eq 0 ]; then
    set -- "radv navi21" "radv polaris10" "v3dv" "turnip 618" "turnip 630" "turnip 660" "anv skl" "anv tgl" \
        "anv dg2" "lavapipe"
fi
passed=0 failed=0
# DMLOPS_DRIVERS_EVERY=N compiles every N-th pipeline only: all of them (about 2,700) take
# 10-30 minutes a driver on 2 cores, so CI samples with a prime stride, which does not
# alias with the nested loops' periods (2, 3, 4) that make the list.
EVERY=${DMLOPS_DRIVERS_EVERY:-1}

# The cached build: its key hashes what decides what it holds.
mesa_dir() {
    if [ -n "${DMLOPS_MESA_DIR:-}" ]; then echo "$DMLOPS_MESA_DIR"; return; fi
    version=$(apt-cache showsrc mesa 2>/dev/null | sed -n 's/^Version: //p' | head -n 1)
    # The script's comments are left out of the key: editing them changes no build.
    key=$( (echo "$version"; grep -v '^[[:space:]]*#' "$HERE/build_mesa.sh"; cat "$HERE/v3dv-headless.patch") |
        sha256sum | cut -c1-16)
    echo "${DMLOPS_MESA_CACHE:-/var/cache/dmlops-mesa-shim}/$key"
}

MESA=""
for cfg in "$@"; do
    case $cfg in radv* | lavapipe) ;; *) MESA=$(mesa_dir) ;; esac
done
if [ -n "$MESA" ] && [ ! -f "$MESA/ok" ]; then
    echo "drivers: building Mesa's drivers under drm-shim into $MESA (once; 3-14 minutes)"
    start=$(date +%s)
    if ! bash "$HERE/build_mesa.sh" "$MESA"; then
        echo "FAIL drivers: the Mesa build failed; see $MESA/build.log and $MESA/configure.log"
        echo "0 passed, 1 failed"
        exit 1
    fi
    echo "drivers: Mesa built in $(($(date +%s) - start)) s"
fi

log=$(mktemp)
err=$(mktemp)
# env.sh reads its arguments from the positional parameters, set in each subshell: dash's
# `.` passes none of its own.
if [ $mode = --summary ]; then
    for cfg in "$@"; do
        echo "### $cfg"
        echo
        # shellcheck disable=SC2086 # the config is a driver and its GPU
        if (set -- "$MESA" $cfg && . "$HERE/env.sh" && exec "$ISA" --summary --no-teardown) >"$log" 2>"$err"; then
            passed=$((passed + 1))
            cat "$log"
        else
            failed=$((failed + 1))
            cat "$log"
            echo "FAIL $cfg: dmlops-isa exited $?; its last words:"
            tail -n 5 "$err" | sed 's/^/    /'
        fi
        echo
    done
    rm -f "$log" "$err"
    echo "$passed passed, $failed failed"
    [ "$failed" -eq 0 ]
    exit
fi
# The known faults (DMLOPS_DRIVERS_BASELINE, default drivers_baseline.tsv beside this
# script: config, pipeline, tuning, spills, fills, width): issue 46 wants none, and until
# the kernels get there a spill or a narrow SIMD build that the baseline records, no worse,
# is reported as known instead of failing, so that the kernels cannot get worse on any
# driver while they are made lean. A crash, a refusal, unused shared memory, a spill or a
# SIMD8 build the baseline does not hold, or more spills or fills than it holds, fail.
# DMLOPS_DRIVERS_RECORD=FILE also writes this run's faults there, in the baseline's format.
BASELINE=${DMLOPS_DRIVERS_BASELINE:-$HERE/drivers_baseline.tsv}
record=${DMLOPS_DRIVERS_RECORD:-}
[ -n "$record" ] && : >"$record"
tsv=$(mktemp)
for cfg in "$@"; do
    start=$(date +%s)
    # shellcheck disable=SC2086 # the config is a driver and its GPU
    (set -- "$MESA" $cfg && . "$HERE/env.sh" && exec "$ISA" --all --tsv --every "$EVERY" --no-teardown) >"$tsv" 2>"$err"
    rc=$?
    # The pipelines judged: every line after the header (an exit before the last one is a crash).
    total=$(($(wc -l <"$tsv") - 1))
    if [ -n "$record" ]; then
        awk -F '\t' -v cfg="$cfg" 'NR > 1 && $10 != "" { print cfg "\t" $1 "\t" $2 "\t" $6 "\t" $7 "\t" $8 }' "$tsv" >>"$record"
    fi
    # Each fault line: "known" (the baseline holds it, no worse) or "new".
    base=$([ -f "$BASELINE" ] && echo "$BASELINE" || echo /dev/null)
    awk -F '\t' -v cfg="$cfg" -v base="$base" '
        FILENAME == base { if ($1 == cfg) { sp[$2 "\t" $3] = $4; fi_[$2 "\t" $3] = $5; w[$2 "\t" $3] = $6 } next }
        FNR == 1 { next }
        $10 == "" { next }
        {
            k = $1 "\t" $2
            known = ($10 == "spills" || $10 == "SIMD8") && (k in sp) && $6 + 0 <= sp[k] + 0 && $7 + 0 <= fi_[k] + 0 &&
                    ($10 != "SIMD8" || $8 + 0 >= w[k] + 0)
            printf "%s %s (%s): %s: %s instructions, %s:%s spills:fills, width %s%s\n", known ? "known" : "new",
                   $1, $2, $10, $4, $6, $7, $8, (k in sp) ? " (baseline " sp[k] ":" fi_[k] ", width " w[k] ")" : ""
        }' "$base" "$tsv" >"$log"
    new=$(grep -c '^new ' "$log")
    known=$(grep -c '^known ' "$log")
    secs=$(($(date +%s) - start))
    if [ $rc -le 1 ] && [ "$total" -gt 0 ] && [ "$new" -eq 0 ]; then
        passed=$((passed + 1))
        echo "ok   $cfg ($secs s): $total pipelines, no new fault, $known known ($(basename "$BASELINE"))"
    else
        failed=$((failed + 1))
        if [ $rc -gt 1 ] || [ "$total" -le 0 ]; then
            echo "FAIL $cfg ($secs s): exit $rc after $total pipelines (a crash or no device); its last words:"
            tail -n 5 "$err" | sed 's/^/    /'
        else
            echo "FAIL $cfg ($secs s): $total pipelines, $new new faults, $known known"
        fi
    fi
    grep '^new ' "$log" | head -n 40 | sed 's/^new /    /'
done
rm -f "$tsv"
rm -f "$log" "$err"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
