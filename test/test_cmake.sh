#!/bin/sh
# The CMake build beside the Makefile (CMakeLists.txt, docs/cmake.md). One CMake build of
# this tree is checked against the Makefile's build in B: the same library, tool and test
# sources compiled with the same flags (the build type's -O and -g aside), the same
# SPIR-V modules and kernel tables, the same global symbols in libdmlops.a and
# libdmlops.so, the same suites under CTest, and `cmake --install` laying the same files as
# `make install`. Then a project consuming the CMake-installed tree with find_package,
# building and running test/packaging/consumer.c on the CPU backend (and on Vulkan when the
# tool sees a device). The other two ways to consume it, add_subdirectory and FetchContent,
# each build the library again (a minute apiece here): test/cmake_subprojects.sh, which
# CI's CMake stage runs (.ci/cmake.sh), so that make test stays under ten minutes. Ends
# with "N passed, N failed".
cd "$(dirname "$0")/.." || exit 1
B=${B:-build}
CC=${CC:-cc}
CXX=${CXX:-c++}
passed=0 failed=0
tmp=$(mktemp -d "${TMPDIR:-/tmp}/dmlops_cmake.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
# The suite runs inside make: the CMake builds must not join its jobserver, nor take the
# flavour of the Makefile build under test (make test-asan's CFLAGS reach us through the
# environment); two jobs, as the machine has two cores.
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
multiarch=$($CC -print-multiarch 2>/dev/null)
[ -n "$multiarch" ] || multiarch=$(uname -m)-linux-gnu
libdir=lib/$multiarch
cm=$tmp/build
# The Makefile's own view of a variable (its lists, after lists.mk and the wildcards).
make_var() { printf 'dmt-print:\n\t@echo $(%s)\n' "$1" | make --no-print-directory -s -f Makefile -f - dmt-print; }

# ---- one CMake build of this tree, the tests configured but not built ----------------------
# Installed as the staged multiarch tree test_packaging.sh lays with make (DESTDIR, /usr).
check "cmake configures this tree ($CC, compile_commands.json, prefix /usr, libdir $libdir)" \
    cmake -S . -B "$cm" -DCMAKE_C_COMPILER="$CC" -DCMAKE_EXPORT_COMPILE_COMMANDS=ON \
    -DCMAKE_INSTALL_PREFIX=/usr -DCMAKE_INSTALL_LIBDIR="$libdir"
check "cmake --build makes libdmlops.a, libdmlops.so and the tool where the Makefile puts them" \
    sh -c "cmake --build '$cm' --target dmlops_static dmlops_shared dmlops_tool >'$tmp/build.log' 2>&1 || \
        { tail -30 '$tmp/build.log'; exit 1; }; cd '$cm' && test -f libdmlops.a && test -L libdmlops.so && \
        test -x bin/dmlops && ls spv/*.h spv/*.spv >/dev/null"

# ---- one list, not two --------------------------------------------------------------------
# Every compile of a C file as "<file> <flags, sorted>": the compiler, the output, the
# dependency-file flags and the build type's -O, -g and -DNDEBUG left out, the tree's path
# dropped, the build directory written B, -isystem written -I.
normalize() { # build directory; reads "file<TAB>command" lines
    awk -F '\t' -v src="$(pwd)/" -v bd="$1/" '
    function rel(t, p) { return index(t, p) == 1 ? substr(t, length(p) + 1) : t }
    {
        n = split($2, w, " "); m = 0
        for (i = 2; i <= n; i++) {
            t = w[i]
            if (t == "-o" || t == "-MF" || t == "-MT" || t == "-c") { i++; continue }
            if (t == "-MD" || t == "-MMD" || t == "-MP" || t ~ /^-O/ || t ~ /^-g/ || t == "-DNDEBUG") continue
            if (t == "-isystem") t = "-I" w[++i]
            if (t ~ /^-I/) { d = substr(t, 3); if (index(d, bd) == 1) d = "B/" rel(d, bd); t = "-I" rel(d, src) }
            f[++m] = t
        }
        for (a = 2; a <= m; a++) { v = f[a]; b = a - 1; while (b > 0 && f[b] > v) { f[b + 1] = f[b]; b-- } f[b + 1] = v }
        s = rel($1, src); for (a = 1; a <= m; a++) s = s " " f[a]
        print s
    }' | sort
}
# CMake's: compile_commands.json, where CMake 3.x writes each entry's "command" line before
# its "file" line. The programs that the Makefile compiles and links in one command, and so
# has no object of, are left out (interop_vulkan, interop_volk and its volk.c, no_alloc,
# thread_fail): their flags are the other tests'.
awk '/"command":/ { sub(/^[^:]*: "/, ""); sub(/",?$/, ""); cmd = $0 }
     /"file":/ { sub(/^[^:]*: "/, ""); sub(/",?$/, "")
                 if (cmd !~ /(interop_vulkan|interop_volk|dmlops_test_volk|no_alloc|thread_fail)\.dir\//) print $0 "\t" cmd }' \
    "$cm/compile_commands.json" | normalize "$cm" >"$tmp/cmake.cc"
# The Makefile's: make -n -B of the library's, the tool's and the tests' objects, each
# command on one line (sed joins the lines a backslash continues).
test_objs=$(for t in $(make_var TEST_SRC) test/harness.c $(make_var ISA_SRC); do echo "$tmp/mk/obj/${t%.c}.o"; done)
# shellcheck disable=SC2086
make --no-print-directory -n -B B="$tmp/mk" CFLAGS= lib cli $test_objs 2>/dev/null |
    sed -e ':a' -e '/\\$/{N;s/\\\n//;ba' -e '}' |
    awk -v cc="$CC" '$1 == cc { for (i = 2; i < NF; i++) if ($i == "-c" && $(i + 1) ~ /\.c$/) { print $(i + 1) "\t" $0; next } }' |
    normalize "$tmp/mk" >"$tmp/make.cc"
cut -d' ' -f1 "$tmp/make.cc" >"$tmp/make.files"
cut -d' ' -f1 "$tmp/cmake.cc" >"$tmp/cmake.files"
check "CMake compiles every C file the Makefile compiles (src/**, src/cli, volk.c, test/*, tools/isa), no other" \
    sh -c "[ \$(grep -c '^src/' '$tmp/make.files') -gt 40 ] && diff '$tmp/make.files' '$tmp/cmake.files'"
check "... each with the Makefile's flags (warnings, -std=c11, -D_GNU_SOURCE, visibility, -fPIC, includes)" \
    diff "$tmp/make.cc" "$tmp/cmake.cc"

# The kernels: the same modules, word for word, under the same names; the same tables.
(cd "$B/spv" && ls ./*.spv) >"$tmp/make.spv" 2>/dev/null
(cd "$cm/spv" && ls ./*.spv) >"$tmp/cmake.spv" 2>/dev/null
check "CMake builds the Makefile's SPIR-V modules (every kernel, variant, row bucket and texel path)" \
    sh -c "[ \$(wc -l <'$tmp/make.spv') -gt 50 ] && diff '$tmp/make.spv' '$tmp/cmake.spv' && \
        for f in \$(cat '$tmp/cmake.spv'); do cmp '$B/spv/'\$f '$cm/spv/'\$f || exit 1; done"
# Past the first line (which names the generator): the gather kernels' headers whole, the
# others' words (the Makefile has glslang write those).
same_header() { # kernel header name
    if grep -q '_MODULES' "$cm/spv/$1"; then
        tail -n +2 "$B/spv/$1" >"$tmp/h.make" && tail -n +2 "$cm/spv/$1" >"$tmp/h.cmake"
    else
        grep -o '0x[0-9a-f]\{8\}' "$B/spv/$1" >"$tmp/h.make" && grep -o '0x[0-9a-f]\{8\}' "$cm/spv/$1" >"$tmp/h.cmake"
    fi && diff "$tmp/h.make" "$tmp/h.cmake" | head -5 && cmp -s "$tmp/h.make" "$tmp/h.cmake"
}
same_headers() {
    [ "$(cd "$B/spv" && ls ./*.h)" = "$(cd "$cm/spv" && ls ./*.h)" ] || return 1
    for h in $(cd "$cm/spv" && ls ./*.h); do same_header "$h" || { echo "$h differs"; return 1; }; done
}
check "... and embeds them as the Makefile does (the kernels' arrays, DM_SPV_<kernel>_MODULES)" same_headers

# The symbols: CMake's libdmlops.a hides what the Makefile's hides, and its libdmlops.so
# exports what the Makefile's exports.
nm -g --defined-only "$B/libdmlops.a" 2>/dev/null | awk 'NF==3 {print $3}' | sort >"$tmp/make.a"
nm -g --defined-only "$cm/libdmlops.a" 2>/dev/null | awk 'NF==3 {print $3}' | sort >"$tmp/cmake.a"
check "CMake's libdmlops.a: only dmlops_* global, as the Makefile's, and no vk* needed" \
    sh -c "[ -s '$tmp/cmake.a' ] && ! grep -v '^dmlops_' '$tmp/cmake.a' && diff '$tmp/make.a' '$tmp/cmake.a' && \
        ! nm -u '$cm/libdmlops.a' | grep -E ' (vk|volk)'"
soname=$(readlink "$B/libdmlops.so")
so=$(readlink "$B/$soname")
nm -D --defined-only "$B/$so" 2>/dev/null | awk 'NF==3 {print $3}' | sort >"$tmp/make.so"
nm -D --defined-only "$cm/$so" 2>/dev/null | awk 'NF==3 {print $3}' | sort >"$tmp/cmake.so"
check "CMake's $so: soname $soname, its links, and the dynamic symbols of the Makefile's" \
    sh -c "[ \"\$(readlink '$cm/libdmlops.so')\" = '$soname' ] && [ \"\$(readlink '$cm/$soname')\" = '$so' ] && \
        readelf -d '$cm/$so' | grep '(SONAME)' | grep -qF '[$soname]' && [ -s '$tmp/cmake.so' ] && diff '$tmp/make.so' '$tmp/cmake.so'"

# The suites: CTest runs the programs of make test, and the tool's and README's scripts.
ctest --test-dir "$cm" -N 2>/dev/null | sed -n 's/^ *Test *#[0-9]*: //p' | sort >"$tmp/ctest"
{ for t in $(make_var TEST_BIN) $(make_var INTEROP_BIN); do basename "$t"; done; echo test_cli.sh; echo test_readme.sh; } |
    sort >"$tmp/make.tests"
check "ctest runs make test's programs (test_*.c, interop_vulkan and _volk, no_alloc, thread_fail) and scripts" \
    diff "$tmp/make.tests" "$tmp/ctest"

# ---- install: the files of make install ----------------------------------------------------
mkstage=$tmp/make-stage cmstage=$tmp/cmake-stage
check "make install and cmake --install into staged /usr trees (DESTDIR; LIBDIR /usr/$libdir)" \
    sh -c "make --no-print-directory -s B='$B' LDCONFIG=true DESTDIR='$mkstage' PREFIX=/usr LIBDIR=/usr/$libdir install && \
        DESTDIR='$cmstage' cmake --install '$cm' >/dev/null"
# Each file's type, mode and link target; then the text files byte for byte.
(cd "$mkstage" 2>/dev/null && find . ! -type d -printf '%y %m %p %l\n' | sort) >"$tmp/make.tree"
(cd "$cmstage" 2>/dev/null && find . ! -type d -printf '%y %m %p %l\n' | sort) >"$tmp/cmake.tree"
check "cmake --install lays the same files, modes and links as make install" \
    sh -c "[ \$(wc -l <'$tmp/make.tree') -ge 11 ] && diff '$tmp/make.tree' '$tmp/cmake.tree'"
check "... the same headers, dmlops.pc, CMake package, version file and man page, byte for byte" \
    sh -c "cd '$mkstage' && for f in \$(find . -type f \( -name '*.h' -o -name '*.pc' -o -name '*.cmake' -o -name '*.1' \)); do \
        cmp \"\$f\" '$cmstage/'\"\$f\" || exit 1; done"
check "cmake --install --prefix P writes P into dmlops.pc, as make install PREFIX=P does" \
    sh -c "cmake --install '$cm' --prefix '$tmp/p' >/dev/null && \
        make --no-print-directory -s B='$B' LDCONFIG=true PREFIX='$tmp/mp' LIBDIR='$tmp/mp/$libdir' install && \
        sed 's|$tmp/mp|$tmp/p|' '$tmp/mp/$libdir/pkgconfig/dmlops.pc' | cmp - '$tmp/p/$libdir/pkgconfig/dmlops.pc' && \
        cmp '$tmp/mp/$libdir/cmake/dmlops/dmlopsConfig.cmake' '$tmp/p/$libdir/cmake/dmlops/dmlopsConfig.cmake'"

# ---- the three consumers ------------------------------------------------------------------
backends=cpu
[ -x "$cm/bin/dmlops" ] && "$cm/bin/dmlops" info 2>/dev/null | grep -q '^Vulkan devices: [1-9]' && backends="cpu vulkan"
pk=$tmp/find_package
check "find_package(dmlops) consumer (test/packaging) configures and builds against the CMake-installed tree" \
    cmake -S test/packaging -B "$pk" -DCMAKE_PREFIX_PATH="$cmstage/usr" -DCMAKE_C_COMPILER="$CC" -DCMAKE_CXX_COMPILER="$CXX"
check "... builds" cmake --build "$pk"
check "... dmlops::dmlops links the staged libdmlops.so, and runs ($backends)" \
    sh -c "ldd '$pk/consumer_shared' | grep -qF '$cmstage/usr/$libdir/libdmlops.so' && \
        for b in $backends; do '$pk/consumer_shared' \$b || exit 1; done"
check "... dmlops::dmlops_static and the C++ consumer run ($backends)" \
    sh -c "! readelf -d '$pk/consumer_static' | grep NEEDED | grep -q libdmlops && \
        for b in $backends; do '$pk/consumer_static' \$b && '$pk/consumer_cxx' \$b || exit 1; done"

finish
