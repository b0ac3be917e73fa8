# 32-bit ARM Linux, hard float (Debian armhf: ARMv7-A, VFPv3-D16, no NEON by default) with
# Debian's cross compiler (gcc-arm-linux-gnueabihf), tests under qemu-arm (qemu-user):
#   cmake -S . -B build-armhf -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/arm-linux-gnueabihf.cmake
#   cmake --build build-armhf && ctest --test-dir build-armhf
set(CMAKE_SYSTEM_PROCESSOR armv7l)
set(DMLOPS_CROSS_TRIPLE arm-linux-gnueabihf)
set(DMLOPS_CROSS_QEMU qemu-arm)
include(${CMAKE_CURRENT_LIST_DIR}/linux-cross.cmake)
