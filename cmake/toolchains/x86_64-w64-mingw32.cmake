# 64-bit Windows with MinGW-w64 (Debian's gcc-mingw-w64-x86-64), tests under wine:
#   cmake -S . -B build-mingw -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/x86_64-w64-mingw32.cmake
#   cmake --build build-mingw && ctest --test-dir build-mingw
# wine keeps its state in WINEPREFIX (default ~/.wine; its first start takes a while). The
# emulator line names the folder of MinGW's runtime DLLs (winpthread) through WINEPATH for
# programs linked against them (the suites are linked statically), and silences wine's own
# diagnostics. Where xvfb-run is installed it runs wine under a virtual X server, as
# .ci/platforms.sh does: only then does wine's Vulkan (winevulkan) reach the host's driver
# (lavapipe), which test_vulkan's loader checks need even on the CPU backend; without X,
# wine's loader finds no driver and those checks fail.
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
find_program(DMLOPS_XVFB_RUN xvfb-run)
if(DMLOPS_XVFB_RUN)
    set(CMAKE_CROSSCOMPILING_EMULATOR ${DMLOPS_XVFB_RUN} -a env WINEDEBUG=-all WINEPATH=/usr/${_mingw}/lib wine)
else()
    set(CMAKE_CROSSCOMPILING_EMULATOR env WINEDEBUG=-all WINEPATH=/usr/${_mingw}/lib wine)
endif()
# No pkg-config modules for Windows here: none of the build machine's.
set(ENV{PKG_CONFIG_LIBDIR} /usr/${_mingw}/lib/pkgconfig)
