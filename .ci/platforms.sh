#!/usr/bin/env bash
# The platforms stage of .ci/run: cross-builds the library, its tests and examples for
# aarch64, armhf (and ARMv6) and Windows (MinGW-w64) from the README's commands, runs the
# CPU-backend suites under qemu-aarch64, qemu-arm and wine, Vulkan under wine (winevulkan
# to the host's lavapipe, through Xvfb), and checks the symbols each static archive
# exposes. Installs its own packages (.ci/deps.sh platforms). Ends with
# "N passed, N failed".
set -uo pipefail
# Wine's Vulkan programs run beside other lavapipe users (the suites two at a time, a
# native run on the same host), so they keep no shader disk cache to share. It was turned
# off first as a guess at the interop test's crash under wine (2026-11-28); the crash was
# in lavapipe's queue thread at vkDestroyDevice, and stopped once a context's destroy
# waited for the queue to be idle (src/vk/vk_device.c, dm_vk_device_wait_idle).
export MESA_SHADER_CACHE_DISABLE=true
cd "$(dirname "$0")/.."
unset MAKEFLAGS MFLAGS MAKELEVEL
sh .ci/deps.sh platforms >&2 || exit 1
export WINEDEBUG=-all WINEPREFIX=${WINEPREFIX:-$(mktemp -d "${TMPDIR:-/tmp}/dmlops-wine.XXXXXX")}
passed=0 failed=0

check() { # name, command...
    local name=$1 out rc
    shift
    out=$("$@" 2>&1)
    rc=$?
    if [ $rc -eq 0 ]; then
        passed=$((passed + 1)); echo "ok   $name"
    else
        failed=$((failed + 1)); echo "FAIL $name (exit $rc)"; echo "$out" | tail -30 | sed 's/^/     | /'
    fi
}

# suite NAME, make arguments...: the CPU suites on the target, their summary counted.
suite() {
    local name=$1 log line rc
    shift
    log=$(mktemp)
    make --no-print-directory "$@" test-cpu >"$log" 2>&1
    rc=$?
    grep -E '^(ok|FAIL|==)|^ *note|passed, ' "$log" | grep -v '^ok' | sed "s|^|  [$name] |"
    line=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$log" | tail -n 1)
    if [ -n "$line" ]; then
        passed=$((passed + ${line%% passed*}))
        local f=${line#*, }
        failed=$((failed + ${f%% failed*}))
        echo "$name: $line"
    else
        failed=$((failed + 1)); echo "FAIL $name: no summary (exit $rc)"; tail -30 "$log" | sed 's/^/     | /'
    fi
    [ $rc -eq 0 ] || [ -n "$line" ] || true
    rm -f "$log"
}

# The archive's global symbols are exactly the public API: every DMLOPS_API function of
# the headers, nothing else (volk, dm_*, .refptr.*).
symbols() { # nm, archive
    local want got
    want=$(sed -n 's/^DMLOPS_API .*[ *]\(dmlops_[a-z0-9_]*\)(.*/\1/p' include/*.h | sort -u)
    got=$("$1" -g --defined-only "$2" | awk 'NF == 3 {print $3}' | sort -u)
    [ "$want" = "$got" ] || { diff <(echo "$want") <(echo "$got"); return 1; }
}

for t in aarch64-linux-gnu arm-linux-gnueabihf x86_64-w64-mingw32; do
    B=build-$t
    check "$t: make CROSS=$t- builds warning-free (-Werror)" make -j2 CROSS=$t- B=$B
    check "$t: the archive's global symbols are exactly the public API" symbols $t-nm $B/libdmlops.a
    check "$t: the examples build" make -j2 CROSS=$t- B=$B $B/examples/quickstart$([ $t = x86_64-w64-mingw32 ] && echo .exe)
    # Windows' suites run under Xvfb, so that wine's Vulkan reaches the host's lavapipe and
    # test_vulkan.exe runs its Vulkan tests too (without X, wine's loader has no driver).
    emulator=()
    [ $t = x86_64-w64-mingw32 ] && emulator=(EMULATOR="xvfb-run -a wine")
    suite "$t CPU suites" -j2 CROSS=$t- B=$B "${emulator[@]}"
done

# ARMv6 (Raspberry Pi Zero and 1): builds, with no `yield` (ARMv6K) and no 8-byte atomic
# that would need libatomic. (Debian's armhf C library is ARMv7 code, so the result is
# not run on an ARMv6 CPU model here.)
check "armv6: the library and a test build and link" \
    make -j2 CROSS=arm-linux-gnueabihf- B=build-armv6 CFLAGS="-O2 -march=armv6+fp -marm" \
    build-armv6/libdmlops.a build-armv6/test/test_targeted
check "armv6: no yield instruction, no __atomic_* call" \
    sh -c '! arm-linux-gnueabihf-objdump -d build-armv6/libdmlops.a | grep -wq yield &&
           ! arm-linux-gnueabihf-nm -u build-armv6/libdmlops.a | grep -q __atomic_'

# Windows applications beside libdmlops.a: one compiles volk itself, one links vulkan-1;
# both ran above on the CPU and without a device. Under Xvfb, wine's Vulkan reaches the
# host's lavapipe, and the same programs record into their own command buffers.
W=build-x86_64-w64-mingw32
on_lavapipe() { # program: all its tests pass, and on a device
    local out
    out=$(timeout 600 xvfb-run -a wine "$1" 2>&1 | tr -d '\r')
    echo "$out"
    echo "$out" | grep -q '^[1-9][0-9]* passed, 0 failed$' && ! echo "$out" | grep -q 'no Vulkan device'
}
for t in interop_volk interop_vulkan; do
    check "windows: $t.exe on lavapipe through winevulkan" on_lavapipe $W/test/$t.exe
done

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
