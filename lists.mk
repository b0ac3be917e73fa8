# The lists both builds read, so that they cannot drift apart: the Makefile includes this
# file and CMakeLists.txt parses it (cmake/DmlopsLists.cmake). Keep to plain
# `NAME := words` (or `?=`) lines and comments: the CMake side reads no make syntax beyond
# that, and refuses a line it does not understand rather than guess.

# The library is every *.c in these directories (a file that serves one platform guards
# itself with #if, so a directory is compiled whole everywhere); the tool is src/cli, with
# its benchmark (`dmlops bench`) in src/bench.
LIB_DIRS := src src/cpu src/vk src/platform src/onnx src/tune
CLI_DIRS := src/cli src/bench

# What the library links on each target OS (the Makefile's TARGET_OS): libdmlops.so, the
# tool, and the users of libdmlops.a (dmlops.pc's Libs.private). Windows needs only
# KERNEL32 and the C runtime (src/platform/win32.c); Apple's and Android's C libraries hold
# dlopen, and Android's the threads as well.
LIBS_linux := -lm -ldl -lpthread
LIBS_windows :=
LIBS_darwin := -lm -lpthread
LIBS_android := -lm -ldl

# Warnings of every C file we compile (gcc and clang).
WARN := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wvla

# The gather kernels' modules: one per row bucket (ROW_DIMS), variant and texel path. Each
# kernel has its general path (variant 0) and these fast-path variants (DM_VARIANT_* in
# src/vk/vk_abi.h); the Makefile's $(GATHER_H) rule says how they are built.
ROW_DIMS := 1 3 7
VARIANTS_slice := 1 2 3 6 9 12
VARIANTS_reverse := 4 5 6 8 9 10
VARIANTS_one_hot := 4 5 6 7 11
# Variants of rank-1 and rank-2 gathers only (the FLAT walks and the GPU tiles): built for
# the first row bucket alone.
FIRST_BUCKET_VARIANTS := 6 7 9 10 11 12
# The GPU tiles (glsl/gather_tiles.glsl), which only GPU tuning picks, on storage buffers:
# no texel-path module.
STORAGE_VARIANTS := 9 10 11 12
# Every function inlined and the record's word reads folded before a driver sees the module:
# p() (glsl/gather_common.glsl) is a switch over the record's 128 words, one load once its
# index is a constant, but drivers lower a switch to an if-ladder before they inline and
# fold, so a module with p()'s hundreds of calls left to them took RADV about 40 s a
# pipeline to compile (against 0.8 s for the same kernels folded here) and doubled the
# module. Only inlining and its clean-up: -O's other passes are not wanted here. The dead
# branches (the other variants' paths, folded from the build's -D constants) go first,
# before inlining copies them into one huge function: after it, eliminate-dead-branches,
# ssa-rewrite and ccp took 4.6 s of CPU a module (REVERSE GENERAL, 7 row dimensions),
# about 8 minutes for the 121 modules of every fresh build (make test builds three); with
# them gone first, 0.7 s, and the module 0.4% smaller.
SPIRV_OPT_FLAGS ?= --eliminate-dead-branches --eliminate-dead-code-aggressive --eliminate-dead-functions --merge-return --inline-entry-points-exhaustive --eliminate-local-single-store --eliminate-local-multi-store --ccp --eliminate-dead-branches --simplify-instructions --eliminate-dead-code-aggressive --eliminate-dead-functions --merge-blocks
