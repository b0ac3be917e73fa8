# Makes the internals of the prelinked library object local (cmake/DmlopsHide.cmake says
# why and when; the Makefile's HIDE_INTERNALS is the same step):
#   cmake -DDM_MODE=elf|coff|macho -DDM_IN=dmlops-prelink.o -DDM_OUT=dmlops.o
#         -DDM_OBJCOPY=objcopy -DDM_NM=nm -P dmlops_hide.cmake
cmake_minimum_required(VERSION 3.16)

function(run)
    execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
    if(NOT rc EQUAL 0)
        string(REPLACE ";" " " cmd "${ARGN}")
        message(FATAL_ERROR "${cmd} failed (${rc}):\n${out}")
    endif()
endfunction()

if(DM_MODE STREQUAL "elf")
    # Hidden visibility marks the internals; objcopy makes every hidden symbol local.
    run("${DM_OBJCOPY}" --localize-hidden "${DM_IN}" "${DM_OUT}")
elseif(DM_MODE STREQUAL "coff")
    # No visibility in PE/COFF: localize every defined global that is not dmlops_* by name,
    # and drop .drectve, the DLL's -export: directives (from DMLOPS_API's dllexport).
    execute_process(COMMAND "${DM_NM}" -g --defined-only "${DM_IN}" RESULT_VARIABLE rc
                    OUTPUT_VARIABLE symbols ERROR_VARIABLE err)
    if(NOT rc EQUAL 0)
        message(FATAL_ERROR "${DM_NM} -g --defined-only ${DM_IN} failed (${rc}):\n${err}")
    endif()
    string(REPLACE "\n" ";" lines "${symbols}")
    set(private "")
    foreach(line IN LISTS lines)
        if(line MATCHES "^[^ ]+ [^ ]+ ([^ ]+)$")
            set(name "${CMAKE_MATCH_1}") # (the next MATCHES resets CMAKE_MATCH_1)
            if(NOT name MATCHES "^dmlops_")
                string(APPEND private "${name}\n")
            endif()
        endif()
    endforeach()
    get_filename_component(dir "${DM_OUT}" DIRECTORY)
    file(WRITE "${dir}/dmlops.private" "${private}")
    run("${DM_OBJCOPY}" "--localize-symbols=${dir}/dmlops.private" --remove-section=.drectve "${DM_IN}" "${DM_OUT}")
elseif(DM_MODE STREQUAL "macho")
    # ld -r has already made the hidden symbols static.
    configure_file("${DM_IN}" "${DM_OUT}" COPYONLY)
else()
    message(FATAL_ERROR "dmlops_hide.cmake: DM_MODE is '${DM_MODE}': elf, coff or macho")
endif()
