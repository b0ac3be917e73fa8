# Compiles one GLSL kernel to SPIR-V and embeds it as a C header, for the CMake build:
#
#   cmake -DDM_ROOT=<source dir> -DDM_KERNEL=slice -DDM_OUT=<build>/spv/slice.h
#         -DDM_COMPILER=<glslangValidator or glslc> -DDM_SPIRV_OPT=... -DDM_SPIRV_VAL=...
#         -DDM_OPT_FLAGS=a,b,c -DDM_VARIANTS=1,2,3,6 -DDM_ROW_DIMS=1,3,7
#         -DDM_FIRST_BUCKET=6,7,... -DDM_STORAGE_ONLY=9,...
#         -P dmlops_spirv.cmake
#
# It writes what the Makefile's $(B)/spv/%.h rules write, word for word (test/test_cmake.sh
# compares the two builds' modules and headers): a CMake script rather than the Makefile's
# shell recipe because a CMake build must not need a POSIX shell, od or sed (MSVC), and the
# Makefile must not need CMake. The variant lists come from lists.mk for both.
#
# With DM_VARIANTS empty the kernel is a single module, dm_spv_<kernel>, compiled and
# validated but not optimised (copy.comp), then its trace build (DM_TRACE, glsl/trace.glsl),
# dm_spv_<kernel>_trace. Otherwise it is one module per (row bucket, variant, texel path):
# variant 0 and each of DM_VARIANTS, those of DM_FIRST_BUCKET only in the first bucket
# (they serve rows of a rank-1 or rank-2 gather), those of DM_STORAGE_ONLY without a texel
# module (lists.mk's FIRST_BUCKET_VARIANTS and STORAGE_VARIANTS), each compiled with its
# DM_ROW_DIMS, DM_VARIANT and DM_TEXEL, stripped by spirv-opt, validated, and written as
# dm_spv_<kernel>_r<R>_v<V>_t<T>[] with DM_SPV_<kernel>_MODULES, the designated
# initializers [bucket][variant][texel] of kernels.c's table; and the trace build of each
# texel-0 module, dm_spv_<kernel>_r<R>_v<V>_trace[] in DM_SPV_<kernel>_TRACE_MODULES,
# [bucket][variant].
cmake_minimum_required(VERSION 3.16)

foreach(v DM_ROOT DM_KERNEL DM_OUT DM_COMPILER DM_SPIRV_VAL)
    if(NOT DEFINED ${v} OR "${${v}}" STREQUAL "")
        message(FATAL_ERROR "dmlops_spirv.cmake: ${v} is not set")
    endif()
endforeach()
set(target_env vulkan1.1)
string(REPLACE "," ";" opt_flags "${DM_OPT_FLAGS}")
string(REPLACE "," ";" variants "${DM_VARIANTS}")
string(REPLACE "," ";" row_dims "${DM_ROW_DIMS}")
string(REPLACE "," ";" first_bucket "${DM_FIRST_BUCKET}")
string(REPLACE "," ";" storage_only "${DM_STORAGE_ONLY}")
get_filename_component(spv_dir "${DM_OUT}" DIRECTORY)
file(MAKE_DIRECTORY "${spv_dir}")
# Relative to DM_ROOT as in the Makefile (glsl/x.comp, -Iglsl), so that nothing in a module
# depends on where the tree is.
set(source glsl/${DM_KERNEL}.comp)

get_filename_component(compiler_name "${DM_COMPILER}" NAME_WE)
string(TOLOWER "${compiler_name}" compiler_name)

# run(<what> COMMAND...): runs the command in DM_ROOT, quietly; on failure prints its output
# and stops the build.
function(run what)
    execute_process(COMMAND ${ARGN} WORKING_DIRECTORY "${DM_ROOT}" RESULT_VARIABLE rc
                    OUTPUT_VARIABLE out ERROR_VARIABLE out)
    if(NOT rc EQUAL 0)
        message(FATAL_ERROR "${what} failed (${rc}):\n${out}")
    endif()
endfunction()

# compile(<out.spv> <defines...>): GLSL to SPIR-V with glslangValidator or the SDK's glslc.
function(compile out)
    set(defs "")
    foreach(d IN LISTS ARGN)
        list(APPEND defs -D${d})
    endforeach()
    if(compiler_name MATCHES "glslc")
        set(cmd "${DM_COMPILER}" -fshader-stage=compute --target-env=${target_env} -Iglsl ${defs} -o "${out}" ${source})
    else()
        set(cmd "${DM_COMPILER}" -V --target-env ${target_env} -S comp -Iglsl ${defs} -o "${out}" ${source})
    endif()
    run("${compiler_name} ${source} ${ARGN}" ${cmd})
endfunction()

# words(<var> <file.spv>): the module's words as od -An -v -tx4 | sed writes them: four
# 0x%08x, per line. The word order comes from the magic number, as od's host order did.
function(words var file)
    file(READ "${file}" hex HEX)
    string(LENGTH "${hex}" n)
    math(EXPR rem "${n} % 8")
    if(n EQUAL 0 OR NOT rem EQUAL 0)
        message(FATAL_ERROR "${file} is not a whole number of 32-bit words")
    endif()
    string(SUBSTRING "${hex}" 0 8 magic)
    if(magic STREQUAL "03022307")
        string(REGEX REPLACE "(..)(..)(..)(..)" "0x\\4\\3\\2\\1," hex "${hex}")
    elseif(magic STREQUAL "07230203")
        string(REGEX REPLACE "(........)" "0x\\1," hex "${hex}")
    else()
        message(FATAL_ERROR "${file} does not start with the SPIR-V magic number")
    endif()
    string(REGEX REPLACE "(0x........,0x........,0x........,0x........,)" "\\1\n" hex "${hex}")
    if(NOT hex MATCHES "\n$")
        string(APPEND hex "\n")
    endif()
    set(${var} "${hex}" PARENT_SCOPE)
endfunction()

set(header "/* Generated from ${source} by cmake/dmlops_spirv.cmake. */\n")
if(variants STREQUAL "")
    foreach(m ${DM_KERNEL} ${DM_KERNEL}_trace)
        set(defs "")
        if(m MATCHES "_trace$")
            set(defs DM_TRACE=1)
        endif()
        set(spv "${spv_dir}/${m}.spv")
        compile("${spv}" ${defs})
        run("spirv-val ${spv}" "${DM_SPIRV_VAL}" --target-env ${target_env} "${spv}")
        words(w "${spv}")
        string(APPEND header "static const uint32_t dm_spv_${m}[] = {\n${w}};\n")
    endforeach()
else()
    if(NOT DM_SPIRV_OPT)
        message(FATAL_ERROR "dmlops_spirv.cmake: DM_SPIRV_OPT is not set")
    endif()
    set(table "#define DM_SPV_${DM_KERNEL}_MODULES \\\n")
    set(trace_table "#define DM_SPV_${DM_KERNEL}_TRACE_MODULES \\\n")
    set(bucket 0)
    foreach(r IN LISTS row_dims)
        foreach(v 0 ${variants})
            if(v IN_LIST first_bucket AND NOT bucket EQUAL 0)
                continue()
            endif()
            set(texels 0 1 trace)
            if(v IN_LIST storage_only)
                set(texels 0 trace)
            endif()
            foreach(t IN LISTS texels)
                if(t STREQUAL "trace")
                    set(m ${DM_KERNEL}_r${r}_v${v}_trace)
                    set(defs DM_ROW_DIMS=${r} DM_VARIANT=${v} DM_TEXEL=0 DM_TRACE=1)
                else()
                    set(m ${DM_KERNEL}_r${r}_v${v}_t${t})
                    set(defs DM_ROW_DIMS=${r} DM_VARIANT=${v} DM_TEXEL=${t})
                endif()
                compile("${spv_dir}/${m}.glslang" ${defs})
                run("spirv-opt ${m}" "${DM_SPIRV_OPT}" ${opt_flags} --target-env=${target_env}
                    "${spv_dir}/${m}.glslang" -o "${spv_dir}/${m}.spv")
                run("spirv-val ${m}" "${DM_SPIRV_VAL}" --target-env ${target_env} "${spv_dir}/${m}.spv")
                file(REMOVE "${spv_dir}/${m}.glslang")
                words(w "${spv_dir}/${m}.spv")
                string(APPEND header "static const uint32_t dm_spv_${m}[] = {\n${w}};\n")
                if(t STREQUAL "trace")
                    string(APPEND trace_table "    [${bucket}][${v}] = {dm_spv_${m}, sizeof dm_spv_${m}}, \\\n")
                else()
                    string(APPEND table "    [${bucket}][${v}][${t}] = {dm_spv_${m}, sizeof dm_spv_${m}}, \\\n")
                endif()
            endforeach()
        endforeach()
        math(EXPR bucket "${bucket} + 1")
    endforeach()
    string(APPEND header "${table}\n${trace_table}\n")
endif()
# Written whole and then renamed, so that an interrupted build leaves no half header.
file(WRITE "${DM_OUT}.tmp" "${header}")
file(RENAME "${DM_OUT}.tmp" "${DM_OUT}")
