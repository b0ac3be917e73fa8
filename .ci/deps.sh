#!/bin/sh
# Checks for the tools and libraries libdmlops needs: the commands themselves, pkg-config
# modules and the volk source, never Debian package names, so it works on any system.
# When something is missing it installs the Debian packages that provide it, but only when
# run as root on Debian; otherwise it prints what is missing and the apt-get line, and
# exits 1. Nothing runs it for a plain `make`: `make deps` (everything), `make demo`
# (demo) and `make test` (test) do, passing the Makefile's CC, PKG_CONFIG, VOLK_SRC, ...
#
# Usage: .ci/deps.sh [--check] [--say] [build|demo|test]
#   build  what `make` needs: a C compiler, pkg-config with the vulkan and libcjson
#          modules, glslangValidator, spirv-val, spirv-opt and the volk source (the default)
#   demo   also a Vulkan driver (Mesa's lavapipe on Debian), for `make demo`
#   test   also a C++ compiler, spirv-dis, cmake, groff, the Khronos validation layer, on
#          Linux Mesa's RADV (test_isa compiles the kernels with it, no GPU needed), and
#          ONNX's node tests (libonnx-testdata: test/test_onnx_nodes.c runs them; its
#          DMLOPS_ONNX_TESTDATA names another copy, or skip)
#   valgrind  test, and valgrind (`make test-valgrind`)
#   fuzz   test, and clang with its libFuzzer runtime (`make fuzz`)
#   platforms  build, and the cross compilers and emulators of .ci/platforms.sh (MinGW-w64,
#          aarch64 and armhf gcc, qemu-user, wine, Xvfb)
#   --check  only report, never install
#   --say    also say so when nothing is missing (`make deps`; the checks before
#            `make test` and `make demo` stay quiet)
check_only=
say=
profile=build
for a in "$@"; do
    case $a in
    --check) check_only=1 ;;
    --say) say=1 ;;
    build | demo | test | valgrind | fuzz | platforms) profile=$a ;;
    *) echo "usage: $0 [--check] [--say] [build|demo|test|valgrind|fuzz|platforms]" >&2; exit 2 ;;
    esac
done

CC=${CC:-cc}
CXX=${CXX:-c++}
PKG_CONFIG=${PKG_CONFIG:-pkg-config}
GLSLANG=${GLSLANG:-glslangValidator}
SPIRV_VAL=${SPIRV_VAL:-spirv-val}
SPIRV_OPT=${SPIRV_OPT:-spirv-opt}
VOLK_SRC=${VOLK_SRC:-/usr/include/volk.c}

# Vulkan loader search paths for driver (ICD) and layer manifests.
vk_dirs() { # icd.d | explicit_layer.d
    for d in ${XDG_CONFIG_DIRS:-/etc/xdg} /etc ${XDG_DATA_DIRS:-/usr/local/share:/usr/share}; do
        echo "$d"
    done | tr ':' '\n' | while read -r d; do
        case $d in /etc) echo "/etc/vulkan/$1" ;; *) echo "$d/vulkan/$1" ;; esac
    done
}
has_manifest() { # icd.d|explicit_layer.d, glob
    for d in $(vk_dirs "$1"); do
        for f in "$d"/$2; do [ -f "$f" ] && return 0; done
    done
    return 1
}

missing="" pkgs=""
need() { # what, Debian package (empty: none known)
    missing="$missing
  $1"
    case " $pkgs " in *" $2 "*) ;; *) pkgs="$pkgs $2" ;; esac
}
have() { command -v "$1" >/dev/null 2>&1; }
compiler_pkg() { # the package for a compiler command: gcc, g++ and cc come with build-essential
    case ${1##*/} in clang*) echo clang ;; *) echo build-essential ;; esac
}

check() {
    missing="" pkgs=""
    have make || need "make" make
    have "$CC" || need "C compiler ($CC)" "$(compiler_pkg "$CC")"
    if have "$PKG_CONFIG"; then
        "$PKG_CONFIG" --exists vulkan || need "pkg-config module vulkan (the Vulkan headers)" libvulkan-dev
        "$PKG_CONFIG" --exists libcjson || need "pkg-config module libcjson" libcjson-dev
    else
        need "pkg-config ($PKG_CONFIG)" pkg-config
        need "pkg-config module vulkan (cannot tell without pkg-config)" libvulkan-dev
        need "pkg-config module libcjson (cannot tell without pkg-config)" libcjson-dev
    fi
    have "$GLSLANG" || need "GLSL compiler $GLSLANG" glslang-tools
    have "$SPIRV_VAL" || need "SPIR-V validator $SPIRV_VAL" spirv-tools
    have "$SPIRV_OPT" || need "SPIR-V optimizer $SPIRV_OPT" spirv-tools
    { [ -f "$VOLK_SRC" ] && [ -f "${VOLK_SRC%/*}/volk.h" ]; } || need "volk source $VOLK_SRC and volk.h beside it" libvulkan-volk-dev
    [ "$profile" = build ] && return 0
    if [ "$profile" = platforms ]; then
        have x86_64-w64-mingw32-gcc || need "MinGW-w64 (x86_64-w64-mingw32-gcc)" gcc-mingw-w64-x86-64
        have aarch64-linux-gnu-gcc || need "aarch64-linux-gnu-gcc" gcc-aarch64-linux-gnu
        have arm-linux-gnueabihf-gcc || need "arm-linux-gnueabihf-gcc" gcc-arm-linux-gnueabihf
        { have qemu-aarch64 && have qemu-arm; } || need "qemu-aarch64 and qemu-arm" qemu-user
        have wine || need "wine" wine
        [ -x /usr/lib/wine/wine64 ] || need "64-bit wine" wine64
        have xvfb-run || need "xvfb-run" xvfb
        have xauth || need "xauth (for xvfb-run)" xauth
        return 0
    fi
    [ -n "${VK_DRIVER_FILES:-${VK_ICD_FILENAMES:-}}" ] || has_manifest icd.d '*.json' ||
        need "a Vulkan driver (no ICD manifest in $(vk_dirs icd.d | tr '\n' ' '))" mesa-vulkan-drivers
    [ "$profile" = demo ] && return 0
    have "$CXX" || need "C++ compiler ($CXX)" "$(compiler_pkg "$CXX")"
    have spirv-dis || need "spirv-dis" spirv-tools
    have cmake || need "cmake" cmake
    have groff || need "groff (checks the man page)" groff-base
    has_manifest explicit_layer.d 'VkLayer_khronos_validation.json' ||
        need "the Khronos validation layer (VkLayer_khronos_validation.json)" vulkan-validationlayers
    # test_isa's machine-code report compiles the kernels on Mesa's RADV for an AMD GPU that
    # is not there (Debian ships it with lavapipe); it skips where RADV is absent.
    [ "$(uname -s)" != Linux ] || has_manifest icd.d 'radeon_icd.*.json' ||
        need "Mesa's RADV driver (radeon_icd.*.json), for the kernels' machine code (test_isa, make isa)" mesa-vulkan-drivers
    onnx_nodes=${DMLOPS_ONNX_TESTDATA:-/usr/share/libonnx-testdata/data/node}
    [ "$onnx_nodes" = skip ] || [ -f "$onnx_nodes/test_slice/model.onnx" ] ||
        need "ONNX's node tests ($onnx_nodes/test_slice/model.onnx)" libonnx-testdata
    [ "$profile" = valgrind ] && { have valgrind || need "valgrind" valgrind; }
    [ "$profile" = fuzz ] && fuzz_check
    return 0
}

# libFuzzer ships apart from clang on Debian (libclang-rt-N-dev, only recommended), so
# the check links a fuzz target rather than looking for the compiler alone.
fuzz_check() {
    if ! have clang; then
        need "clang (make fuzz)" clang
        need "clang's libFuzzer runtime" "libclang-rt-$(clang_major)-dev"
        return
    fi
    tmp=$(mktemp -d)
    printf 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { (void)d; (void)n; return 0; }\n' > "$tmp/f.c"
    clang -fsanitize=fuzzer,address -o "$tmp/f" "$tmp/f.c" >/dev/null 2>&1 ||
        need "clang's libFuzzer runtime (-fsanitize=fuzzer)" "libclang-rt-$(clang_major)-dev"
    rm -rf "$tmp"
}
clang_major() { # of the installed clang, else Debian 12's
    v=$(clang --version 2>/dev/null | sed -n 's/.*clang version \([0-9][0-9]*\).*/\1/p' | head -n 1)
    echo "${v:-14}"
}

report() {
    echo "deps: missing:$missing" >&2
    echo "deps: on Debian or Ubuntu, as root:" >&2
    echo "  apt-get install -y --no-install-recommends$pkgs" >&2
}

present() {
    [ -z "$say" ] || echo "deps: nothing missing for the $profile profile (CC=$CC, $PKG_CONFIG, $GLSLANG, $SPIRV_VAL, $SPIRV_OPT, $VOLK_SRC$([ "$profile" = build ] || echo ', and the rest .ci/deps.sh lists for it'))"
    exit 0
}

check
[ -z "$missing" ] && present
if [ -n "$check_only" ] || [ "$(id -u)" != 0 ] || [ ! -r /etc/debian_version ] || ! have apt-get; then
    report
    exit 1
fi
echo "deps: installing$pkgs" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null 2>&1 || apt-get update
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $pkgs >/dev/null 2>&1 ||
    apt-get install -y --no-install-recommends $pkgs || exit 1
check
[ -z "$missing" ] && present
echo "deps: still missing after installing the packages" >&2
report
exit 1
