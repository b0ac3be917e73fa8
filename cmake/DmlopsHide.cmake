# How the static archive hides the library's internals, in one place, as the Makefile's
# $(LIB) rule and HIDE_INTERNALS do (test/test_cmake.sh checks that both archives define the
# same global symbols, only dmlops_*). Change the two together.
#
# dmlops_add_hidden_archive(<target> <output name> OBJECTS <objects or $<TARGET_OBJECTS:...>>...)
#   Makes <target>, a STATIC library named <output name>, of one object
#   (<binary dir>/dmlops.o): the objects prelinked with `cc -r -nostdlib`, so that calls
#   between them are resolved inside it, then their internals made local by
#   cmake/dmlops_hide.cmake, so that an application that links the archive meets only
#   dmlops_*: never our dm_* helpers, nor the vk* function pointers of our private volk,
#   which would otherwise clash with the application's own volk or Vulkan loader.
#
#   DMLOPS_HIDE says how, by the target's object format:
#     elf    objcopy --localize-hidden: every hidden symbol, i.e. all but DMLOPS_API (Linux,
#            Android);
#     coff   PE/COFF has no visibility: every defined global but dmlops_* is localized by
#            name, and .drectve (the DLL's -export: directives) is dropped, or an executable
#            linking the archive would export our API (MinGW);
#     macho  ld -r already makes hidden symbols static (Apple);
#     none   a plain archive of the objects, internals visible: MSVC, which has no `cc -r`
#            nor objcopy (and a way to look inside the archive elsewhere).
function(dmlops_add_hidden_archive target output_name)
    cmake_parse_arguments(PARSE_ARGV 2 arg "" "" "OBJECTS")
    if(DMLOPS_HIDE STREQUAL "none")
        add_library(${target} STATIC ${arg_OBJECTS})
    elseif(DMLOPS_HIDE MATCHES "^(elf|coff|macho)$")
        set(prelink "${CMAKE_CURRENT_BINARY_DIR}/dmlops-prelink.o")
        set(hidden "${CMAKE_CURRENT_BINARY_DIR}/dmlops.o")
        # The compiler links for its target: a clang cross compiler needs its --target, and
        # a sysroot where one is set, even for -r -nostdlib.
        set(driver "${CMAKE_C_COMPILER}")
        if(CMAKE_C_COMPILER_TARGET AND CMAKE_C_COMPILE_OPTIONS_TARGET)
            list(APPEND driver "${CMAKE_C_COMPILE_OPTIONS_TARGET}${CMAKE_C_COMPILER_TARGET}")
        endif()
        if(CMAKE_SYSROOT)
            list(APPEND driver "--sysroot=${CMAKE_SYSROOT}")
        endif()
        add_custom_command(OUTPUT "${hidden}"
            COMMAND ${driver} -r -nostdlib -o "${prelink}" ${arg_OBJECTS}
            COMMAND "${CMAKE_COMMAND}" "-DDM_MODE=${DMLOPS_HIDE}" "-DDM_IN=${prelink}" "-DDM_OUT=${hidden}"
                    "-DDM_OBJCOPY=${CMAKE_OBJCOPY}" "-DDM_NM=${CMAKE_NM}"
                    -P "${DMLOPS_SOURCE_DIR}/cmake/dmlops_hide.cmake"
            DEPENDS ${arg_OBJECTS} "${DMLOPS_SOURCE_DIR}/cmake/dmlops_hide.cmake"
            COMMENT "Prelinking libdmlops: only dmlops_* stays global (${DMLOPS_HIDE})"
            COMMAND_EXPAND_LISTS VERBATIM)
        set_source_files_properties("${hidden}" PROPERTIES EXTERNAL_OBJECT TRUE GENERATED TRUE)
        add_library(${target} STATIC "${hidden}")
        # Nothing but an object to archive: CMake cannot guess the language.
        set_target_properties(${target} PROPERTIES LINKER_LANGUAGE C)
    else()
        message(FATAL_ERROR "DMLOPS_HIDE is '${DMLOPS_HIDE}': elf, coff, macho or none")
    endif()
    set_target_properties(${target} PROPERTIES OUTPUT_NAME ${output_name})
endfunction()

# The default for DMLOPS_HIDE (see above), from the target and its tools.
function(dmlops_default_hide var)
    if(NOT CMAKE_OBJCOPY)
        find_program(CMAKE_OBJCOPY NAMES ${_CMAKE_TOOLCHAIN_PREFIX}objcopy objcopy llvm-objcopy)
    endif()
    if(NOT CMAKE_NM)
        find_program(CMAKE_NM NAMES ${_CMAKE_TOOLCHAIN_PREFIX}nm nm llvm-nm)
    endif()
    set(mode none)
    if(MSVC OR NOT CMAKE_C_COMPILER_ID MATCHES "GNU|Clang")
        set(mode none)
    elseif(APPLE)
        set(mode macho)
    elseif(WIN32 AND CMAKE_OBJCOPY AND CMAKE_NM)
        set(mode coff)
    elseif(NOT WIN32 AND CMAKE_OBJCOPY)
        set(mode elf)
    endif()
    set(${var} ${mode} PARENT_SCOPE)
endfunction()
