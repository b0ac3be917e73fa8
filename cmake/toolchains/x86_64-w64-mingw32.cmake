# 64-bit Windows with MinGW-w64 (Debian's gcc-mingw-w64-x86-64), tests under wine:
#   cmake -S . -B build-mingw -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/x86_64-w64-mingw32.cmake
#   cmake --build build-mingw && ctest --test-dir build-mingw
# wine keeps its state in WINEPREFIX (default ~/.wine; its first start takes a while). The
# emulator line names the folder of MinGW's runtime DLLs (winpthread) through WINEPATH, and
# silences wine's own diagnostics.
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR x86_64)
set(_mingw x86_64-w64-mingw32)
set(CMAKE_C_COMPILER ${_mingw}-gcc)
find_program(DMLOPS_CROSS_CXX ${_mingw}-g++)
if(DMLOPS_CROSS_CXX)
    set(CMAKE_CXX_COMPILER ${DMLOPS_CROSS_CXX})
endif()
set(CMAKE_RC_COMPILER ${_mingw}-windres)
set(CMAKE_FIND_ROOT_PATH /usr/${_mingw})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
set(CMAKE_CROSSCOMPILING_EMULATOR env WINEDEBUG=-all WINEPATH=/usr/${_mingw}/lib wine)
# No pkg-config modules for Windows here: none of the build machine's.
set(ENV{PKG_CONFIG_LIBDIR} /usr/${_mingw}/lib/pkgconfig)
