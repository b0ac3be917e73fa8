#!/bin/sh
# Packaging checks: the headers in C11 and C++ (dmlops.h with and without Vulkan first,
# dmlops_vulkan.h alone and beside volk), the installed library through pkg-config, the symbols the archive exports and needs, and
# the SPIR-V capabilities of the embedded kernels. Ends with "N passed, N failed".
B=${B:-build}
CC=${CC:-cc}
CXX=${CXX:-c++}
LDFLAGS=${LDFLAGS:-} # the build's link flags, e.g. the sanitizer runtimes of `make test-asan`
passed=0 failed=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

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
check "header with vulkan.h first declares interop (C)" sh -c "printf '#include <vulkan/vulkan.h>\n#include \"dmlops.h\"\nint main(void){return dmlops_context_create_vulkan(0,0)==DMLOPS_ERROR_INVALID_ARGUMENT?0:1;}\n' > $tmp/v.c && $CC -std=c11 -Wall -Werror -Iinclude -c $tmp/v.c -o $tmp/v.o"
check "header with volk.h first declares interop (C++)" sh -c "printf '#include <volk.h>\n#include \"dmlops.h\"\nint main(){return dmlops_operator_record_vulkan(nullptr, VK_NULL_HANDLE)==DMLOPS_ERROR_INVALID_ARGUMENT?0:1;}\n' > $tmp/w.cpp && $CXX -std=c++11 -Wall -Werror -Iinclude -c $tmp/w.cpp -o $tmp/w.o"
check "dmlops_vulkan.h alone compiles as C11" sh -c "printf '#include <dmlops_vulkan.h>\nint main(void){dmlops_vulkan_context_desc d = {0}; (void)d; return dmlops_context_create_vulkan(0,0)==DMLOPS_ERROR_INVALID_ARGUMENT?0:1;}\n' > $tmp/a.c && $CC -std=c11 -pedantic -Wall -Wextra -Werror -Iinclude -c $tmp/a.c -o $tmp/a.o"
check "dmlops_vulkan.h alone compiles as C++11" sh -c "printf '#include <dmlops_vulkan.h>\nint main(){return dmlops_operator_record_vulkan(nullptr, VK_NULL_HANDLE)==DMLOPS_ERROR_INVALID_ARGUMENT?0:1;}\n' > $tmp/a.cpp && $CXX -std=c++11 -Wall -Wextra -Werror -Iinclude -c $tmp/a.cpp -o $tmp/a2.o"
check "dmlops_vulkan.h after volk.h (C)" sh -c "printf '#include <volk.h>\n#include <dmlops_vulkan.h>\nint main(void){return dmlops_context_create_vulkan(0,0)==DMLOPS_ERROR_INVALID_ARGUMENT?0:1;}\n' > $tmp/b.c && $CC -std=c11 -Wall -Werror -Iinclude -c $tmp/b.c -o $tmp/b.o"
check "dmlops_vulkan.h before volk.h with VK_NO_PROTOTYPES (C)" sh -c "printf '#define VK_NO_PROTOTYPES\n#include <dmlops_vulkan.h>\n#include <volk.h>\nint main(void){return volkInitialize()==VK_SUCCESS && dmlops_context_create_vulkan(0,0)==DMLOPS_ERROR_INVALID_ARGUMENT?0:1;}\n' > $tmp/c.c && $CC -std=c11 -Wall -Werror -Iinclude -c $tmp/c.c -o $tmp/c.o"
# The version is written once (dmlops.h); the library's string is derived from it.
check "a C++ program links and runs; the version string is the header's" sh -c "printf '#include \"dmlops.h\"\n#include <cstring>\n#define S_(x) #x\n#define S(x) S_(x)\nint main(){return std::strcmp(dmlops_version_string(), S(DMLOPS_VERSION_MAJOR) \".\" S(DMLOPS_VERSION_MINOR) \".\" S(DMLOPS_VERSION_PATCH));}\n' > $tmp/x.cpp && $CXX -Iinclude $tmp/x.cpp $LDFLAGS $B/libdmlops.a -lm -ldl -lpthread -o $tmp/x && $tmp/x"
check "DirectML.h types are reused when DIRECTML_H is defined" sh -c "printf '#define DIRECTML_H\n#include <stdint.h>\ntypedef int DML_TENSOR_DATA_TYPE; typedef int DML_OPERATOR_TYPE; typedef int DML_FEATURE_LEVEL;\ntypedef struct DML_OPERATOR_DESC DML_OPERATOR_DESC;\n#include \"dmlops.h\"\nint main(void){return 0;}\n' > $tmp/d.c && $CC -std=c11 -Wall -Werror -Iinclude -c $tmp/d.c -o $tmp/d.o"

# The archive exports only dmlops_*, and needs no Vulkan symbol at link time.
check "libdmlops.a exports only dmlops_*" sh -c "! nm -g --defined-only $B/libdmlops.a | awk 'NF==3 {print \$3}' | grep -v '^dmlops_'"
check "libdmlops.a needs no vk* symbol at link time" sh -c "! nm -u $B/libdmlops.a | grep -E ' (vk|volk)'"
check "a program links without -lvulkan" sh -c "$CC -Iinclude examples/quickstart.c -Iexamples $LDFLAGS $B/libdmlops.a -lm -ldl -lpthread -o $tmp/q && ! (ldd $tmp/q | grep -q libvulkan)"

# make install, then build the quick start through pkg-config alone.
check "make install + pkg-config --static" sh -c "make --no-print-directory -s install B=$B PREFIX=/usr DESTDIR=$tmp/root >/dev/null && \
    sed -i 's|^prefix=/usr|prefix=$tmp/root/usr|' $tmp/root/usr/lib/pkgconfig/dmlops.pc && \
    PKG_CONFIG_PATH=$tmp/root/usr/lib/pkgconfig $CC $LDFLAGS -o $tmp/qs examples/quickstart.c -Iexamples \$(PKG_CONFIG_PATH=$tmp/root/usr/lib/pkgconfig pkg-config --static --cflags --libs dmlops) && \
    DMLOPS_BACKEND=cpu $tmp/qs >/dev/null && test -x $tmp/root/usr/bin/dmlops"
pc() { PKG_CONFIG_PATH=$tmp/root/usr/lib/pkgconfig pkg-config "$@"; }
check "installed dmlops_vulkan.h compiles alone; dmlops.pc has the library's version" sh -c "printf '#include <dmlops_vulkan.h>\n#include <stdio.h>\nint main(void){puts(dmlops_version_string()); return 0;}\n' > $tmp/i.c && \
    $CC -std=c11 -Wall -Werror $LDFLAGS -o $tmp/i $tmp/i.c $(pc --static --cflags --libs dmlops) && \
    test \"\$($tmp/i)\" = \"$(pc --modversion dmlops)\""

check "examples/vulkan_interop.c builds and runs" sh -c "$CC -std=c11 -Wall -Wextra -Werror -Iinclude examples/vulkan_interop.c $LDFLAGS $B/libdmlops.a -lvulkan -lm -ldl -lpthread -o $tmp/vi && $tmp/vi"

# Kernels need no optional device feature: only the Shader capability.
for spv in $B/spv/*.spv; do
    check "$(basename $spv) declares only OpCapability Shader" sh -c "spirv-dis $spv | grep OpCapability | grep -vq 'OpCapability Shader\$' && exit 1 || spirv-dis $spv | grep -q 'OpCapability Shader'"
done

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
