# install(): the files of `make install`, in the same places relative to the prefix (the
# GNUInstallDirs variables stand for the Makefile's BINDIR, INCLUDEDIR, LIBDIR and MANDIR):
# the three headers (dmlops.h, dmlops_onnx.h, dmlops_vulkan.h), libdmlops.a,
# libdmlops.so.MAJOR.MINOR.PATCH with its soname and development links, dmlops.pc, the
# CMake package (dmlopsConfig.cmake and its version file), the dmlops tool and its man
# page. dmlops.pc and the package are written from the
# Makefile's own templates (src/*.in) with the same substitutions, at install time, so that
# `cmake --install --prefix` and DESTDIR give what make's PREFIX and DESTDIR give.
# test/test_cmake.sh installs both ways and compares the trees.
if(NOT DMLOPS_BUILD_SHARED)
    # The package (src/dmlopsConfig.cmake.in) names libdmlops.so as dmlops::dmlops.
    message(FATAL_ERROR "DMLOPS_INSTALL installs the package of make install, which has the shared library: "
        "configure with -DDMLOPS_BUILD_SHARED=ON, or -DDMLOPS_INSTALL=OFF")
endif()

install(FILES "${DMLOPS_SOURCE_DIR}/include/dmlops.h" "${DMLOPS_SOURCE_DIR}/include/dmlops_onnx.h"
              "${DMLOPS_SOURCE_DIR}/include/dmlops_vulkan.h"
        DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}")
install(TARGETS dmlops_static ARCHIVE DESTINATION "${CMAKE_INSTALL_LIBDIR}")
# Mode 755, as make install's (Debian's CMake would make it 644: CMAKE_INSTALL_SO_NO_EXE).
install(TARGETS dmlops_shared
        LIBRARY DESTINATION "${CMAKE_INSTALL_LIBDIR}"
                PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE
        ARCHIVE DESTINATION "${CMAKE_INSTALL_LIBDIR}"
        RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}")
if(DMLOPS_BUILD_TOOL)
    install(TARGETS dmlops_tool RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}")
    install(FILES "${DMLOPS_SOURCE_DIR}/docs/man/dmlops.1" DESTINATION "${CMAKE_INSTALL_MANDIR}/man1")
endif()

# The package files, written when installing (the prefix is known only then). The soname
# is the Makefile's SONAME: the DLL's or an unversioned library's own name, else the
# versioned one.
if(WIN32 OR DMLOPS_SO_UNVERSIONED)
    set(_dmlops_soname "$<TARGET_FILE_NAME:dmlops_shared>")
else()
    set(_dmlops_soname "$<TARGET_SONAME_FILE_NAME:dmlops_shared>")
endif()
install(CODE "
set(DM_ROOT \"${DMLOPS_SOURCE_DIR}\")
set(DM_WORK \"${CMAKE_CURRENT_BINARY_DIR}/package\")
set(DM_LIBDIR \"${CMAKE_INSTALL_LIBDIR}\")
set(DM_INCLUDEDIR \"${CMAKE_INSTALL_INCLUDEDIR}\")
set(DM_VERSION \"${PROJECT_VERSION}\")
set(DM_VERSION_MAJOR \"${PROJECT_VERSION_MAJOR}\")
set(DM_SONAME \"${_dmlops_soname}\")
set(DM_SIZEOF_VOID_P \"${CMAKE_SIZEOF_VOID_P}\")
set(DM_LIBS \"${DMLOPS_LIBS_FLAGS}\")
include(\"${DMLOPS_SOURCE_DIR}/cmake/dmlops_install_package.cmake\")
")

# After a root install into the live system, as make install: the loader learns the soname.
if(CMAKE_HOST_UNIX AND NOT CMAKE_CROSSCOMPILING AND NOT APPLE)
    find_program(DMLOPS_LDCONFIG ldconfig PATHS /sbin /usr/sbin)
    if(DMLOPS_LDCONFIG)
        install(CODE "
if(\"\$ENV{DESTDIR}\" STREQUAL \"\")
    execute_process(COMMAND id -u OUTPUT_VARIABLE _dmlops_uid OUTPUT_STRIP_TRAILING_WHITESPACE)
    if(_dmlops_uid STREQUAL \"0\")
        execute_process(COMMAND \"${DMLOPS_LDCONFIG}\")
    endif()
endif()
")
    endif()
endif()
