# Writes and installs dmlops.pc, dmlopsConfig.cmake and dmlopsConfigVersion.cmake: run by
# `cmake --install` (cmake/DmlopsInstall.cmake sets the DM_* variables), with the install
# prefix of that moment. The substitutions are the Makefile's install recipe's, one for one,
# so that both builds install the same text:
#   - the CMake package finds its prefix from its own location, so a staged or moved tree
#     (DESTDIR, a tarball) still works; that needs LIBDIR and INCLUDEDIR inside the prefix,
#     else it records their absolute paths;
#   - dmlops.pc names its directories through ${prefix} where it can.
# cmake_install.cmake sets no policies: @NAME@ below must stay text (CMP0053).
cmake_policy(VERSION 3.16)

set(prefix "${CMAKE_INSTALL_PREFIX}")
if(prefix MATCHES "^(.+[^/])/+$")
    set(prefix "${CMAKE_MATCH_1}")
endif()

# The absolute directory, and its path below the prefix ("" when it is not below it).
foreach(d LIBDIR INCLUDEDIR)
    if(IS_ABSOLUTE "${DM_${d}}")
        set(${d} "${DM_${d}}")
    else()
        set(${d} "${prefix}/${DM_${d}}")
    endif()
    string(LENGTH "${prefix}/" n)
    string(SUBSTRING "${${d}}/" 0 ${n} head)
    if(head STREQUAL "${prefix}/" AND NOT "${${d}}" STREQUAL "${prefix}")
        string(SUBSTRING "${${d}}" ${n} -1 ${d}_REL)
    else()
        set(${d}_REL "")
    endif()
endforeach()

# From the package's directory (LIBDIR/cmake/dmlops): "../.." up to LIBDIR, then one ".." per
# level of LIBDIR below the prefix.
if(LIBDIR_REL AND INCLUDEDIR_REL)
    set(CMAKE_PREFIX "\${CMAKE_CURRENT_LIST_DIR}/../..")
    string(REPLACE "/" ";" levels "${LIBDIR_REL}")
    foreach(level IN LISTS levels)
        string(APPEND CMAKE_PREFIX "/..")
    endforeach()
    set(CMAKE_LIBDIR "\${_dmlops_prefix}/${LIBDIR_REL}")
    set(CMAKE_INCLUDEDIR "\${_dmlops_prefix}/${INCLUDEDIR_REL}")
else()
    set(CMAKE_PREFIX "${prefix}")
    set(CMAKE_LIBDIR "${LIBDIR}")
    set(CMAKE_INCLUDEDIR "${INCLUDEDIR}")
endif()
foreach(d LIBDIR INCLUDEDIR)
    if(${d}_REL)
        set(PC_${d} "\${prefix}/${${d}_REL}")
    else()
        set(PC_${d} "${${d}}")
    endif()
endforeach()

# subst(<template> <output> <NAME=value>...): the Makefile's sed -e 's|@NAME@|value|g', for
# exactly the names given (a configure_file would also empty any other @...@).
function(subst template output)
    file(READ "${DM_ROOT}/src/${template}" text)
    foreach(pair @VERSION@=${DM_VERSION} @VERSION_MAJOR@=${DM_VERSION_MAJOR} @SONAME@=${DM_SONAME} ${ARGN})
        string(FIND "${pair}" "=" eq)
        string(SUBSTRING "${pair}" 0 ${eq} name)
        math(EXPR eq "${eq} + 1")
        string(SUBSTRING "${pair}" ${eq} -1 value)
        string(REPLACE "${name}" "${value}" text "${text}")
    endforeach()
    file(WRITE "${DM_WORK}/${output}" "${text}")
endfunction()
subst(dmlops.pc.in dmlops.pc @PREFIX@=${prefix} @LIBDIR@=${PC_LIBDIR} @INCLUDEDIR@=${PC_INCLUDEDIR} @LIBS@=${DM_LIBS})
subst(dmlopsConfig.cmake.in dmlopsConfig.cmake
      @CMAKE_PREFIX@=${CMAKE_PREFIX} @CMAKE_LIBDIR@=${CMAKE_LIBDIR} @CMAKE_INCLUDEDIR@=${CMAKE_INCLUDEDIR})
subst(dmlopsConfigVersion.cmake.in dmlopsConfigVersion.cmake @SIZEOF_VOID_P@=${DM_SIZEOF_VOID_P})

# file(INSTALL) is what install() runs: it adds DESTDIR and lists the files in
# install_manifest.txt.
set(mode PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ)
file(INSTALL "${DM_WORK}/dmlops.pc" DESTINATION "${LIBDIR}/pkgconfig" ${mode})
file(INSTALL "${DM_WORK}/dmlopsConfig.cmake" "${DM_WORK}/dmlopsConfigVersion.cmake"
     DESTINATION "${LIBDIR}/cmake/dmlops" ${mode})
