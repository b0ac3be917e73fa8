# What the library is compiled against, found for the CMake build: volk's source, the
# Vulkan headers, the GLSL and SPIR-V tools, and (for the tool) libcjson. The library never
# links a Vulkan loader: volk opens it at run time (dlopen, or LoadLibrary on Windows).

# dmlops_include_dir(<target> <dir> <header>): lets <target> include <header> from <dir>.
# Nothing to do where the compiler searches <dir> already; a directory holding a C library's
# own headers (/usr/include, where Debian puts volk and the Vulkan headers) is never added
# with -I, which would put it before a cross compiler's C library (MinGW's): the headers
# are copied into the build tree instead, and that copy is added.
function(dmlops_include_dir target dir header)
    get_filename_component(dir "${dir}" ABSOLUTE)
    foreach(implicit IN LISTS CMAKE_C_IMPLICIT_INCLUDE_DIRECTORIES)
        get_filename_component(implicit "${implicit}" ABSOLUTE)
        if(dir STREQUAL implicit)
            return()
        endif()
    endforeach()
    if(EXISTS "${dir}/stdio.h" OR EXISTS "${dir}/stdlib.h")
        set(copy "${CMAKE_CURRENT_BINARY_DIR}/include-copies")
        if(IS_DIRECTORY "${dir}/${header}")
            file(COPY "${dir}/${header}" DESTINATION "${copy}")
        else()
            configure_file("${dir}/${header}" "${copy}/${header}" COPYONLY)
        endif()
        set(dir "${copy}")
    endif()
    target_include_directories(${target} PRIVATE "${dir}")
endfunction()

# ---- volk -------------------------------------------------------------------------------
# VOLK_SRC (a cache path, as the Makefile's variable) wins; else a volk target of the parent
# project or volk's CMake package, whose include directory holds volk.c beside volk.h (volk
# installs both); else the system's headers (Debian's libvulkan-volk-dev) or the Vulkan
# SDK's copy.
function(dmlops_find_volk out)
    if(VOLK_SRC)
        set(${out} "${VOLK_SRC}" PARENT_SCOPE)
        return()
    endif()
    set(dirs "")
    if(NOT TARGET volk::volk_headers AND NOT TARGET volk::volk)
        find_package(volk CONFIG QUIET)
    endif()
    foreach(t volk::volk_headers volk::volk)
        if(TARGET ${t})
            get_target_property(inc ${t} INTERFACE_INCLUDE_DIRECTORIES)
            if(inc)
                # $<BUILD_INTERFACE:dir> (a volk added with add_subdirectory) is the directory.
                string(REGEX REPLACE "\\$<BUILD_INTERFACE:([^>]*)>" "\\1" inc "${inc}")
                string(REGEX REPLACE "\\$<INSTALL_INTERFACE:[^>]*>" "" inc "${inc}")
                list(APPEND dirs ${inc})
            endif()
        endif()
    endforeach()
    find_file(DMLOPS_VOLK_C volk.c
        HINTS ${dirs} "$ENV{VULKAN_SDK}"
        PATHS /usr/include /usr/local/include
        PATH_SUFFIXES "" include/Volk Include/Volk include/volk Include/volk
        # volk.c is source code, not a target binary: look on the build machine too.
        NO_CMAKE_FIND_ROOT_PATH)
    if(NOT DMLOPS_VOLK_C)
        message(FATAL_ERROR "libdmlops: volk.c not found. Install volk (Debian: libvulkan-volk-dev), "
            "or pass -DVOLK_SRC=/path/to/volk.c (with volk.h beside it), or make volk's CMake package findable.")
    endif()
    set(${out} "${DMLOPS_VOLK_C}" PARENT_SCOPE)
endfunction()

# ---- the Vulkan headers -----------------------------------------------------------------
# dmlops_use_vulkan_headers(<target>...): a parent's Vulkan::Headers target, else the
# compiler's own include path, else the directory find_path finds (the SDK's, or the build
# machine's for a cross compiler: the headers are the same for every target).
function(dmlops_use_vulkan_headers)
    if(TARGET Vulkan::Headers)
        foreach(t IN LISTS ARGN)
            target_link_libraries(${t} PRIVATE Vulkan::Headers)
        endforeach()
        return()
    endif()
    include(CheckIncludeFile)
    check_include_file(vulkan/vulkan_core.h DMLOPS_COMPILER_HAS_VULKAN_H)
    if(DMLOPS_COMPILER_HAS_VULKAN_H)
        return()
    endif()
    find_path(DMLOPS_VULKAN_INCLUDE_DIR vulkan/vulkan_core.h
        HINTS "$ENV{VULKAN_SDK}" PATHS /usr/include /usr/local/include
        PATH_SUFFIXES "" include Include NO_CMAKE_FIND_ROOT_PATH)
    if(NOT DMLOPS_VULKAN_INCLUDE_DIR)
        message(FATAL_ERROR "libdmlops: the Vulkan headers (vulkan/vulkan_core.h) were not found. "
            "Install them (Debian: libvulkan-dev), or the Vulkan SDK, or set DMLOPS_VULKAN_INCLUDE_DIR.")
    endif()
    foreach(t IN LISTS ARGN)
        dmlops_include_dir(${t} "${DMLOPS_VULKAN_INCLUDE_DIR}" vulkan)
        if(IS_DIRECTORY "${DMLOPS_VULKAN_INCLUDE_DIR}/vk_video")
            dmlops_include_dir(${t} "${DMLOPS_VULKAN_INCLUDE_DIR}" vk_video)
        endif()
    endforeach()
endfunction()

# ---- GLSL and SPIR-V tools --------------------------------------------------------------
# Programs of the build machine (a cross toolchain file sets CMAKE_FIND_ROOT_PATH_MODE_PROGRAM
# NEVER). glslangValidator is preferred: its modules are the Makefile's, bit for bit.
function(dmlops_find_spirv_tools)
    set(sdk_bin "$ENV{VULKAN_SDK}/bin" "$ENV{VULKAN_SDK}/Bin")
    find_program(DMLOPS_GLSL_COMPILER NAMES glslangValidator glslang glslc HINTS ${sdk_bin}
        DOC "GLSL to SPIR-V compiler: glslangValidator, or the Vulkan SDK's glslc")
    find_program(DMLOPS_SPIRV_OPT NAMES spirv-opt HINTS ${sdk_bin} DOC "SPIRV-Tools' optimizer")
    find_program(DMLOPS_SPIRV_VAL NAMES spirv-val HINTS ${sdk_bin} DOC "SPIRV-Tools' validator")
    foreach(v DMLOPS_GLSL_COMPILER DMLOPS_SPIRV_OPT DMLOPS_SPIRV_VAL)
        if(NOT ${v})
            message(FATAL_ERROR "libdmlops: ${v} not found: the kernels are compiled at build time. "
                "Install glslang and SPIRV-Tools (Debian: glslang-tools spirv-tools) or the Vulkan SDK, "
                "or set ${v} to the program.")
        endif()
    endforeach()
endfunction()

# ---- libcjson (the dmlops tool only) ----------------------------------------------------
# dmlops_find_cjson(<out>): a link item for libcjson (empty when there is none): a parent's cjson target (cJSON's own
# CMake build), pkg-config's libcjson (as the Makefile), cJSON's CMake package, or the library
# and header found directly.
function(dmlops_find_cjson out)
    if(TARGET cjson)
        set(${out} cjson PARENT_SCOPE)
        return()
    endif()
    find_package(PkgConfig QUIET)
    if(PKG_CONFIG_FOUND)
        pkg_check_modules(DMLOPS_CJSON QUIET IMPORTED_TARGET libcjson)
        if(DMLOPS_CJSON_FOUND)
            set(${out} PkgConfig::DMLOPS_CJSON PARENT_SCOPE)
            return()
        endif()
    endif()
    find_package(cJSON CONFIG QUIET)
    if(TARGET cjson)
        set(${out} cjson PARENT_SCOPE)
        return()
    endif()
    find_path(DMLOPS_CJSON_INCLUDE_DIR cjson/cJSON.h)
    find_library(DMLOPS_CJSON_LIBRARY cjson)
    if(DMLOPS_CJSON_INCLUDE_DIR AND DMLOPS_CJSON_LIBRARY)
        add_library(dmlops_cjson INTERFACE)
        target_include_directories(dmlops_cjson INTERFACE "${DMLOPS_CJSON_INCLUDE_DIR}")
        target_link_libraries(dmlops_cjson INTERFACE "${DMLOPS_CJSON_LIBRARY}")
        set(${out} dmlops_cjson PARENT_SCOPE)
        return()
    endif()
    set(${out} "" PARENT_SCOPE)
endfunction()
