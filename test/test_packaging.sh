#!/bin/sh
# Packaging checks: the headers in C11 and C++ (dmlops.h with and without Vulkan first,
# dmlops_vulkan.h alone and beside volk, dmlops_onnx.h alone), the
# symbols the archive and the shared library export and need, `make install` (static and
# shared library, dmlops.pc, the CMake package, the man page; LIBDIR, DESTDIR, a custom
# prefix) with a consumer built through pkg-config (shared and static), CMake and as C++,
# `make uninstall`, and the SPIR-V capabilities of the embedded kernels.
# Ends with "N passed, N failed".
cd "$(dirname "$0")/.." || exit 1
B=${B:-build}
CC=${CC:-cc}
CXX=${CXX:-c++}
LDFLAGS=${LDFLAGS:-} # the build's link flags, e.g. the sanitizer runtimes of `make test-asan`
PKG_CONFIG=${PKG_CONFIG:-pkg-config}
passed=0 failed=0
tmp=$(mktemp -d "${TMPDIR:-/tmp}/dmlops_pkg.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM

check() { # name, command...
    name=$1; shift
    if out=$("$@" 2>&1); then
        passed=$((passed + 1)); echo "ok   $name"
    else
        failed=$((failed + 1)); echo "FAIL $name"; echo "$out" | sed 's/^/     | /' | head -20
    fi
}

check "header compiles as C11 -pedantic" $CC -std=c11 -pedantic -Wall -Wextra -Werror -fsyntax-only -x c include/dmlops.h
check "header compiles as C++11" $CXX -std=c++11 -Wall -Wextra -Werror -fsyntax-only -x c++ include/dmlops.h
check "dmlops_onnx.h compiles alone as C11 -pedantic" $CC -std=c11 -pedantic -Wall -Wextra -Werror -fsyntax-only -Iinclude -x c include/dmlops_onnx.h
check "dmlops_onnx.h compiles alone as C++11" $CXX -std=c++11 -pedantic -Wall -Wextra -Werror -fsyntax-only -Iinclude -x c++ include/dmlops_onnx.h
check "dmlops_vulkan.h alone compiles as C11" sh -c "printf '#include <dmlops_vulkan.h>\nint main(void){dmlops_vulkan_context_desc d = {0}; (void)d; return dmlops_context_create_vulkan(0,0)==DMLOPS_ERROR_INVALID_ARGUMENT?0:1;}\n' > $tmp/a.c && $CC -std=c11 -pedantic -Wall -Wextra -Werror -Iinclude -c $tmp/a.c -o $tmp/a.o"
check "dmlops_vulkan.h alone compiles as C++11" sh -c "printf '#include <dmlops_vulkan.h>\nint main(){return dmlops_operator_record_vulkan(nullptr, VK_NULL_HANDLE)==DMLOPS_ERROR_INVALID_ARGUMENT?0:1;}\n' > $tmp/a.cpp && $CXX -std=c++11 -Wall -Wextra -Werror -Iinclude -c $tmp/a.cpp -o $tmp/a2.o"
# Each include order docs/api.md promises, in C and in C++ (the body is valid in both).
n=0
for order in 'vulkan.h first|#include <vulkan/vulkan.h>\n#include "dmlops.h"' \
             'volk.h first|#include <volk.h>\n#include "dmlops.h"' \
             'dmlops_vulkan.h after volk.h|#include <volk.h>\n#include <dmlops_vulkan.h>' \
             'dmlops_vulkan.h before volk.h with VK_NO_PROTOTYPES|#define VK_NO_PROTOTYPES\n#include <dmlops_vulkan.h>\n#include <volk.h>'; do
    label=${order%%|*} head=${order#*|} n=$((n + 1))
    printf "$head\nint main(void){VkBuffer b = VK_NULL_HANDLE; (void)b; return dmlops_context_create_vulkan(0,0)==DMLOPS_ERROR_INVALID_ARGUMENT?0:1;}\n" >"$tmp/o$n.c"
    cp "$tmp/o$n.c" "$tmp/o$n.cpp"
    check "$label declares interop (C)" $CC -std=c11 -Wall -Werror -Iinclude -c "$tmp/o$n.c" -o "$tmp/o$n.o"
    check "$label declares interop (C++)" $CXX -std=c++11 -Wall -Werror -Iinclude -c "$tmp/o$n.cpp" -o "$tmp/o$n.xo"
done
# The version is written once (dmlops.h); the library's string is derived from it.
check "a C++ program links and runs; the version string is the header's" sh -c "printf '#include \"dmlops.h\"\n#include <cstring>\n#define S_(x) #x\n#define S(x) S_(x)\nint main(){return std::strcmp(dmlops_version_string(), S(DMLOPS_VERSION_MAJOR) \".\" S(DMLOPS_VERSION_MINOR) \".\" S(DMLOPS_VERSION_PATCH));}\n' > $tmp/x.cpp && $CXX -Iinclude $tmp/x.cpp $LDFLAGS $B/libdmlops.a -lm -ldl -lpthread -o $tmp/x && $tmp/x"
check "DirectML.h types are reused when DIRECTML_H is defined" sh -c "printf '#define DIRECTML_H\n#include <stdint.h>\ntypedef int DML_TENSOR_DATA_TYPE; typedef int DML_OPERATOR_TYPE; typedef int DML_FEATURE_LEVEL;\ntypedef struct DML_OPERATOR_DESC DML_OPERATOR_DESC;\n#include \"dmlops.h\"\nint main(void){return 0;}\n' > $tmp/d.c && $CC -std=c11 -Wall -Werror -Iinclude -c $tmp/d.c -o $tmp/d.o"

# The archive exports only dmlops_*, and needs no Vulkan symbol at link time.
check "libdmlops.a exports only dmlops_*" sh -c "! nm -g --defined-only $B/libdmlops.a | awk 'NF==3 {print \$3}' | grep -v '^dmlops_'"
check "libdmlops.a needs no vk* symbol at link time" sh -c "! nm -u $B/libdmlops.a | grep -E ' (vk|volk)'"
check "a program links without -lvulkan" sh -c "$CC -Iinclude examples/quickstart.c -Iexamples $LDFLAGS $B/libdmlops.a -lm -ldl -lpthread -o $tmp/q && ! (ldd $tmp/q | grep -q libvulkan)"

check "examples/onnx_slice.c builds and runs (CPU backend)" sh -c "$CC -std=c11 -Wall -Wextra -Werror -Iinclude examples/onnx_slice.c $LDFLAGS $B/libdmlops.a -lm -ldl -lpthread -o $tmp/os && DMLOPS_BACKEND=cpu $tmp/os"
check "examples/vulkan_interop.c builds and runs" sh -c "$CC -std=c11 -Wall -Wextra -Werror -Iinclude examples/vulkan_interop.c $LDFLAGS $B/libdmlops.a -lvulkan -lm -ldl -lpthread -o $tmp/vi && $tmp/vi"
check "examples/async_overlap.c builds and runs (CPU backend and Vulkan)" sh -c "$CC -std=c11 -Wall -Wextra -Werror -Iinclude examples/async_overlap.c $LDFLAGS $B/libdmlops.a -lm -ldl -lpthread -o $tmp/ao && DMLOPS_BACKEND=cpu $tmp/ao && DMLOPS_BACKEND=vulkan $tmp/ao"
check "examples/vulkan_semaphores.c builds and runs" sh -c "$CC -std=c11 -Wall -Wextra -Werror -Iinclude examples/vulkan_semaphores.c $LDFLAGS $B/libdmlops.a -lvulkan -lm -ldl -lpthread -o $tmp/vs && $tmp/vs"

# ---- the shared library ------------------------------------------------------------------
version_part() { sed -n "s/^#define DMLOPS_VERSION_$1  *\([0-9][0-9]*\).*/\1/p" include/*.h; }
major=$(version_part MAJOR)
version=$major.$(version_part MINOR).$(version_part PATCH)
soname=libdmlops.so.$major
so=$B/libdmlops.so.$version
check "the header's version $version is the library's" sh -c "printf '#include \"dmlops.h\"\n#include <string.h>\nint main(void){return strcmp(dmlops_version_string(), \"$version\");}\n' > $tmp/ver.c && $CC -Iinclude $tmp/ver.c $LDFLAGS $B/libdmlops.a -lm -ldl -lpthread -o $tmp/ver && $tmp/ver"
check "libdmlops.so.$version has the soname $soname" sh -c "readelf -d $so | grep '(SONAME)' | grep -qF '[$soname]'"
check "$B/libdmlops.so -> $soname -> libdmlops.so.$version" \
    sh -c "[ \"\$(readlink $B/libdmlops.so)\" = $soname ] && [ \"\$(readlink $B/$soname)\" = libdmlops.so.$version ]"
check "libdmlops.so exports only dmlops_*" \
    sh -c "nm -D --defined-only $so | awk 'NF==3 {print \$3}' | sort > $tmp/so.syms && [ -s $tmp/so.syms ] && ! grep -v '^dmlops_' $tmp/so.syms"
check "libdmlops.so exports every function libdmlops.a does" \
    sh -c "nm -g --defined-only $B/libdmlops.a | awk 'NF==3 {print \$3}' | sort | diff - $tmp/so.syms"
check "libdmlops.so needs no vk* symbol and no libvulkan" \
    sh -c "! nm -D -u $so | grep -E ' (vk|volk)' && ! readelf -d $so | grep -F NEEDED | grep -q vulkan"

# ---- the 1.0 ABI: test/abi_1_0 holds include/ as it was at 1.0, frozen ---------------------
# A program built against those headers runs against this libdmlops.so (same soname), the
# 1.0 functions are all still exported, and every 1.0 structure is declared exactly as it
# was (text of its typedef, comments aside): a field added to one would break old binaries
# that allocate it (docs/api.md, "Extensible structures").
check "a program built against the 1.0 headers runs against libdmlops.so.$version" \
    sh -c "$CC -std=c11 -Wall -Wextra -Werror -Itest/abi_1_0 test/abi_1_0/old_binary.c -o $tmp/old_binary $LDFLAGS -L$B -ldmlops && \
        readelf -d $tmp/old_binary | grep NEEDED | grep -qF '[$soname]' && LD_LIBRARY_PATH=$B $tmp/old_binary"
check "libdmlops.so exports every function of the 1.0 headers" \
    sh -c "grep -ho 'DMLOPS_API [^(]*(' test/abi_1_0/*.h | grep -o 'dmlops_[a-z0-9_]*(\$' | tr -d '(' | sort -u > $tmp/abi10.syms && \
        [ -s $tmp/abi10.syms ] && ! comm -23 $tmp/abi10.syms $tmp/so.syms | grep ."
# Each `typedef struct NAME {...} NAME;` and `typedef enum` of the 1.0 headers, with comments
# and blank space dropped: the enums may gain values (at their end), the structures nothing.
abi_structs() { # file -> one line per structure: "typedef struct NAME {...} NAME;", comments dropped
    perl -0777 -ne 's{/\*.*?\*/}{}gs; s/\s+/ /g; print "$1\n" while /(typedef struct \w+ \{.*?\} \w+;)/g' "$1"
}
for h in dmlops.h dmlops_vulkan.h; do
    abi_structs "test/abi_1_0/$h" | sort >"$tmp/abi10.$h"
    abi_structs "include/$h" | sort >"$tmp/now.$h"
    check "$h: each of its $(wc -l <"$tmp/abi10.$h") 1.0 structures is declared as it was" \
        sh -c "[ -s $tmp/abi10.$h ] && ! comm -23 $tmp/abi10.$h $tmp/now.$h | grep ."
done

# ---- make install: a staged multiarch tree (DESTDIR, LIBDIR) -----------------------------
# LDCONFIG=true: these installs never touch the machine's loader cache.
mk() { make --no-print-directory -s B="$B" LDCONFIG=true "$@"; }
multiarch=$($CC -print-multiarch 2>/dev/null)
[ -n "$multiarch" ] || multiarch=$(uname -m)-linux-gnu
stage=$tmp/stage
libdir=usr/lib/$multiarch
stage_vars="DESTDIR=$stage PREFIX=/usr LIBDIR=/$libdir"
# shellcheck disable=SC2086 # stage_vars is three words
check "make install $stage_vars" mk install $stage_vars
{
    for h in include/*.h; do echo "usr/$h"; done
    echo "usr/bin/dmlops"
    for f in cmake/dmlops/dmlopsConfig.cmake cmake/dmlops/dmlopsConfigVersion.cmake libdmlops.a libdmlops.so \
        $soname libdmlops.so.$version pkgconfig/dmlops.pc; do echo "$libdir/$f"; done
    echo "usr/share/man/man1/dmlops.1"
} | sort >"$tmp/expected"
check "it installs the expected files under LIBDIR=/$libdir" \
    sh -c "cd $stage && find . ! -type d | sed 's|^\./||' | sort | diff $tmp/expected -"
check "installed libdmlops.so -> $soname -> libdmlops.so.$version" \
    sh -c "cd $stage/$libdir && [ \"\$(readlink libdmlops.so)\" = $soname ] && [ \"\$(readlink $soname)\" = libdmlops.so.$version ] && \
        readelf -d libdmlops.so | grep '(SONAME)' | grep -qF '[$soname]'"
pc_stage="env PKG_CONFIG_PATH=$stage/$libdir/pkgconfig $PKG_CONFIG --dont-define-prefix"
check "dmlops.pc: version $version, libdir /$libdir" \
    sh -c "[ \"\$($pc_stage --modversion dmlops)\" = $version ] && [ \"\$($pc_stage --variable=libdir dmlops)\" = /$libdir ] && \
        [ \"\$($pc_stage --variable=includedir dmlops)\" = /usr/include ]"
check "the installed man page renders without groff warnings" \
    sh -c "groff -man -ww -z -Tutf8 $stage/usr/share/man/man1/dmlops.1 2>&1 | grep . && exit 1; \
        groff -man -Tutf8 $stage/usr/share/man/man1/dmlops.1 2>/dev/null | grep -q 'dmlops bench'"
check "dmlops.1 names every option of the tool (src/cli, src/bench)" \
    sh -c "for o in \$(grep -ho '\"--*[A-Za-z][A-Za-z_-]*\"' src/cli/*.c src/bench/*.c | tr -d '\"' | sort -u); do \
        sed 's/\\\\-/-/g' docs/man/dmlops.1 | grep -qwF -- \"\$o\" || { echo \"dmlops.1 lacks \$o\"; exit 1; }; done"

# The CMake package, found through CMAKE_PREFIX_PATH in the staged tree: it was generated
# for PREFIX=/usr, so this also shows that it finds its files from its own location.
cm=$tmp/cmake
check "CMake: find_package(dmlops 1.0) configures a consumer (CMAKE_PREFIX_PATH=\$DESTDIR/usr)" \
    sh -c "MAKEFLAGS= cmake -S test/packaging -B $cm -DCMAKE_PREFIX_PATH=$stage/usr -DCMAKE_C_COMPILER=$CC \
        -DCMAKE_CXX_COMPILER=$CXX '-DCMAKE_EXE_LINKER_FLAGS=$LDFLAGS' && MAKEFLAGS= cmake --build $cm"
check "CMake: dmlops::dmlops links $soname from the staged tree and runs" \
    sh -c "readelf -d $cm/consumer_shared | grep NEEDED | grep -qF '[$soname]' && ldd $cm/consumer_shared | grep -qF '$stage/$libdir/$soname' && \
        $cm/consumer_shared"
check "CMake: dmlops::dmlops_static links libdmlops.a and runs" \
    sh -c "! readelf -d $cm/consumer_static | grep NEEDED | grep -q libdmlops && $cm/consumer_static"
check "CMake: a C++ target links dmlops::dmlops and runs" $cm/consumer_cxx
check "CMake: find_package(dmlops 2.0) is refused by the version file" \
    sh -c "mkdir -p $tmp/v2 && printf 'cmake_minimum_required(VERSION 3.13)\nproject(v NONE)\nfind_package(dmlops 2.0)\nif(dmlops_FOUND)\n  message(FATAL_ERROR \"2.0 accepted\")\nendif()\n' > $tmp/v2/CMakeLists.txt && \
        cmake -S $tmp/v2 -B $tmp/v2/b -Ddmlops_DIR=$stage/$libdir/cmake/dmlops >$tmp/v2/log 2>&1; cat $tmp/v2/log; grep -q '$version' $tmp/v2/log && ! grep -q '2.0 accepted' $tmp/v2/log"
# shellcheck disable=SC2086
check "make uninstall $stage_vars" mk uninstall $stage_vars
check "make uninstall leaves no file behind in DESTDIR" sh -c "find $stage ! -type d | grep . && exit 1 || true"

# ---- make install into a custom prefix, then consumers through pkg-config ----------------
prefix=$tmp/prefix
pc="env PKG_CONFIG_PATH=$prefix/lib/pkgconfig $PKG_CONFIG"
check "make install PREFIX=$prefix" mk install PREFIX="$prefix"
check "pkg-config --libs dmlops links the shared library; --static adds -lm -ldl -lpthread" \
    sh -c "[ \"\$(echo \$($pc --libs dmlops))\" = '-L$prefix/lib -ldmlops' ] && \
        [ \"\$(echo \$($pc --static --libs dmlops))\" = '-L$prefix/lib -ldmlops -lm -ldl -lpthread' ]"
check "pkg-config shared: the consumer needs $soname and runs" \
    sh -c "$CC -std=c11 -Wall -Wextra -Werror test/packaging/consumer.c -o $tmp/c_shared \$($pc --cflags --libs dmlops) $LDFLAGS && \
        readelf -d $tmp/c_shared | grep NEEDED | grep -qF '[$soname]' && LD_LIBRARY_PATH=$prefix/lib $tmp/c_shared"
# With both libraries installed the linker prefers libdmlops.so; -Bstatic picks the archive.
check "pkg-config --static: the consumer links libdmlops.a and runs" \
    sh -c "$CC -std=c11 -Wall -Wextra -Werror test/packaging/consumer.c -o $tmp/c_static \$($pc --cflags dmlops) $LDFLAGS \
        -Wl,-Bstatic \$($pc --static --libs dmlops) -Wl,-Bdynamic && ! readelf -d $tmp/c_static | grep NEEDED | grep -q libdmlops && \
        $tmp/c_static"
check "C++: the consumer as C++11 through pkg-config runs" \
    sh -c "$CXX -std=c++11 -Wall -Wextra -Werror -x c++ test/packaging/consumer.c -x none -o $tmp/c_cxx \$($pc --cflags --libs dmlops) $LDFLAGS && \
        LD_LIBRARY_PATH=$prefix/lib $tmp/c_cxx"
check "the installed dmlops tool runs" sh -c "$prefix/bin/dmlops version | grep -qF $version"
check "installed dmlops_onnx.h compiles alone, and its helpers link" \
    sh -c "printf '#include <dmlops_onnx.h>\nint main(void){dmlops_onnx_op op; const int64_t s[1] = {2}; return dmlops_onnx_one_hot(&op, DML_TENSOR_DATA_TYPE_INT32, 1, s, 3, DML_TENSOR_DATA_TYPE_FLOAT32, -1) == DMLOPS_SUCCESS && op.output_shape[1] == 3 ? 0 : 1;}\n' > $tmp/o.c && \
        $CC -std=c11 -Wall -Werror -o $tmp/o $tmp/o.c \$($pc --cflags --libs dmlops) $LDFLAGS && LD_LIBRARY_PATH=$prefix/lib $tmp/o"
check "installed dmlops_vulkan.h compiles alone; dmlops.pc has the library's version" \
    sh -c "printf '#include <dmlops_vulkan.h>\n#include <stdio.h>\nint main(void){puts(dmlops_version_string()); return 0;}\n' > $tmp/i.c && \
        $CC -std=c11 -Wall -Werror -o $tmp/i $tmp/i.c \$($pc --cflags --libs dmlops) $LDFLAGS && \
        test \"\$(LD_LIBRARY_PATH=$prefix/lib $tmp/i)\" = \"\$($pc --modversion dmlops)\""
check "make uninstall PREFIX=$prefix" mk uninstall PREFIX="$prefix"
check "make uninstall leaves no file behind in the prefix" sh -c "find $prefix ! -type d | grep . && exit 1 || true"

# Kernels need no optional device feature: only capabilities every Vulkan implementation
# supports (Shader, and SampledBuffer / ImageBuffer for the texel path's views).
for spv in $B/spv/*.spv; do
    check "$(basename $spv) declares only OpCapability Shader, SampledBuffer, ImageBuffer" sh -c "spirv-dis $spv | grep OpCapability | grep -Evq 'OpCapability (Shader|SampledBuffer|ImageBuffer)\$' && exit 1 || spirv-dis $spv | grep -q 'OpCapability Shader'"
done

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
