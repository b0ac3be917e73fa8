# Shared body of the Debian cross toolchain files (aarch64-linux-gnu.cmake,
# arm-linux-gnueabihf.cmake): the caller sets DMLOPS_CROSS_TRIPLE and DMLOPS_CROSS_QEMU.
#
# Debian's cross compilers (gcc-<triple>) keep the target's C library in /usr/<triple>;
# libraries of the target installed through multiarch (libfoo:arm64) are in
# /usr/lib/<triple>. Programs (glslangValidator, spirv-opt, objcopy's cousins) are the
# build machine's. Test programs run under qemu-user with the target's loader and
# libraries from /usr/<triple> (binfmt is often missing in containers, so qemu is called
# explicitly).
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_C_COMPILER ${DMLOPS_CROSS_TRIPLE}-gcc)
# A C++ consumer needs the cross g++ (g++-<triple>); the library is C only.
find_program(DMLOPS_CROSS_CXX ${DMLOPS_CROSS_TRIPLE}-g++)
if(DMLOPS_CROSS_CXX)
    set(CMAKE_CXX_COMPILER ${DMLOPS_CROSS_CXX})
endif()
set(CMAKE_LIBRARY_ARCHITECTURE ${DMLOPS_CROSS_TRIPLE})
set(CMAKE_FIND_ROOT_PATH /usr/${DMLOPS_CROSS_TRIPLE})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
set(CMAKE_CROSSCOMPILING_EMULATOR ${DMLOPS_CROSS_QEMU} -L /usr/${DMLOPS_CROSS_TRIPLE})
# pkg-config sees the target's modules only (multiarch), never the build machine's.
set(ENV{PKG_CONFIG_LIBDIR} /usr/lib/${DMLOPS_CROSS_TRIPLE}/pkgconfig:/usr/share/pkgconfig)
