# Reads lists.mk, the lists the Makefile includes, into DMLOPS_<NAME> variables (each a
# CMake list), so that both builds take their sources, warnings and kernel variants from
# one file. Only `NAME := words`, `NAME ?= words` and `NAME = words` lines and comments are
# understood; anything else (a make function, a reference, a continuation) is an error
# here rather than a silently different list.
function(dmlops_read_lists file)
    file(STRINGS "${file}" lines)
    set(names "")
    foreach(line IN LISTS lines)
        string(REGEX REPLACE "#.*$" "" line "${line}")
        string(STRIP "${line}" line)
        if(line STREQUAL "")
            continue()
        endif()
        if(NOT line MATCHES "^([A-Za-z_][A-Za-z0-9_]*)[ \t]*[:?]?=[ \t]*([^$\\\\]*)$")
            message(FATAL_ERROR "${file}: cannot read `${line}`: only NAME := words lines are shared with CMake")
        endif()
        set(name "${CMAKE_MATCH_1}")
        separate_arguments(value UNIX_COMMAND "${CMAKE_MATCH_2}")
        set(DMLOPS_${name} "${value}" PARENT_SCOPE)
        list(APPEND names ${name})
    endforeach()
    set(DMLOPS_LIST_NAMES "${names}" PARENT_SCOPE)
endfunction()
