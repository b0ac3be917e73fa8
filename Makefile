# libdmlops - see README.md. `make help` lists the targets.
# Cross builds: CROSS is the toolchain's prefix (make CROSS=aarch64-linux-gnu-,
# arm-linux-gnueabihf-, x86_64-w64-mingw32-); it names CC, AR, OBJCOPY and NM unless
# they are set. README.md, "Other platforms", has each target's command.
CROSS   ?=
ifneq ($(CROSS),)
ifeq ($(origin CC),default)
CC := $(CROSS)gcc
endif
ifeq ($(origin AR),default)
AR := $(CROSS)ar
endif
OBJCOPY ?= $(CROSS)objcopy
NM      ?= $(CROSS)nm
endif
CC      ?= cc
CXX     ?= c++
AR      ?= ar
NM      ?= nm
# The target, from the compiler: linux, windows (MinGW-w64), darwin (macOS, iOS) or
# android (the NDK's clang). Each differs in its libraries, its shared-library name and
# how the static archive hides the library's internals (below).
TARGET  := $(shell $(CC) -dumpmachine 2>/dev/null)
TARGET_OS := $(strip $(if $(findstring mingw,$(TARGET))$(findstring windows,$(TARGET)),windows,\
    $(if $(findstring darwin,$(TARGET))$(findstring apple,$(TARGET)),darwin,\
    $(if $(findstring android,$(TARGET)),android,linux))))
# The NDK and Xcode have no GNU objcopy; Android's is llvm-objcopy.
OBJCOPY ?= $(if $(filter android,$(TARGET_OS)),llvm-objcopy,objcopy)
CFLAGS  ?= -O2 -g
LDFLAGS ?=
B       ?= build
GLSLANG ?= glslangValidator
SPIRV_VAL ?= spirv-val
SPIRV_OPT ?= spirv-opt
PKG_CONFIG ?= pkg-config
# volk's single-file loader, compiled into the library; volk.h sits beside it.
VOLK_SRC ?= /usr/include/volk.c

# Install locations; LIBDIR may be a multiarch directory such as $(PREFIX)/lib/x86_64-linux-gnu.
PREFIX     ?= /usr/local
DESTDIR    ?=
BINDIR     ?= $(PREFIX)/bin
INCLUDEDIR ?= $(PREFIX)/include
LIBDIR     ?= $(PREFIX)/lib
MANDIR     ?= $(PREFIX)/share/man
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
CMAKEDIR   ?= $(LIBDIR)/cmake/dmlops
# Run after a root install into the live system, so the loader finds the new soname.
LDCONFIG   ?= ldconfig

# The version has one source, the DMLOPS_VERSION_* macros of the public header.
version_part = $(firstword $(shell sed -n 's/^\#define DMLOPS_VERSION_$(1)  *\([0-9][0-9]*\).*/\1/p' include/*.h))
VERSION_MAJOR := $(call version_part,MAJOR)
VERSION_MINOR := $(call version_part,MINOR)
VERSION_PATCH := $(call version_part,PATCH)
VERSION := $(VERSION_MAJOR).$(VERSION_MINOR).$(VERSION_PATCH)
ifeq ($(words $(VERSION_MAJOR) $(VERSION_MINOR) $(VERSION_PATCH)),3)
else
$(error cannot read DMLOPS_VERSION_MAJOR/MINOR/PATCH from include/*.h)
endif

# LIB_DIRS, CLI_DIRS, WARN, the kernels' variants and SPIRV_OPT_FLAGS: shared with CMakeLists.txt.
include lists.mk
# volk.h is found beside VOLK_SRC (no -I for the system directory, which would reorder it).
VOLK_INC  := $(if $(filter /usr/include/,$(dir $(VOLK_SRC))),,-I$(dir $(VOLK_SRC)))
# Flags of the Vulkan headers and libcjson from pkg-config (empty or a guess without it).
VULKAN_CFLAGS := $(shell $(PKG_CONFIG) --cflags vulkan 2>/dev/null)
VULKAN_LIBS   := $(or $(shell $(PKG_CONFIG) --libs vulkan 2>/dev/null),-lvulkan)
CJSON_CFLAGS  := $(shell $(PKG_CONFIG) --cflags libcjson 2>/dev/null)
CJSON_LIBS    := $(or $(shell $(PKG_CONFIG) --libs libcjson 2>/dev/null),-lcjson)
SYSINC_DEP :=
ifneq ($(CROSS),)
# A cross compiler does not search this machine's /usr/include, and must not (its C
# library headers are this machine's): the Vulkan headers and volk.h, which are the same
# for every target, are linked into $(B)/sysinc and found there.
VULKAN_INCDIR := $(or $(shell $(PKG_CONFIG) --variable=includedir vulkan 2>/dev/null),/usr/include)
VOLK_INC      := -I$(B)/sysinc
VULKAN_CFLAGS :=
SYSINC_DEP    := $(B)/sysinc/volk.h
endif

# Per target: libraries, the names of executables and of the shared library, and how the
# static archive hides everything but dmlops_* (the $(LIB) rule below).
EXE       :=
# LIBS_<os> are in lists.mk (CMakeLists.txt links the same).
LIBS      := $(LIBS_$(TARGET_OS))
TEST_LIBS  = $(LIBS)
SONAME    := libdmlops.so.$(VERSION_MAJOR)
SO        := $(B)/libdmlops.so.$(VERSION)
# Android packages only unversioned lib*.so files into an APK: SO_UNVERSIONED=1 names the
# library and its soname libdmlops.so (the default there).
SO_UNVERSIONED ?= $(if $(filter android,$(TARGET_OS)),1)
ifeq ($(TARGET_OS),windows)
EXE       := .exe
# The library needs only KERNEL32 and the C runtime (src/platform/win32.c); the tests
# are linked statically so that they run anywhere wine does.
TEST_LIBS := -static -lpthread
SONAME    := dmlops.dll
SO        := $(B)/dmlops.dll
IMPLIB    := $(B)/libdmlops.dll.a
VULKAN_LIBS := -L$(B)/vulkan-1 -lvulkan-1
else ifeq ($(TARGET_OS),darwin)
SONAME    := libdmlops.$(VERSION_MAJOR).dylib
SO        := $(B)/libdmlops.$(VERSION).dylib
endif
ifeq ($(SO_UNVERSIONED),1)
SONAME    := libdmlops.so
SO        := $(B)/libdmlops.so
endif
# Where a cross build's test programs run: the CPU suites under `make test-cpu`.
EMULATOR ?= $(if $(CROSS),$(if $(filter windows,$(TARGET_OS)),wine,$(if $(findstring aarch64,$(TARGET)),\
    qemu-aarch64 -L /usr/aarch64-linux-gnu,$(if $(findstring arm,$(TARGET)),qemu-arm -L /usr/$(patsubst %-,%,$(CROSS))))))
# The tool needs libcjson for the target; a cross build without it skips the tool, and the
# Linux interop test needs the target's libvulkan (Windows': the import library below).
ifneq ($(CROSS),)
CJSON_CFLAGS :=
HAVE_CJSON := $(shell printf '\043include <cjson/cJSON.h>\nint main(void) { return cJSON_IsTrue(0); }\n' | \
    $(CC) -x c - -o /dev/null $(CJSON_LIBS) >/dev/null 2>&1 && echo y)
HAVE_LIBVULKAN := $(if $(filter windows,$(TARGET_OS)),y,$(if $(findstring /,$(shell $(CC) -print-file-name=libvulkan.so)),y))
else
HAVE_CJSON := y
HAVE_LIBVULKAN := y
endif

# DMLOPS_BUILD: dmlops.h marks the API __declspec(dllexport) on Windows. There
# -mcmodel=small addresses the library's data directly: MinGW's default reaches data in
# other files through .refptr.NAME COMDAT pointers, which the linker merges by name with
# an application's own, so that our private volk's vkGetInstanceProcAddr became the
# application's (a crash, measured under wine with an application that compiles volk).
PIC_FLAGS := $(if $(filter windows,$(TARGET_OS)),-mcmodel=small,-fPIC)
# Every C file: GNU extensions of the C library, and 64-bit file offsets and inode numbers
# where long is 32 bits (armhf): without them readdir() and stat() fail with EOVERFLOW on a
# filesystem with 64-bit inodes and fopen() refuses files past 2 GiB (test_onnx_nodes found
# no node tests under qemu-arm). No public type depends on it.
SRC_DEFS  := -D_GNU_SOURCE -D_FILE_OFFSET_BITS=64
DM_CFLAGS := -std=c11 $(SRC_DEFS) -DDMLOPS_BUILD -fvisibility=hidden $(PIC_FLAGS) \
             -Iinclude -Isrc -I$(B)/spv $(VOLK_INC) $(VULKAN_CFLAGS) $(WARN)
CLI_CFLAGS := -std=c11 $(SRC_DEFS) -Iinclude -Isrc/cli $(CJSON_CFLAGS) $(WARN)
# Tests and examples: the public headers, the test harness, and no prototype rule.
TEST_CFLAGS := -std=c11 $(SRC_DEFS) $(if $(filter windows,$(TARGET_OS)),-D__USE_MINGW_ANSI_STDIO=1) -Iinclude -Itest -Iexamples \
               $(VOLK_INC) $(VULKAN_CFLAGS) $(WARN) -Wno-missing-prototypes

LIB_SRC  := $(wildcard $(LIB_DIRS:%=%/*.c))
CLI_SRC  := $(wildcard $(CLI_DIRS:%=%/*.c))
CLI_OBJ  := $(CLI_SRC:%.c=$(B)/obj/%.o)
CLI      := $(B)/bin/dmlops$(EXE)
LIB_OBJ  := $(LIB_SRC:%.c=$(B)/obj/%.o)
GLSL     := $(wildcard glsl/*.comp)
SPV_H    := $(GLSL:glsl/%.comp=$(B)/spv/%.h)
# The gather kernels: every .comp that includes gather_main.glsl.
GATHER_H := $(patsubst glsl/%.comp,$(B)/spv/%.h,$(shell grep -l 'gather_main.glsl' $(GLSL)))
LIB      := $(B)/libdmlops.a
HEADERS  := $(wildcard include/*.h)
MAN      := docs/man/dmlops.1

TEST_SRC  := $(wildcard test/test_*.c)
TEST_SH   := $(wildcard test/test_*.sh)
# The interop test twice: against -lvulkan, and with the application's own volk.
# thread_fail wraps pthread_create, which the Windows build does not call.
INTEROP_BIN := $(if $(HAVE_LIBVULKAN),$(B)/test/interop_vulkan$(EXE)) $(B)/test/interop_volk$(EXE) $(B)/test/no_alloc$(EXE) \
               $(if $(filter windows,$(TARGET_OS)),,$(B)/test/thread_fail)
# test_npy and test_bench compile the tool's .npy writer and the bench's arithmetic, whose
# code is POSIX: they run where the tool does (not on Windows).
TEST_BIN  := $(filter-out $(if $(filter windows,$(TARGET_OS)),%/test_npy.exe %/test_bench.exe),$(TEST_SRC:test/%.c=$(B)/test/%$(EXE)))
TEST_HARNESS := $(B)/obj/test/harness.o
# The kernels' machine code (tools/isa, `make isa`; docs/performance.md): white-box, like
# test_vk_limits, and test_isa runs its figures in make test.
ISA_SRC   := $(wildcard tools/isa/*.c)
ISA_OBJ   := $(ISA_SRC:%.c=$(B)/obj/%.o)
ISA_LIB_OBJ := $(filter-out %/isa_main.o,$(ISA_OBJ))
ISA       := $(B)/tools/dmlops-isa$(EXE)
# Mesa's RADV, compiling for an AMD RDNA2 GPU (navi21) with none present: Debian's
# mesa-vulkan-drivers ICD file for this machine (.ci/deps.sh installs it).
RADV_ICD  ?= /usr/share/vulkan/icd.d/radeon_icd.$(shell uname -m).json
ISA_ARGS  ?=

# The dependency check (.ci/deps.sh) runs only for `make deps`, `make demo` and the test
# targets, never for a plain `make` or `make install`: it may install Debian packages.
# When it runs, every compile waits for it (an order-only prerequisite), even under -j.
DEPS_PROFILE := $(if $(filter fuzz,$(MAKECMDGOALS)),fuzz,$(if $(filter test-valgrind,$(MAKECMDGOALS)),valgrind,$(if \
                $(filter test test-%,$(MAKECMDGOALS)),test,$(if $(filter demo,$(MAKECMDGOALS)),demo))))
DEPS_ORDER   := $(if $(DEPS_PROFILE),deps-check)
DEPS_ENV = CC="$(CC)" CXX="$(CXX)" PKG_CONFIG="$(PKG_CONFIG)" GLSLANG="$(GLSLANG)" SPIRV_VAL="$(SPIRV_VAL)" SPIRV_OPT="$(SPIRV_OPT)" \
    VOLK_SRC="$(VOLK_SRC)"

.PHONY: all lib cli tests deps deps-check test test-asan test-tsan test-big test-valgrind test-cpu fuzz demo bench bench-docs gpu-bundle isa test-drivers install uninstall clean lint help
# A cross build also builds the test programs, to be run on the target or under
# `make test-cpu`'s emulator.
all: lib cli $(if $(CROSS),tests)
lib: $(LIB) $(SO)
tests: $(TEST_BIN) $(INTEROP_BIN)
ifeq ($(HAVE_CJSON),y)
cli: $(CLI)
else
cli:
	@echo "skipping the dmlops tool: no cJSON (cjson/cJSON.h) for $(TARGET); the library and tests build without it"
endif

help:
	@echo "make            build $(LIB), $(SO) and $(CLI)"
	@echo "make demo       run examples/quickstart.c and examples/onnx_slice.c on the default device"
	@echo "make test       build and run the test suite (ends with 'N passed, N failed')"
	@echo "make test-asan  the suite under AddressSanitizer + UBSan"
	@echo "make test-tsan  the thread tests and random suites under ThreadSanitizer"
	@echo "make test-big   tensors above maxStorageBufferRange (300 MiB, 2^25 elements)"
	@echo "make test-valgrind  the CPU tests under valgrind"
	@echo "make bench      the benchmark suite (and numpy, when installed); writes $(B)/bench/"
	@echo "make bench-docs the same, refreshing docs/performance.md and docs/bench/ (BENCH_ARGS=--backend vulkan ...)"
	@echo "make gpu-bundle the binaries a lent GPU machine runs with bench/gpu_run.sh (docs/performance.md)"
	@echo "make isa        the kernels' machine code per bench case, compiled by RADV for an AMD GPU that is not"
	@echo "                there: hot loop, memory instructions by width, VGPRs, integer divisions (ISA_ARGS=--tsv,"
	@echo "                --stats, --disassembly; docs/performance.md); then a table per driver (V3D, Adreno,"
	@echo "                Intel under drm-shim, RADV, lavapipe; ISA_DRIVERS=0 leaves them out)"
	@echo "make test-drivers  every pipeline compiled by those drivers: no crash, refusal, unused shared memory,"
	@echo "                spill or SIMD8 build past tools/mesa-shim/drivers_baseline.tsv (builds Mesa's"
	@echo "                drivers once into /var/cache/dmlops-mesa-shim; DMLOPS_DRIVERS_EVERY=N: every Nth)"
	@echo "make install    headers, static and shared library, dmlops.pc, CMake package, dmlops tool, man page"
	@echo "                (PREFIX=$(PREFIX) LIBDIR=$(LIBDIR) DESTDIR=...); make uninstall with the same variables"
	@echo "make deps       check for the tools and libraries; install them as root on Debian, else print the apt-get line"
	@echo "make lint       clang-tidy and cppcheck"
	@echo "make fuzz       libFuzzer targets, answers checked against a reference (FUZZ_SECONDS=60 each)"
	@echo "make test-cpu   the CPU-backend suites; for a cross build under qemu or wine (EMULATOR=...)"
	@echo "make test-profiles  the Vulkan suites under device profiles (test/profile_layer/: the spec's minimum"
	@echo "                limits, variants, Raspberry Pi 4, Adreno 618, Mali-G610) with the validation layer"
	@echo "variables: CC CFLAGS LDFLAGS PKG_CONFIG GLSLANG SPIRV_VAL SPIRV_OPT VOLK_SRC B (build directory)"
	@echo "           CROSS (a toolchain prefix: aarch64-linux-gnu-, arm-linux-gnueabihf-, x86_64-w64-mingw32-;"
	@echo "           README.md, \"Other platforms\") SO_UNVERSIONED=1 (libdmlops.so as its own soname)"

deps:
	@$(DEPS_ENV) .ci/deps.sh --say test

deps-check:
	@$(DEPS_ENV) .ci/deps.sh $(DEPS_PROFILE)

# ---- kernels: GLSL -> SPIR-V (validated) -> C arrays embedded in the library ---------
# A gather kernel is one module per (ROW_DIMS, VARIANT, TEXEL): its general path
# (variant 0) and each fast-path variant it has (DM_VARIANT_* in src/vk/vk_abi.h; the
# FLAT ones, 6 and 7, serve rows of a rank-1 or rank-2 gather only), each stripped of the
# other paths by spirv-opt once those are constants (gather_common.glsl says why),
# validated, and written as dm_spv_<kernel>_r<R>_v<V>_t<T>[] (od prints the words in host
# order, the order glslang wrote them in), with DM_SPV_<kernel>_MODULES, the designated
# initializers [bucket][variant][texel] of kernels.c's table. The storage-buffer modules
# (T 0) are built once more with DM_TRACE, the instrumented build a tracing context runs
# (glsl/trace.glsl): dm_spv_<kernel>_r<R>_v<V>_trace[] in DM_SPV_<kernel>_TRACE_MODULES,
# [bucket][variant]. ROW_DIMS, VARIANTS_<kernel>, FIRST_BUCKET_VARIANTS (built for the
# first bucket only) and STORAGE_VARIANTS (no texel module) are in lists.mk;
# cmake/dmlops_spirv.cmake builds the same modules for CMake.
$(GATHER_H): $(B)/spv/%.h: glsl/%.comp $(wildcard glsl/*.glsl) Makefile lists.mk | $(DEPS_ORDER)
	@mkdir -p $(@D)
	@echo "GLSL $< -> SPIR-V modules of variants 0 $(VARIANTS_$*)"
	@set -e; echo "/* Generated from $< by the Makefile. */" > $@.tmp; echo "#define DM_SPV_$*_MODULES \\" > $@.table; \
	echo "#define DM_SPV_$*_TRACE_MODULES \\" > $@.trace; \
	spv_module() { \
	    $(GLSLANG) -V --target-env vulkan1.1 -S comp -Iglsl $$2 -o $(B)/spv/$$1.glslang $< > $(B)/spv/$$1.log || { cat $(B)/spv/$$1.log; exit 1; }; \
	    $(SPIRV_OPT) $(SPIRV_OPT_FLAGS) --target-env=vulkan1.1 $(B)/spv/$$1.glslang -o $(B)/spv/$$1.spv; \
	    $(SPIRV_VAL) --target-env vulkan1.1 $(B)/spv/$$1.spv; \
	    rm -f $(B)/spv/$$1.glslang $(B)/spv/$$1.log; \
	    { echo "static const uint32_t dm_spv_$$1[] = {"; \
	      od -An -v -tx4 $(B)/spv/$$1.spv | sed 's/ *\([0-9a-f]\{8\}\)/0x\1,/g'; echo "};"; } >> $@.tmp; \
	}; \
	bucket=0; for r in $(ROW_DIMS); do for v in 0 $(VARIANTS_$*); do \
	    case " $(FIRST_BUCKET_VARIANTS) " in *" $$v "*) [ $$bucket -eq 0 ] || continue ;; esac; \
	    texels="0 1"; case " $(STORAGE_VARIANTS) " in *" $$v "*) texels=0 ;; esac; \
	    for t in $$texels; do \
	        m=$*_r$${r}_v$${v}_t$${t}; \
	        spv_module $$m "-DDM_ROW_DIMS=$$r -DDM_VARIANT=$$v -DDM_TEXEL=$$t"; \
	        echo "    [$$bucket][$$v][$$t] = {dm_spv_$$m, sizeof dm_spv_$$m}, \\" >> $@.table; \
	    done; \
	    m=$*_r$${r}_v$${v}_trace; \
	    spv_module $$m "-DDM_ROW_DIMS=$$r -DDM_VARIANT=$$v -DDM_TEXEL=0 -DDM_TRACE=1"; \
	    echo "    [$$bucket][$$v] = {dm_spv_$$m, sizeof dm_spv_$$m}, \\" >> $@.trace; \
	done; bucket=$$((bucket + 1)); done; echo >> $@.table; echo >> $@.trace; \
	cat $@.table $@.trace >> $@.tmp; rm -f $@.table $@.trace; mv $@.tmp $@

# The compute copy (glsl/copy.comp) and its trace build, one module each: dm_spv_copy[]
# and dm_spv_copy_trace[].
$(B)/spv/copy.h: glsl/copy.comp $(wildcard glsl/*.glsl) | $(DEPS_ORDER)
	@mkdir -p $(@D)
	@set -e; echo "/* Generated from $< by the Makefile. */" > $@.tmp; \
	for m in copy copy_trace; do \
	    d=; [ $$m = copy ] || d=-DDM_TRACE=1; \
	    $(GLSLANG) -V --target-env vulkan1.1 -S comp -Iglsl $$d -o $(B)/spv/$$m.spv $< > $(B)/spv/$$m.log || { cat $(B)/spv/$$m.log; exit 1; }; \
	    rm -f $(B)/spv/$$m.log; \
	    $(SPIRV_VAL) --target-env vulkan1.1 $(B)/spv/$$m.spv; \
	    { echo "static const uint32_t dm_spv_$$m[] = {"; \
	      od -An -v -tx4 $(B)/spv/$$m.spv | sed 's/ *\([0-9a-f]\{8\}\)/0x\1,/g'; echo "};"; } >> $@.tmp; \
	done; mv $@.tmp $@

# ---- the library: one prelinked object whose only global symbols are dmlops_* ---------
$(B)/obj/%.o: %.c | $(DEPS_ORDER) $(SYSINC_DEP)
	@mkdir -p $(@D)
	$(CC) $(DM_CFLAGS) $(CFLAGS) -MMD -MP -c $< -o $@

$(B)/obj/src/vk/kernels.o: $(SPV_H)

# $(wildcard): on a fresh machine volk.c appears only when the dependency check installs it.
$(B)/obj/volk.o: $(wildcard $(VOLK_SRC)) | $(DEPS_ORDER) $(SYSINC_DEP)
	@mkdir -p $(@D)
	$(CC) -std=c11 $(SRC_DEFS) -fvisibility=hidden $(PIC_FLAGS) $(VOLK_INC) $(VULKAN_CFLAGS) $(CFLAGS) -w \
	    -c $(VOLK_SRC) -o $@

$(B)/sysinc/volk.h:
	@mkdir -p $(@D)
	ln -sfn $(VULKAN_INCDIR)/vulkan $(@D)/vulkan
	if [ -d $(VULKAN_INCDIR)/vk_video ]; then ln -sfn $(VULKAN_INCDIR)/vk_video $(@D)/vk_video; fi
	ln -sf $(dir $(VOLK_SRC))volk.h $@

# The static archive is one object prelinked from the library's and volk's, whose
# internals are then made local, so that an application's own volk, Vulkan loader or
# names never meet ours. ELF: hidden visibility, localized by objcopy. PE/COFF has no
# visibility: every defined global but dmlops_* is localized by name, and .drectve (the
# DLL's -export: directives) is dropped, or an executable linking the archive would
# export our API. Mach-O: ld -r already makes hidden symbols static.
ifeq ($(TARGET_OS),windows)
HIDE_INTERNALS = $(NM) -g --defined-only $(B)/dmlops-prelink.o | awk 'NF == 3 && $$3 !~ /^dmlops_/ {print $$3}' \
	    > $(B)/dmlops.private && \
	$(OBJCOPY) --localize-symbols=$(B)/dmlops.private --remove-section=.drectve $(B)/dmlops-prelink.o $(B)/dmlops.o
else ifeq ($(TARGET_OS),darwin)
HIDE_INTERNALS = cp $(B)/dmlops-prelink.o $(B)/dmlops.o
else
HIDE_INTERNALS = $(OBJCOPY) --localize-hidden $(B)/dmlops-prelink.o $(B)/dmlops.o
endif
$(LIB): $(LIB_OBJ) $(B)/obj/volk.o
	$(CC) -r -nostdlib -o $(B)/dmlops-prelink.o $^
	$(HIDE_INTERNALS)
	rm -f $@ && $(AR) rcs $@ $(B)/dmlops.o

# The shared library: the same objects, exporting only dmlops_*.
ifeq ($(TARGET_OS),windows)
# Only what DMLOPS_API marks dllexport is exported; the import library goes beside it.
# libgcc is linked statically (MinGW's default for C, said anyway).
$(SO): $(LIB_OBJ) $(B)/obj/volk.o
	$(CC) -shared -static-libgcc -Wl,--out-implib,$(IMPLIB) $(CFLAGS) $(LDFLAGS) -o $@ $(LIB_OBJ) $(B)/obj/volk.o $(LIBS)
else ifeq ($(TARGET_OS),darwin)
# Hidden visibility leaves only dmlops_* exported; the install name goes through @rpath.
$(SO): $(LIB_OBJ) $(B)/obj/volk.o
	$(CC) -dynamiclib -install_name @rpath/$(SONAME) -compatibility_version $(VERSION_MAJOR).0.0 \
	    -current_version $(VERSION) $(CFLAGS) $(LDFLAGS) -o $@ $(LIB_OBJ) $(B)/obj/volk.o $(LIBS)
	ln -sf $(notdir $@) $(B)/$(SONAME)
	ln -sf $(SONAME) $(B)/libdmlops.dylib
else
# Hidden visibility and the version script leave only dmlops_* in the dynamic symbol
# table. -z defs: every dependency is on the link line. (Not under a sanitizer: clang
# leaves its runtime out of shared libraries.)
SO_DEFS := $(if $(findstring -fsanitize,$(CFLAGS) $(LDFLAGS)),,-Wl,-z,defs)
$(SO): $(LIB_OBJ) $(B)/obj/volk.o src/dmlops.map
	$(CC) -shared -Wl,-soname,$(SONAME) -Wl,--version-script=src/dmlops.map $(SO_DEFS) \
	    $(CFLAGS) $(LDFLAGS) -o $@ $(LIB_OBJ) $(B)/obj/volk.o $(LIBS)
	$(if $(SO_UNVERSIONED),,ln -sf $(notdir $@) $(B)/$(SONAME))
	$(if $(SO_UNVERSIONED),,ln -sf $(SONAME) $(B)/libdmlops.so)
endif

-include $(LIB_OBJ:.o=.d)

# ---- the dmlops command-line tool (public API only) ---------------------------------
# Its folders (CLI_DIRS) compile with the tool's flags, not the library's.
$(CLI_OBJ): $(B)/obj/%.o: %.c | $(DEPS_ORDER)
	@mkdir -p $(@D)
	$(CC) $(CLI_CFLAGS) $(CFLAGS) -MMD -MP -c $< -o $@

$(CLI): $(CLI_OBJ) $(LIB)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(CLI_OBJ) $(LIB) $(CJSON_LIBS) $(LIBS)

-include $(CLI_OBJ:.o=.d)

# ---- tests ------------------------------------------------------------------------------
$(B)/obj/test/%.o: test/%.c | $(DEPS_ORDER) $(SYSINC_DEP)
	@mkdir -p $(@D)
	$(CC) $(TEST_CFLAGS) $(CFLAGS) -MMD -MP -c $< -o $@

$(B)/test/%$(EXE): $(B)/obj/test/%.o $(TEST_HARNESS) $(LIB)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(TEST_HARNESS) $(LIB) $(TEST_LIBS)

# Keep the test objects: without this make deletes them as intermediates and recompiles
# them on every run.
.SECONDARY: $(TEST_BIN:$(B)/test/%$(EXE)=$(B)/obj/test/%.o)

-include $(wildcard $(B)/obj/test/*.d)

$(B)/test/interop_vulkan$(EXE): test/interop.c $(TEST_HARNESS) $(LIB) $(if $(filter windows,$(TARGET_OS)),$(B)/vulkan-1/libvulkan-1.a) | $(DEPS_ORDER)
	@mkdir -p $(@D)
	$(CC) $(TEST_CFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< $(TEST_HARNESS) $(LIB) $(VULKAN_LIBS) $(TEST_LIBS)

# MinGW ships no import library for the Vulkan loader: one made from the prototypes of
# the Vulkan headers (a name the DLL lacks is harmless unless a program imports it).
$(B)/vulkan-1/libvulkan-1.a: | $(SYSINC_DEP)
	@mkdir -p $(@D)
	{ echo "LIBRARY vulkan-1.dll"; echo "EXPORTS"; sed -n 's/.*VKAPI_CALL \(vk[A-Za-z0-9_]*\)(.*/\1/p' \
	    $(VULKAN_INCDIR)/vulkan/vulkan_core.h | sort -u; } > $(@D)/vulkan-1.def
	$(CROSS)dlltool -d $(@D)/vulkan-1.def -l $@

# White-box: links the library's objects themselves, whose internal symbols the
# prelinked libdmlops.a hides (see the files): the planner's limits, the CPU engine's
# instruction-set loops, the tuner's file and hooks.
WHITEBOX_TESTS := $(B)/test/test_vk_limits$(EXE) $(B)/test/test_cpu_simd$(EXE) $(B)/test/test_tuning$(EXE)
$(WHITEBOX_TESTS): $(B)/test/%$(EXE): $(B)/obj/test/%.o $(TEST_HARNESS) $(LIB_OBJ) $(B)/obj/volk.o
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(TEST_HARNESS) $(LIB_OBJ) $(B)/obj/volk.o $(TEST_LIBS)

# The machine-code report's objects: test flags (the public headers and Vulkan's), the
# library's internal headers by relative path.
$(B)/obj/tools/%.o: tools/%.c | $(DEPS_ORDER) $(SYSINC_DEP)
	@mkdir -p $(@D)
	$(CC) $(TEST_CFLAGS) $(CFLAGS) -MMD -MP -c $< -o $@

-include $(ISA_OBJ:.o=.d)

# White-box, as test_vk_limits: the library's objects, whose internals it calls.
$(ISA): $(ISA_OBJ) $(LIB_OBJ) $(B)/obj/volk.o
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(ISA_OBJ) $(LIB_OBJ) $(B)/obj/volk.o $(TEST_LIBS)

$(B)/test/test_isa$(EXE): $(B)/obj/test/test_isa.o $(TEST_HARNESS) $(ISA_LIB_OBJ) $(LIB_OBJ) $(B)/obj/volk.o
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(TEST_HARNESS) $(ISA_LIB_OBJ) $(LIB_OBJ) $(B)/obj/volk.o $(TEST_LIBS)

# On RADV with no GPU (RADV_FORCE_FAMILY): on a machine with a GPU, run $(ISA) itself. Then
# every driver's table (tools/mesa-shim/drivers_test.sh --tables: RADV for an RDNA2 and a
# GCN family, Mesa's V3D, Adreno and Intel drivers under drm-shim, built once into a cache,
# and lavapipe); ISA_DRIVERS=0 leaves them out.
isa: $(ISA)
	@test -f "$(RADV_ICD)" || { echo "make isa: no RADV ICD at $(RADV_ICD) (Debian: mesa-vulkan-drivers; make deps)"; exit 1; }
	RADV_FORCE_FAMILY=navi21 VK_DRIVER_FILES=$(RADV_ICD) VK_ICD_FILENAMES=$(RADV_ICD) $(ISA) $(ISA_ARGS)
	@if [ "$(ISA_DRIVERS)" != 0 ]; then sh tools/mesa-shim/drivers_test.sh --tables $(ISA); fi

# Every pipeline the library can make, compiled by each of those drivers: fails on a crash,
# a refusal, shared memory a module does not use, and a spill or an Intel build below
# SIMD16 past tools/mesa-shim/drivers_baseline.tsv, issue 46's ratchet (CI's "drivers" stage; the Mesa build, 3-14 minutes, once per machine and Mesa package).
# DMLOPS_DRIVERS_EVERY=N: every N-th pipeline only (CI's sample).
test-drivers: $(ISA)
	@DMLOPS_DRIVERS_EVERY="$(DMLOPS_DRIVERS_EVERY)" sh tools/mesa-shim/drivers_test.sh $(ISA)

# Counts the library's own allocations (see the file).
$(B)/test/no_alloc$(EXE): test/no_alloc.c $(TEST_HARNESS) $(LIB) | $(DEPS_ORDER) $(SYSINC_DEP)
	@mkdir -p $(@D)
	$(CC) $(TEST_CFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< \
	    $(TEST_HARNESS) -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc $(LIB) $(TEST_LIBS)

# Makes the library's pthread_create fail on demand (see the file).
$(B)/test/thread_fail: test/thread_fail.c $(TEST_HARNESS) $(LIB) | $(DEPS_ORDER)
	@mkdir -p $(@D)
	$(CC) $(TEST_CFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< \
	    $(TEST_HARNESS) -Wl,--wrap=pthread_create $(LIB) $(LIBS)

$(B)/test/interop_volk$(EXE): test/interop.c $(wildcard $(VOLK_SRC)) $(TEST_HARNESS) $(LIB) | $(DEPS_ORDER) $(SYSINC_DEP)
	@mkdir -p $(@D)
	$(CC) $(TEST_CFLAGS) -DINTEROP_VOLK $(CFLAGS) $(LDFLAGS) \
	    -o $@ $< $(TEST_HARNESS) -x c $(VOLK_SRC) -w -x none $(LIB) $(TEST_LIBS)

test: deps-check $(TEST_BIN) $(INTEROP_BIN) $(CLI) $(SO)
	@B=$(B) CC="$(CC)" CXX="$(CXX)" LDFLAGS="$(LDFLAGS)" PKG_CONFIG="$(PKG_CONFIG)" \
	    sh test/run.sh $(TEST_BIN) $(INTEROP_BIN) $(TEST_SH)

# test_cmake.sh and test_build.sh are left out: they build the tree under their own flags
# (they unset CFLAGS), so under the sanitizers they repeat make test's runs (2-4 minutes).
# The random suites run 15% of their cases (DMT_CASES_PERCENT; make test ran them all
# natively): every path still runs, each case took 4x as long (304 s of a 1238 s stage).
test-asan:
	ASAN_OPTIONS=detect_leaks=1 LSAN_OPTIONS=suppressions=$(CURDIR)/test/lsan.supp:print_suppressions=0 \
	DMT_CASES_PERCENT=$${DMT_CASES_PERCENT:-15} \
	$(MAKE) B=build-asan CFLAGS="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined" \
	    LDFLAGS="-fsanitize=address,undefined" TEST_SH="$(filter-out test/test_cmake.sh test/test_build.sh,$(TEST_SH))" test

# The thread tests (asynchronous submission from eight threads among them), the
# thread-creation failures, the random suites (whose CPU cases run on a 4-thread pool), the
# asynchronous submissions and the destroy orders with work in flight under
# ThreadSanitizer, on both backends, 15% of the random cases
# (the forced Vulkan paths took 307 s of 490 at all of them). test/tsan.supp explains the
# one suppression (lavapipe's own threads).
TSAN_BIN := build-tsan/test/test_threads build-tsan/test/thread_fail build-tsan/test/test_random build-tsan/test/test_async \
            build-tsan/test/test_lifetimes
test-tsan: deps-check
	@$(MAKE) --no-print-directory B=build-tsan CFLAGS="-O1 -g -fsanitize=thread" LDFLAGS="-fsanitize=thread" $(TSAN_BIN)
	@TSAN_OPTIONS="suppressions=$(CURDIR)/test/tsan.supp halt_on_error=1 second_deadlock_stack=1" \
	    DMT_CASES_PERCENT=$${DMT_CASES_PERCENT:-15} sh test/run.sh $(TSAN_BIN)

test-big: deps-check $(B)/test/big_tensors
	@sh test/run.sh $(B)/test/big_tensors

$(B)/test/big_tensors: test/big_tensors.c $(TEST_HARNESS) $(LIB) | $(DEPS_ORDER)
	@mkdir -p $(@D)
	$(CC) $(TEST_CFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< $(TEST_HARNESS) $(LIB) $(LIBS)

# The CPU-backend suites on the target: natively, or for a cross build under EMULATOR
# (qemu-aarch64, qemu-arm, wine), with the symbol checks of the archive. Tests that need
# a Vulkan loader skip those checks where there is none.
CPU_TEST_BIN := $(TEST_BIN) $(INTEROP_BIN)
test-cpu: $(CPU_TEST_BIN) $(LIB) $(SO)
	@DMLOPS_TEST_BACKENDS=cpu RUNNER="$(EMULATOR)" sh test/run.sh $(CPU_TEST_BIN)

test-valgrind: deps-check $(TEST_BIN)
	@DMLOPS_TEST_BACKENDS=cpu VALGRIND=1 sh test/run.sh $(filter-out %/test_vulkan,$(TEST_BIN))

# ---- fuzzing (clang's libFuzzer): FUZZ_SECONDS per target, answers checked -------------
# fuzz_ops: random descriptors on the CPU backend, each accepted one checked byte for byte
# against test/reference.h; fuzz_vulkan: the same on the Vulkan device (lavapipe in CI),
# with guard bytes around every binding; fuzz_tool: the tool's readers; fuzz_tuning: the
# tuning file's reader (white-box: the library's objects). Seeds: test/fuzz/<target>/.
FUZZ_SECONDS ?= 60
FUZZ_CC      := clang -std=c11 $(SRC_DEFS) -Iinclude -Itest -g -O1 $(WARN) -Wno-missing-prototypes \
                -fsanitize=address,undefined,fuzzer
FUZZ_TARGETS := ops vulkan tool tuning
# fuzz_tool: the tool's .npy parser, JSON reader and model loader (both formats).
FUZZ_CLI     := npy json model model_onnx model_parse dxdispatch scalar common
fuzz: deps-check
	$(MAKE) --no-print-directory CC=clang B=build-fuzz CFLAGS="-O1 -g -fsanitize=address,undefined,fuzzer-no-link" lib
	$(FUZZ_CC) -o build-fuzz/fuzz_ops test/fuzz_ops.c build-fuzz/libdmlops.a $(LIBS)
	$(FUZZ_CC) -DFUZZ_VULKAN -o build-fuzz/fuzz_vulkan test/fuzz_ops.c build-fuzz/libdmlops.a $(LIBS)
	@mkdir -p build-fuzz/cli
	for f in $(FUZZ_CLI); do clang $(CLI_CFLAGS) -g -O1 -fsanitize=address,undefined,fuzzer-no-link \
	    -c src/cli/$$f.c -o build-fuzz/cli/$$f.o || exit 1; done
	$(FUZZ_CC) -Isrc/cli -o build-fuzz/fuzz_tool test/fuzz_tool.c $(FUZZ_CLI:%=build-fuzz/cli/%.o) build-fuzz/libdmlops.a $(LIBS)
	$(FUZZ_CC) -o build-fuzz/fuzz_tuning test/fuzz_tuning.c $(LIB_SRC:%.c=build-fuzz/obj/%.o) build-fuzz/obj/volk.o $(LIBS)
	@FUZZ_SECONDS=$(FUZZ_SECONDS) sh test/fuzz/run.sh build-fuzz $(FUZZ_TARGETS)

# ---- demo -------------------------------------------------------------------------------
$(B)/examples/%$(EXE): examples/%.c $(LIB) | $(DEPS_ORDER) $(SYSINC_DEP)
	@mkdir -p $(@D)
	$(CC) $(TEST_CFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< $(LIB) $(TEST_LIBS)

demo: deps-check $(B)/examples/quickstart $(B)/examples/onnx_slice
	$(B)/examples/quickstart
	$(B)/examples/onnx_slice

# ---- benchmarks ------------------------------------------------------------------------
# `make bench` writes $(B)/bench/performance.md and $(B)/bench/bench/<device>.{csv,svg};
# `make bench-docs` refreshes the tracked docs/performance.md and docs/bench/ instead.
# numpy (Debian's python3-numpy) is timed on the same cases when a python3 has it, and
# PyTorch where a python3 imports torch (Debian's python3-torch): on a CUDA device beside a
# Vulkan run, on CPU tensors beside the CPU backend.
BENCH_ARGS ?=
NUMPY_PYTHON = $(firstword $(foreach p,python3 /usr/bin/python3,$(if $(shell $(p) -c 'import numpy' 2>/dev/null && echo y),$(p))))
TORCH_PYTHON = $(firstword $(foreach p,python3 /usr/bin/python3,$(if $(shell $(p) -c 'import torch' 2>/dev/null && echo y),$(p))))
BENCH_PEER = $(if $(NUMPY_PYTHON),--numpy-peer "$(NUMPY_PYTHON) bench/numpy_peer.py") \
             $(if $(TORCH_PYTHON),--torch-peer "$(TORCH_PYTHON) bench/torch_peer.py")
bench: $(CLI)
	@mkdir -p $(B)/bench
	DMLOPS_BENCH_TARGET='make bench$(if $(BENCH_ARGS), BENCH_ARGS="$(BENCH_ARGS)")' $(CLI) bench $(BENCH_PEER) --report $(B)/bench $(BENCH_ARGS)

bench-docs: $(CLI)
	DMLOPS_BENCH_TARGET='make bench-docs$(if $(BENCH_ARGS), BENCH_ARGS="$(BENCH_ARGS)")' $(CLI) bench $(BENCH_PEER) --report docs $(BENCH_ARGS)

# What a GPU machine lent by the device tool runs (bench/gpu_run.sh): it has no toolchain
# for this project, so the tool, the Vulkan suites and the tool's libcjson go from here,
# with the peers' scripts (the PyTorch peer runs on that machine's own python3 and torch).
GPU_BUNDLE_TESTS := test_gpu_tiles test_vulkan test_targeted test_random big_tensors
GPU_BUNDLE_PEERS := bench/torch_peer.py bench/numpy_peer.py
# The binaries each embed the library's kernels (about 5 MiB of SPIR-V), which the device
# tool's 64 MiB carry limit would not hold for seven of them beside .gl's packages: they
# travel stripped of their debug information as one gzip'd tar (about 14 MiB), which
# bench/gpu_run.sh unpacks into .gpu/ first.
gpu-bundle: $(CLI) $(GPU_BUNDLE_TESTS:%=$(B)/test/%) $(ISA)
	@rm -rf .gpu .gpu-files && mkdir -p .gpu .gpu-files
	cp $(CLI) $(GPU_BUNDLE_TESTS:%=$(B)/test/%) $(ISA) $(GPU_BUNDLE_PEERS) .gpu-files/
	cp -L $$(ldd $(CLI) | awk '/libcjson/ {print $$3}') .gpu-files/
	strip --strip-debug $(addprefix .gpu-files/,$(notdir $(CLI) $(ISA)) $(GPU_BUNDLE_TESTS))
	tar -czf .gpu/bundle.tar.gz -C .gpu-files . && rm -rf .gpu-files
	@ls -l .gpu/bundle.tar.gz
	@echo "carry .gpu and .gl, run: sh bench/gpu_run.sh [bench] [tune] [tests] (default all three; docs/performance.md)"

# ---- install ----------------------------------------------------------------------------
# The pkg-config and CMake files are generated for the install-time PREFIX and LIBDIR.
# The CMake package finds its prefix from its own location, so a staged or moved tree
# (DESTDIR, a tarball) still works; that needs LIBDIR and INCLUDEDIR inside PREFIX,
# else it records their absolute paths.
SUBST_VERSION = -e 's|@VERSION@|$(VERSION)|g' -e 's|@VERSION_MAJOR@|$(VERSION_MAJOR)|g' -e 's|@SONAME@|$(SONAME)|g'
# From the CMake package's directory: "../.." up to LIBDIR, then one ".." per level of LIBDIR
# below PREFIX; the include directory relative to PREFIX.
empty :=
space := $(empty) $(empty)
rel_under_prefix = $(if $(filter $(PREFIX)/%,$(1)),$(patsubst $(PREFIX)/%,%,$(1)))
LIBDIR_REL       = $(call rel_under_prefix,$(LIBDIR))
INCLUDEDIR_REL   = $(call rel_under_prefix,$(INCLUDEDIR))
CMAKE_PREFIX     = $(if $(and $(LIBDIR_REL),$(INCLUDEDIR_REL),$(filter $(LIBDIR)/cmake/dmlops,$(CMAKEDIR))),$${CMAKE_CURRENT_LIST_DIR}/../..$(subst $(space),,$(foreach d,$(subst /, ,$(LIBDIR_REL)),/..)),$(PREFIX))
# dmlops.pc names its directories through ${prefix} where it can (for pkg-config --define-prefix).
PC_LIBDIR        = $(if $(LIBDIR_REL),$${prefix}/$(LIBDIR_REL),$(LIBDIR))
PC_INCLUDEDIR    = $(if $(INCLUDEDIR_REL),$${prefix}/$(INCLUDEDIR_REL),$(INCLUDEDIR))
SUBST_PATHS      = -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@LIBDIR@|$(PC_LIBDIR)|g' -e 's|@INCLUDEDIR@|$(PC_INCLUDEDIR)|g' \
                   -e 's|@LIBS@|$(strip $(LIBS))|g'
CMAKE_LIBDIR     = $(if $(LIBDIR_REL),$${_dmlops_prefix}/$(LIBDIR_REL),$(LIBDIR))
CMAKE_INCLUDEDIR = $(if $(INCLUDEDIR_REL),$${_dmlops_prefix}/$(INCLUDEDIR_REL),$(INCLUDEDIR))

# Where the shared library goes, and its links: SONAME to the file, then the name a
# linker asks for to SONAME. Windows keeps the DLL beside executables (BINDIR) and its
# import library in LIBDIR, with no links; an unversioned library has none either.
SO_DIR     := $(if $(filter windows,$(TARGET_OS)),$(BINDIR),$(LIBDIR))
SO_DEVLINK := $(if $(filter windows,$(TARGET_OS))$(SO_UNVERSIONED),,$(if $(filter darwin,$(TARGET_OS)),libdmlops.dylib,libdmlops.so))
CLI_INSTALL := $(if $(HAVE_CJSON),$(CLI))
install: $(LIB) $(SO) $(CLI_INSTALL)
	install -d $(DESTDIR)$(INCLUDEDIR) $(DESTDIR)$(LIBDIR) $(DESTDIR)$(PKGCONFIGDIR) $(DESTDIR)$(CMAKEDIR) \
	    $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1
	install -m 644 $(HEADERS) $(DESTDIR)$(INCLUDEDIR)/
	install -m 644 $(LIB) $(IMPLIB) $(DESTDIR)$(LIBDIR)/
	install -m 755 $(SO) $(DESTDIR)$(SO_DIR)/
	$(if $(SO_DEVLINK),ln -sf $(notdir $(SO)) $(DESTDIR)$(LIBDIR)/$(SONAME))
	$(if $(SO_DEVLINK),ln -sf $(SONAME) $(DESTDIR)$(LIBDIR)/$(SO_DEVLINK))
	sed $(SUBST_PATHS) $(SUBST_VERSION) src/dmlops.pc.in > $(DESTDIR)$(PKGCONFIGDIR)/dmlops.pc
	sed $(SUBST_VERSION) -e 's|@CMAKE_PREFIX@|$(CMAKE_PREFIX)|g' -e 's|@CMAKE_LIBDIR@|$(CMAKE_LIBDIR)|g' \
	    -e 's|@CMAKE_INCLUDEDIR@|$(CMAKE_INCLUDEDIR)|g' src/dmlopsConfig.cmake.in > $(DESTDIR)$(CMAKEDIR)/dmlopsConfig.cmake
	sed $(SUBST_VERSION) -e "s|@SIZEOF_VOID_P@|$$(printf '__SIZEOF_POINTER__\n' | $(CC) $(CFLAGS) -E -P -x c -)|g" \
	    src/dmlopsConfigVersion.cmake.in > $(DESTDIR)$(CMAKEDIR)/dmlopsConfigVersion.cmake
	chmod 644 $(DESTDIR)$(PKGCONFIGDIR)/dmlops.pc $(DESTDIR)$(CMAKEDIR)/*.cmake
	$(if $(CLI_INSTALL),install -m 755 $(CLI) $(DESTDIR)$(BINDIR)/)
	install -m 644 $(MAN) $(DESTDIR)$(MANDIR)/man1/
	@if [ -z "$(DESTDIR)" ] && [ "$$(id -u)" = 0 ] && [ $(TARGET_OS) = linux ]; then $(LDCONFIG) || true; fi

uninstall:
	rm -f $(addprefix $(DESTDIR)$(INCLUDEDIR)/,$(notdir $(HEADERS))) \
	      $(DESTDIR)$(LIBDIR)/libdmlops.a $(DESTDIR)$(SO_DIR)/$(notdir $(SO)) $(if $(IMPLIB),$(DESTDIR)$(LIBDIR)/$(notdir $(IMPLIB))) \
	      $(if $(SO_DEVLINK),$(DESTDIR)$(LIBDIR)/$(SONAME) $(DESTDIR)$(LIBDIR)/$(SO_DEVLINK)) \
	      $(DESTDIR)$(PKGCONFIGDIR)/dmlops.pc \
	      $(DESTDIR)$(CMAKEDIR)/dmlopsConfig.cmake $(DESTDIR)$(CMAKEDIR)/dmlopsConfigVersion.cmake \
	      $(DESTDIR)$(BINDIR)/dmlops$(EXE) $(DESTDIR)$(MANDIR)/man1/$(notdir $(MAN))
	@rmdir $(DESTDIR)$(CMAKEDIR) 2>/dev/null || true
	@if [ -z "$(DESTDIR)" ] && [ "$$(id -u)" = 0 ] && [ $(TARGET_OS) = linux ]; then $(LDCONFIG) || true; fi

# cpu_pool.c queues a job that lives on dm_pool_run's stack: dm_take unlinks it when its
# last chunk is handed out, and dm_pool_run returns only after that (cppcheck cannot see it).
lint: $(SPV_H)
	clang-tidy --quiet $(LIB_SRC) -- $(DM_CFLAGS)
	clang-tidy --quiet $(CLI_SRC) -- $(CLI_CFLAGS)
	clang-tidy --quiet $(ISA_SRC) -- $(TEST_CFLAGS)
	cppcheck --quiet --error-exitcode=1 --enable=warning,portability --inline-suppr \
	    --suppress=missingIncludeSystem --suppress=autoVariables:src/cpu/cpu_pool.c \
	    -Iinclude -Isrc -Isrc/cli -D__GNUC__ src tools

clean:
	rm -rf build build-asan build-tsan build-fuzz

# ---- the device-profile layer (test/profile_layer/README.md) ----------------------------
# A Vulkan layer that makes lavapipe report the spec's minimum limits, an embedded GPU's, or
# a variant, under the Khronos validation layer. `make profile-layer` builds it and its
# manifests; test/profile_layer/run.sh PROFILE COMMAND runs anything under it; `make
# test-profiles` runs the Vulkan suites under every profile (PROFILE_SUITE=quick: fewer).
PROFILE_LAYER_DIR := $(B)/profile_layer
PROFILE_LAYER_SO  := $(PROFILE_LAYER_DIR)/libVkLayer_dmlops_profile.so
PROFILE_LAYER_SRC := $(wildcard test/profile_layer/*.c)
PROFILE_MANIFESTS := $(patsubst test/profile_layer/manifests/%,$(PROFILE_LAYER_DIR)/vulkan/%,$(wildcard test/profile_layer/manifests/*/*.json))
PROFILE_SUITE     ?= full
PROFILE_TESTS     := test_small_devices test_vulkan test_targeted test_random test_validation big_tensors
.PHONY: profile-layer test-profiles
profile-layer: $(PROFILE_LAYER_SO) $(PROFILE_MANIFESTS)

# -Bsymbolic: the layer's own vkGetInstanceProcAddr, never the loader's (profile_layer.c).
$(PROFILE_LAYER_SO): $(PROFILE_LAYER_SRC) test/profile_layer/profile.h | $(DEPS_ORDER)
	@mkdir -p $(@D)
	$(CC) -std=c11 $(SRC_DEFS) $(VULKAN_CFLAGS) $(WARN) $(CFLAGS) -fPIC -fvisibility=hidden -shared \
	    -Wl,-Bsymbolic -Wl,-z,defs $(LDFLAGS) -o $@ $(PROFILE_LAYER_SRC) -lpthread

$(PROFILE_LAYER_DIR)/vulkan/%.json: test/profile_layer/manifests/%.json
	@mkdir -p $(@D)
	cp $< $@

test-profiles: deps-check profile-layer $(PROFILE_TESTS:%=$(B)/test/%) $(B)/examples/quickstart $(B)/examples/vulkan_interop $(CLI)
	@B=$(B) sh test/profile_layer/suite.sh $(PROFILE_SUITE)

# The interop example opens its own Vulkan device through the loader.
$(B)/examples/vulkan_interop: examples/vulkan_interop.c $(LIB) | $(DEPS_ORDER)
	@mkdir -p $(@D)
	$(CC) $(TEST_CFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< $(LIB) $(VULKAN_LIBS) $(LIBS)
