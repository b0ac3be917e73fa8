# 64-bit ARM Linux with Debian's cross compiler (gcc-aarch64-linux-gnu), tests under
# qemu-aarch64 (qemu-user):
#   cmake -S . -B build-aarch64 -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/aarch64-linux-gnu.cmake
#   cmake --build build-aarch64 && ctest --test-dir build-aarch64
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(DMLOPS_CROSS_TRIPLE aarch64-linux-gnu)
set(DMLOPS_CROSS_QEMU qemu-aarch64)
include(${CMAKE_CURRENT_LIST_DIR}/linux-cross.cmake)
