# How the static archive hides the library's internals, in one place: the Makefile's
# `$(LIB)` rule does the same (test/test_cmake.sh checks that both archives define the same
# global symbols, only dmlops_*). Change the two together.
#
# dmlops_add_hidden_archive(<target> <output name> OBJECTS <objects or $<TARGET_OBJECTS:...>>...)
#   Makes <target>, a STATIC library named <output name>, of one relocatable object
#   (<binary dir>/dmlops.o): the objects prelinked with `cc -r`, so that calls between them
#   are resolved inside it, then `objcopy --localize-hidden`, which makes every hidden
#   symbol (everything but DMLOPS_API) local. An application that links the archive then
#   sees dmlops_* and nothing else: not our dm_* helpers, and not the vk* function pointers
#   of our private volk, which would otherwise clash with the application's own volk.
#
#   DMLOPS_HIDE says which way:
#     localize  the above (ELF: gcc and clang on Linux and Android, MinGW's objcopy);
#     none      a plain archive of the objects, internals visible (MSVC, whose toolchain has
#               no `cc -r` and no objcopy; also a way to debug the archive).
#   The default is localize wherever the compiler is GNU-like and an objcopy was found.
function(dmlops_add_hidden_archive target output_name)
    cmake_parse_arguments(PARSE_ARGV 2 arg "" "" "OBJECTS")
    if(DMLOPS_HIDE STREQUAL "none")
        add_library(${target} STATIC ${arg_OBJECTS})
    elseif(DMLOPS_HIDE STREQUAL "localize")
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
            COMMAND "${CMAKE_OBJCOPY}" --localize-hidden "${prelink}" "${hidden}"
            DEPENDS ${arg_OBJECTS}
            COMMENT "Prelinking libdmlops (only dmlops_* stays global)"
            COMMAND_EXPAND_LISTS VERBATIM)
        set_source_files_properties("${hidden}" PROPERTIES EXTERNAL_OBJECT TRUE GENERATED TRUE)
        add_library(${target} STATIC "${hidden}")
        # Nothing but an object to archive: CMake cannot guess the language.
        set_target_properties(${target} PROPERTIES LINKER_LANGUAGE C)
    else()
        message(FATAL_ERROR "DMLOPS_HIDE is '${DMLOPS_HIDE}': localize or none")
    endif()
    set_target_properties(${target} PROPERTIES OUTPUT_NAME ${output_name})
endfunction()

# The default for DMLOPS_HIDE (see above).
function(dmlops_default_hide var)
    if(NOT CMAKE_OBJCOPY)
        find_program(CMAKE_OBJCOPY NAMES ${_CMAKE_TOOLCHAIN_PREFIX}objcopy objcopy llvm-objcopy)
    endif()
    if(CMAKE_C_COMPILER_ID MATCHES "GNU|Clang" AND NOT MSVC AND NOT APPLE AND CMAKE_OBJCOPY)
        set(${var} localize PARENT_SCOPE)
    else()
        set(${var} none PARENT_SCOPE)
    endif()
endfunction()
