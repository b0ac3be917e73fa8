# The suites of `make test`, built and registered with CTest: every test/test_*.c, the
# interop program twice (against the Vulkan loader and with the application's own volk),
# the allocation and thread-creation failure programs, and the tool's and README's scripts
# where a POSIX shell and the tool are there. Each runs from the source tree, as under make.
# Cross builds run them under CMAKE_CROSSCOMPILING_EMULATOR (wine, qemu), which add_test
# prepends by itself, on the backends DMLOPS_TEST_BACKENDS names (cpu there by default).
#
# Not here: test_packaging.sh and test_build.sh check `make install` and a plain `make`;
# test_cmake.sh builds this CMake project itself (all three run by `make test`); and
# big_tensors, which `make test-big` runs apart (300 MiB tensors).
enable_testing()

set(_src "${DMLOPS_SOURCE_DIR}")
set(_test_dir "${CMAKE_CURRENT_BINARY_DIR}/test")

# The Makefile's TEST_CFLAGS: the public headers, the harness, volk and the Vulkan headers,
# and no prototype rule.
add_library(dmlops_test_flags INTERFACE)
target_include_directories(dmlops_test_flags INTERFACE "${_src}/include" "${_src}/test" "${_src}/examples")
target_compile_options(dmlops_test_flags INTERFACE ${_dmlops_warn}
                       $<$<C_COMPILER_ID:GNU,Clang,AppleClang>:-Wno-missing-prototypes>)
# MinGW: C99 printf formats (%zu), which msvcrt's printf lacks.
if(WIN32 AND NOT MSVC)
    target_compile_definitions(dmlops_test_flags INTERFACE __USE_MINGW_ANSI_STDIO=1)
endif()
# What the tests link besides the library, the Makefile's TEST_LIBS: LIBS, except on
# Windows, where they are linked statically (so that they run anywhere wine does) with
# winpthreads (the tests' own threads; the library uses Win32's).
if(WIN32 AND NOT MSVC)
    set(_dmlops_test_libs -static pthread)
else()
    set(_dmlops_test_libs ${DMLOPS_LINK_LIBS})
endif()

add_library(dmlops_harness OBJECT "${_src}/test/harness.c")

# dmlops_test(<name> SOURCES... [LIBS...]): an executable in <build>/test, as the Makefile's.
function(dmlops_test name)
    cmake_parse_arguments(PARSE_ARGV 1 arg "" "" "SOURCES;LIBS;OPTIONS;DEFINES")
    add_executable(${name} ${arg_SOURCES})
    list(APPEND _dmlops_test_targets ${name})
    set(_dmlops_test_targets "${_dmlops_test_targets}" PARENT_SCOPE)
    target_link_libraries(${name} PRIVATE ${arg_LIBS})
    target_link_options(${name} PRIVATE ${arg_OPTIONS})
    target_compile_definitions(${name} PRIVATE ${arg_DEFINES})
endfunction()

# The kernels' machine-code report (tools/isa; the Makefile's `make isa`), whose objects
# test_isa links too: white-box, compiled as the tests are.
file(GLOB _dmlops_isa_sources CONFIGURE_DEPENDS "${_src}/tools/isa/*.c")
list(FILTER _dmlops_isa_sources EXCLUDE REGEX "/isa_main\\.c$")
add_library(dmlops_isa_objects OBJECT ${_dmlops_isa_sources})

set(_dmlops_test_targets dmlops_harness dmlops_isa_objects)
set(_dmlops_test_objects dmlops_harness dmlops_test_volk dmlops_isa_objects)
file(GLOB _tests CONFIGURE_DEPENDS "${_src}/test/test_*.c")
# test_npy and test_bench compile the tool's .npy writer and the bench's arithmetic, whose
# code is POSIX: they run where the tool does (not on Windows), as in the Makefile's TEST_BIN.
if(WIN32)
    list(FILTER _tests EXCLUDE REGEX "/test_(npy|bench)\\.c$")
endif()
foreach(_t IN LISTS _tests)
    get_filename_component(_name "${_t}" NAME_WE)
    if(_name STREQUAL "test_vk_limits" OR _name STREQUAL "test_cpu_simd" OR _name STREQUAL "test_tuning")
        # White-box: links the library's objects themselves, whose internal symbols the
        # prelinked libdmlops.a hides (see the files).
        dmlops_test(${_name} SOURCES "${_t}" $<TARGET_OBJECTS:dmlops_harness> ${_dmlops_objects})
    elseif(_name STREQUAL "test_isa")
        # White-box too, with the report's objects.
        dmlops_test(${_name} SOURCES "${_t}" $<TARGET_OBJECTS:dmlops_harness> $<TARGET_OBJECTS:dmlops_isa_objects>
                    ${_dmlops_objects})
    else()
        dmlops_test(${_name} SOURCES "${_t}" $<TARGET_OBJECTS:dmlops_harness> LIBS dmlops_static)
    endif()
endforeach()

# Counts the library's own allocations, and makes its pthread_create fail on demand (see
# the files): GNU ld's --wrap. The Windows library calls no pthread_create.
dmlops_test(no_alloc SOURCES "${_src}/test/no_alloc.c" $<TARGET_OBJECTS:dmlops_harness> LIBS dmlops_static
            OPTIONS "LINKER:--wrap=malloc,--wrap=calloc,--wrap=realloc")
if(NOT WIN32)
    dmlops_test(thread_fail SOURCES "${_src}/test/thread_fail.c" $<TARGET_OBJECTS:dmlops_harness> LIBS dmlops_static
                OPTIONS "LINKER:--wrap=pthread_create")
endif()

# Interop, with the application's own copy of volk beside the library's private one (its
# volk.c without warnings, as the Makefile's `-x c $(VOLK_SRC) -w`: an object library, since
# a source file's options would reach the library's volk.c too).
add_library(dmlops_test_volk OBJECT "${DMLOPS_VOLK_SRC}")
target_compile_definitions(dmlops_test_volk PRIVATE INTEROP_VOLK)
target_compile_options(dmlops_test_volk PRIVATE $<$<C_COMPILER_ID:MSVC>:/w> $<$<NOT:$<C_COMPILER_ID:MSVC>>:-w>)
list(APPEND _dmlops_test_targets dmlops_test_volk)
dmlops_test(interop_volk SOURCES "${_src}/test/interop.c" $<TARGET_OBJECTS:dmlops_test_volk>
            $<TARGET_OBJECTS:dmlops_harness> LIBS dmlops_static DEFINES INTEROP_VOLK)
# And against the Vulkan loader, where this target has one to link. MinGW ships no import
# library for vulkan-1.dll: one is made, as the Makefile does, from the prototypes of the
# Vulkan headers (a name the DLL lacks is harmless unless a program imports it).
find_library(DMLOPS_VULKAN_LIBRARY NAMES vulkan vulkan-1 HINTS "$ENV{VULKAN_SDK}" PATH_SUFFIXES lib Lib)
if(NOT DMLOPS_VULKAN_LIBRARY AND WIN32 AND NOT MSVC AND CMAKE_DLLTOOL)
    find_path(_dmlops_vk_inc vulkan/vulkan_core.h PATHS /usr/include NO_CMAKE_FIND_ROOT_PATH)
    set(_def "${CMAKE_CURRENT_BINARY_DIR}/vulkan-1/vulkan-1.def")
    set(DMLOPS_VULKAN_IMPLIB "${CMAKE_CURRENT_BINARY_DIR}/vulkan-1/libvulkan-1.a")
    file(STRINGS "${_dmlops_vk_inc}/vulkan/vulkan_core.h" _protos REGEX "VKAPI_CALL vk[A-Za-z0-9_]*\\(")
    set(_names "")
    foreach(_p IN LISTS _protos)
        if(_p MATCHES "VKAPI_CALL (vk[A-Za-z0-9_]*)\\(")
            list(APPEND _names ${CMAKE_MATCH_1})
        endif()
    endforeach()
    list(REMOVE_DUPLICATES _names)
    list(SORT _names)
    string(REPLACE ";" "\n" _names "${_names}")
    file(WRITE "${_def}" "LIBRARY vulkan-1.dll\nEXPORTS\n${_names}\n")
    add_custom_command(OUTPUT "${DMLOPS_VULKAN_IMPLIB}" COMMAND "${CMAKE_DLLTOOL}" -d "${_def}" -l "${DMLOPS_VULKAN_IMPLIB}"
                       DEPENDS "${_def}" VERBATIM)
    add_custom_target(dmlops_vulkan_implib DEPENDS "${DMLOPS_VULKAN_IMPLIB}")
    set(DMLOPS_VULKAN_LIBRARY "${DMLOPS_VULKAN_IMPLIB}")
endif()
if(DMLOPS_VULKAN_LIBRARY)
    dmlops_test(interop_vulkan SOURCES "${_src}/test/interop.c" $<TARGET_OBJECTS:dmlops_harness>
                LIBS dmlops_static "${DMLOPS_VULKAN_LIBRARY}")
    if(TARGET dmlops_vulkan_implib)
        add_dependencies(interop_vulkan dmlops_vulkan_implib)
    endif()
else()
    message(STATUS "libdmlops: no Vulkan loader to link for this target: interop_vulkan is not built")
endif()

foreach(_t IN LISTS _dmlops_test_targets)
    dmlops_c_flags(${_t})
    target_link_libraries(${_t} PRIVATE dmlops_test_flags)
    target_link_libraries(${_t} PRIVATE ${_dmlops_test_libs})
    if(NOT _t IN_LIST _dmlops_test_objects)
        set_target_properties(${_t} PROPERTIES RUNTIME_OUTPUT_DIRECTORY "${_test_dir}")
        add_test(NAME ${_t} COMMAND ${_t} WORKING_DIRECTORY "${_src}")
        if(DMLOPS_TEST_BACKENDS)
            set_property(TEST ${_t} APPEND PROPERTY ENVIRONMENT "DMLOPS_TEST_BACKENDS=${DMLOPS_TEST_BACKENDS}")
        endif()
    endif()
endforeach()
# The report itself, <build>/tools/dmlops-isa, built on demand as by `make isa` (which also
# runs it on RADV): cmake --build B --target dmlops_isa.
add_executable(dmlops_isa EXCLUDE_FROM_ALL "${_src}/tools/isa/isa_main.c" $<TARGET_OBJECTS:dmlops_isa_objects>
               ${_dmlops_objects})
set_target_properties(dmlops_isa PROPERTIES OUTPUT_NAME dmlops-isa RUNTIME_OUTPUT_DIRECTORY "${CMAKE_CURRENT_BINARY_DIR}/tools")
dmlops_c_flags(dmlops_isa)
target_link_libraries(dmlops_isa PRIVATE dmlops_test_flags ${_dmlops_test_libs})
list(APPEND _dmlops_test_targets dmlops_isa)

dmlops_use_vulkan_headers(${_dmlops_test_targets})
foreach(_t IN LISTS _dmlops_test_targets)
    dmlops_include_dir(${_t} "${DMLOPS_VOLK_DIR}" volk.h)
endforeach()

# The tool's and the README's scripts, with B naming this build directory (whose bin/dmlops
# and libdmlops.a lie where the Makefile's do).
find_program(DMLOPS_SH sh)
if(DMLOPS_BUILD_TOOL AND DMLOPS_SH AND NOT CMAKE_CROSSCOMPILING AND NOT CMAKE_HOST_WIN32)
    foreach(_script test_cli.sh test_readme.sh)
        add_test(NAME ${_script} COMMAND "${DMLOPS_SH}" "${_src}/test/${_script}" WORKING_DIRECTORY "${_src}")
        set_property(TEST ${_script} PROPERTY ENVIRONMENT "B=${CMAKE_CURRENT_BINARY_DIR}" "CC=${CMAKE_C_COMPILER}")
    endforeach()
endif()
