#!/bin/sh
# The two ways a project builds libdmlops from its source with CMake (docs/cmake.md), each
# building and running test/packaging/consumer.c on the CPU backend (and on Vulkan when
# the machine has a device): add_subdirectory of a copy of this tree, and FetchContent from
# a file:// git clone of it. Each builds the library anew, a minute apiece on two cores,
# so CI's CMake stage runs them (.ci/cmake.sh), beside test_cmake.sh's checks in make test.
# Ends with "N passed, N failed".
cd "$(dirname "$0")/.." || exit 1
CC=${CC:-cc}
passed=0 failed=0
tmp=$(mktemp -d "${TMPDIR:-/tmp}/dmlops_subprojects.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
# Not the flavour of a Makefile build run around us, nor its jobserver; two jobs, as the
# machine has two cores.
unset MAKEFLAGS MFLAGS MAKELEVEL CFLAGS CXXFLAGS LDFLAGS
export CMAKE_BUILD_PARALLEL_LEVEL=2

check() { # name, command...
    name=$1; shift
    if out=$("$@" 2>&1); then
        passed=$((passed + 1)); echo "ok   $name"
    else
        failed=$((failed + 1)); echo "FAIL $name"; echo "$out" | sed 's/^/     | /' | tail -25
    fi
}
finish() {
    echo "$passed passed, $failed failed"
    [ "$failed" -eq 0 ]
    exit
}

if ! command -v cmake >/dev/null 2>&1; then
    failed=$((failed + 1)); echo "FAIL cmake is installed (.ci/deps.sh test installs it)"; finish
fi
backends=cpu
for tool in build/bin/dmlops "$(command -v dmlops 2>/dev/null)"; do
    [ -x "$tool" ] && "$tool" info 2>/dev/null | grep -q '^Vulkan devices: [1-9]' && backends="cpu vulkan" && break
done

# A copy of this tree as it is, uncommitted changes included, committed in a scratch git
# repository so that FetchContent can fetch it from a file:// URL (a tree that is not a git
# checkout is copied without its build directories).
copy=$tmp/dmlops
copy_tree() {
    if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
        git clone -q "$(pwd)" "$copy" && { git diff --binary HEAD | (cd "$copy" && git apply --binary --allow-empty); } &&
            git ls-files -o --exclude-standard | tar -cf - -T - | tar -xf - -C "$copy"
    else
        mkdir -p "$copy" && tar -cf - --exclude='./build*' --exclude='./.git' . | tar -xf - -C "$copy" && git -C "$copy" init -q
    fi && (cd "$copy" && git add -A && git -c user.name=test -c user.email=test@localhost commit -q --allow-empty -m copy)
}
check "a copy of the tree, its changes committed in a scratch git repository" copy_tree

sub=$tmp/subdir
check "add_subdirectory consumer (test/cmake/subdir): configures with the copy as a subproject" \
    cmake -S test/cmake/subdir -B "$sub" -DDMLOPS_DIR="$copy" -DCMAKE_C_COMPILER="$CC"
check "... builds libdmlops (its static and shared library only) and the consumers" \
    sh -c "cmake --build '$sub' >'$tmp/sub.log' 2>&1 || { tail -30 '$tmp/sub.log'; exit 1; }; \
        test -f '$sub/dmlops/libdmlops.a' && test ! -e '$sub/dmlops/bin' && test ! -e '$sub/dmlops/test'"
check "... dmlops::dmlops (shared) and dmlops::dmlops_static run ($backends)" \
    sh -c "for b in $backends; do '$sub/consumer_shared' \$b && '$sub/consumer_static' \$b || exit 1; done"

fetch=$tmp/fetch
check "FetchContent consumer (test/cmake/fetch): configures, fetching file://$copy" \
    cmake -S test/cmake/fetch -B "$fetch" -DDMLOPS_GIT="file://$copy" \
    -DDMLOPS_GIT_TAG="$(git -C "$copy" rev-parse HEAD 2>/dev/null)" -DCMAKE_C_COMPILER="$CC"
check "... builds, and dmlops::dmlops (the static library) runs ($backends)" \
    sh -c "cmake --build '$fetch' >'$tmp/fetch.log' 2>&1 || { tail -30 '$tmp/fetch.log'; exit 1; }; \
        for b in $backends; do '$fetch/consumer' \$b || exit 1; done"

finish
