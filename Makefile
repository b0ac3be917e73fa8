# libdmlops - see README.md. `make help` lists the targets.
CC      ?= cc
AR      ?= ar
OBJCOPY ?= objcopy
CFLAGS  ?= -O2 -g
LDFLAGS ?=
PREFIX  ?= /usr/local
DESTDIR ?=
B       ?= build
GLSLANG ?= glslangValidator
SPIRV_VAL ?= spirv-val

WARN      := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wvla
DM_CFLAGS := -std=c11 -D_GNU_SOURCE -fvisibility=hidden -fPIC -Iinclude -Isrc -I$(B)/spv $(WARN)
LIBS      := -lm -ldl -lpthread

LIB_SRC  := $(wildcard src/*.c src/cpu/*.c src/vk/*.c)
CLI_SRC  := $(wildcard src/cli/*.c)
CLI_OBJ  := $(CLI_SRC:%.c=$(B)/obj/%.o)
CLI      := $(B)/bin/dmlops
LIB_OBJ  := $(LIB_SRC:%.c=$(B)/obj/%.o)
GLSL     := $(wildcard glsl/*.comp)
SPV_H    := $(GLSL:glsl/%.comp=$(B)/spv/%.h)
LIB      := $(B)/libdmlops.a

TEST_SRC  := $(wildcard test/test_*.c)
TEST_SH   := $(wildcard test/test_*.sh)
# The interop test twice: against -lvulkan, and with the application's own volk.
INTEROP_BIN := $(B)/test/interop_vulkan $(B)/test/interop_volk $(B)/test/no_alloc $(B)/test/thread_fail
TEST_BIN  := $(TEST_SRC:test/%.c=$(B)/test/%)
TEST_HARNESS := $(B)/obj/test/harness.o


.PHONY: all lib cli deps deps-check test test-asan test-tsan test-big test-valgrind fuzz demo bench bench-docs install uninstall clean lint help
all: lib cli
lib: $(LIB)
cli: $(CLI)

help:
	@echo "make            build $(LIB)"
	@echo "make demo       run examples/quickstart.c on the default device"
	@echo "make test       build and run the test suite (ends with 'N passed, N failed')"
	@echo "make test-asan  the suite under AddressSanitizer + UBSan"
	@echo "make test-tsan  the thread tests and random suites under ThreadSanitizer"
	@echo "make test-big   tensors above maxStorageBufferRange (300 MiB, 2^25 elements)"
	@echo "make test-valgrind  the CPU tests under valgrind"
	@echo "make bench      the benchmark suite (and numpy, when installed); writes $(B)/bench/"
	@echo "make bench-docs the same, refreshing docs/performance.md and docs/bench/ (BENCH_ARGS=--backend vulkan ...)"
	@echo "make install PREFIX=... DESTDIR=...   headers, library, dmlops.pc, dmlops tool"
	@echo "make deps       install the Debian packages (as root) or print the apt-get line"
	@echo "make lint       clang-tidy and cppcheck"
	@echo "make fuzz       libFuzzer targets, answers checked against a reference (FUZZ_SECONDS=60 each)"

deps:
	@.ci/deps.sh

# Runs the installer only when something is missing, so a warm machine pays nothing.
deps-check:
	@.ci/deps.sh --check >/dev/null 2>&1 || .ci/deps.sh

# ---- kernels: GLSL -> SPIR-V (validated) -> C arrays embedded in the library ---------
$(B)/spv/%.h: glsl/%.comp $(wildcard glsl/*.glsl) | deps-check
	@mkdir -p $(@D)
	$(GLSLANG) -V --target-env vulkan1.1 -S comp -Iglsl -o $(B)/spv/$*.spv $< > $(B)/spv/$*.log || { cat $(B)/spv/$*.log; false; }
	$(SPIRV_VAL) --target-env vulkan1.1 $(B)/spv/$*.spv
	$(GLSLANG) -V --target-env vulkan1.1 -S comp -Iglsl --vn dm_spv_$* -o $@ $< >/dev/null

# ---- the library: one prelinked object whose only global symbols are dmlops_* ---------
$(B)/obj/%.o: %.c | deps-check
	@mkdir -p $(@D)
	$(CC) $(DM_CFLAGS) $(CFLAGS) -MMD -MP -c $< -o $@

$(B)/obj/src/vk/kernels.o: $(SPV_H)

$(B)/obj/volk.o: /usr/include/volk.c | deps-check
	@mkdir -p $(@D)
	$(CC) -std=c11 -D_GNU_SOURCE -fvisibility=hidden -fPIC $(CFLAGS) -w -c $< -o $@

$(LIB): $(LIB_OBJ) $(B)/obj/volk.o
	$(CC) -r -nostdlib -o $(B)/dmlops-prelink.o $^
	$(OBJCOPY) --localize-hidden $(B)/dmlops-prelink.o $(B)/dmlops.o
	rm -f $@ && $(AR) rcs $@ $(B)/dmlops.o

-include $(LIB_OBJ:.o=.d)

# ---- the dmlops command-line tool (public API only) ---------------------------------
$(B)/obj/src/cli/%.o: src/cli/%.c | deps-check
	@mkdir -p $(@D)
	$(CC) -std=c11 -D_GNU_SOURCE -Iinclude -Isrc/cli $(WARN) $(CFLAGS) -MMD -MP -c $< -o $@

$(CLI): $(CLI_OBJ) $(LIB)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(CLI_OBJ) $(LIB) -lcjson $(LIBS)

-include $(CLI_OBJ:.o=.d)

# ---- tests ------------------------------------------------------------------------------
$(B)/obj/test/%.o: test/%.c | deps-check
	@mkdir -p $(@D)
	$(CC) -std=c11 -D_GNU_SOURCE -Iinclude -Itest $(WARN) -Wno-missing-prototypes $(CFLAGS) -MMD -MP -c $< -o $@

$(B)/test/%: $(B)/obj/test/%.o $(TEST_HARNESS) $(LIB)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(TEST_HARNESS) $(LIB) $(LIBS)

-include $(wildcard $(B)/obj/test/*.d)

$(B)/test/interop_vulkan: test/interop.c $(TEST_HARNESS) $(LIB)
	@mkdir -p $(@D)
	$(CC) -std=c11 -D_GNU_SOURCE -Iinclude -Itest $(WARN) -Wno-missing-prototypes $(CFLAGS) $(LDFLAGS) -o $@ $< \
	    $(TEST_HARNESS) $(LIB) -lvulkan $(LIBS)

# Counts the library's own allocations (see the file).
$(B)/test/no_alloc: test/no_alloc.c $(TEST_HARNESS) $(LIB)
	@mkdir -p $(@D)
	$(CC) -std=c11 -D_GNU_SOURCE -Iinclude -Itest $(WARN) -Wno-missing-prototypes $(CFLAGS) $(LDFLAGS) -o $@ $< \
	    $(TEST_HARNESS) -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc $(LIB) $(LIBS)

# Makes the library's pthread_create fail on demand (see the file).
$(B)/test/thread_fail: test/thread_fail.c $(TEST_HARNESS) $(LIB)
	@mkdir -p $(@D)
	$(CC) -std=c11 -D_GNU_SOURCE -Iinclude -Itest $(WARN) -Wno-missing-prototypes $(CFLAGS) $(LDFLAGS) -o $@ $< \
	    $(TEST_HARNESS) -Wl,--wrap=pthread_create $(LIB) $(LIBS)

$(B)/test/interop_volk: test/interop.c /usr/include/volk.c $(TEST_HARNESS) $(LIB)
	@mkdir -p $(@D)
	$(CC) -std=c11 -D_GNU_SOURCE -DINTEROP_VOLK -Iinclude -Itest $(WARN) -Wno-missing-prototypes $(CFLAGS) $(LDFLAGS) \
	    -o $@ $< $(TEST_HARNESS) -x c /usr/include/volk.c -w -x none $(LIB) $(LIBS)

test: deps-check $(TEST_BIN) $(INTEROP_BIN) $(CLI)
	@B=$(B) CC="$(CC)" LDFLAGS="$(LDFLAGS)" sh test/run.sh $(TEST_BIN) $(INTEROP_BIN) $(TEST_SH)

test-asan:
	ASAN_OPTIONS=detect_leaks=1 LSAN_OPTIONS=suppressions=$(CURDIR)/test/lsan.supp:print_suppressions=0 \
	$(MAKE) B=build-asan CFLAGS="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined" \
	    LDFLAGS="-fsanitize=address,undefined" test

# The thread tests, the thread-creation failures and the random suites (whose CPU cases run
# on a 4-thread pool) under ThreadSanitizer, on both backends. test/tsan.supp explains the
# one suppression (lavapipe's own threads).
TSAN_BIN := build-tsan/test/test_threads build-tsan/test/thread_fail build-tsan/test/test_random
test-tsan: deps-check
	@$(MAKE) --no-print-directory B=build-tsan CFLAGS="-O1 -g -fsanitize=thread" LDFLAGS="-fsanitize=thread" $(TSAN_BIN)
	@TSAN_OPTIONS="suppressions=$(CURDIR)/test/tsan.supp halt_on_error=1 second_deadlock_stack=1" sh test/run.sh $(TSAN_BIN)

test-big: deps-check $(B)/test/big_tensors
	@sh test/run.sh $(B)/test/big_tensors

$(B)/test/big_tensors: test/big_tensors.c $(TEST_HARNESS) $(LIB)
	@mkdir -p $(@D)
	$(CC) -std=c11 -D_GNU_SOURCE -Iinclude -Itest $(WARN) $(CFLAGS) $(LDFLAGS) -o $@ $< $(TEST_HARNESS) $(LIB) $(LIBS)

test-valgrind: deps-check $(TEST_BIN)
	@DMLOPS_TEST_BACKENDS=cpu VALGRIND=1 sh test/run.sh $(filter-out %/test_vulkan,$(TEST_BIN))

# ---- fuzzing (clang's libFuzzer): FUZZ_SECONDS per target, answers checked -------------
# fuzz_ops: random descriptors on the CPU backend, each accepted one checked byte for byte
# against test/reference.h; fuzz_vulkan: the same on the Vulkan device (lavapipe in CI),
# with guard bytes around every binding. Seeds: test/fuzz/<target>/.
FUZZ_SECONDS ?= 60
FUZZ_CC      := clang -std=c11 -D_GNU_SOURCE -Iinclude -Itest -g -O1 $(WARN) -Wno-missing-prototypes \
                -fsanitize=address,undefined,fuzzer
FUZZ_TARGETS := ops vulkan
fuzz: deps-check
	$(MAKE) --no-print-directory CC=clang B=build-fuzz CFLAGS="-O1 -g -fsanitize=address,undefined,fuzzer-no-link" lib
	$(FUZZ_CC) -o build-fuzz/fuzz_ops test/fuzz_ops.c build-fuzz/libdmlops.a $(LIBS)
	$(FUZZ_CC) -DFUZZ_VULKAN -o build-fuzz/fuzz_vulkan test/fuzz_ops.c build-fuzz/libdmlops.a $(LIBS)
	@FUZZ_SECONDS=$(FUZZ_SECONDS) sh test/fuzz/run.sh build-fuzz $(FUZZ_TARGETS)

# ---- demo -------------------------------------------------------------------------------
$(B)/examples/%: examples/%.c $(LIB)
	@mkdir -p $(@D)
	$(CC) -std=c11 -D_GNU_SOURCE -Iinclude -Iexamples $(WARN) $(CFLAGS) $(LDFLAGS) -o $@ $< $(LIB) $(LIBS)

demo: deps-check $(B)/examples/quickstart
	$(B)/examples/quickstart

# ---- benchmarks ------------------------------------------------------------------------
# `make bench` writes $(B)/bench/performance.md and $(B)/bench/bench/<device>.{csv,svg};
# `make bench-docs` refreshes the tracked docs/performance.md and docs/bench/ instead.
# numpy (Debian's python3-numpy) is timed on the same cases when a python3 has it.
BENCH_ARGS ?=
NUMPY_PYTHON = $(firstword $(foreach p,python3 /usr/bin/python3,$(if $(shell $(p) -c 'import numpy' 2>/dev/null && echo y),$(p))))
BENCH_PEER = $(if $(NUMPY_PYTHON),--numpy-peer "$(NUMPY_PYTHON) bench/numpy_peer.py")
bench: deps-check $(CLI)
	@mkdir -p $(B)/bench
	DMLOPS_BENCH_TARGET="make bench" $(CLI) bench $(BENCH_PEER) --report $(B)/bench $(BENCH_ARGS)

bench-docs: deps-check $(CLI)
	DMLOPS_BENCH_TARGET="make bench-docs" $(CLI) bench $(BENCH_PEER) --report docs $(BENCH_ARGS)

# ---- install ----------------------------------------------------------------------------
# The version is written once, in include/dmlops.h; dmlops.pc takes it from there.
VERSION = $(shell awk '$$2 ~ /^DMLOPS_VERSION_(MAJOR|MINOR|PATCH)$$/ { v = v s $$3; s = "." } END { print v }' include/dmlops.h)
install: $(LIB) $(CLI)
	install -d $(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PREFIX)/lib/pkgconfig
	install -m 644 include/dmlops.h include/dmlops_vulkan.h $(DESTDIR)$(PREFIX)/include/
	install -m 644 $(LIB) $(DESTDIR)$(PREFIX)/lib/
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 755 $(CLI) $(DESTDIR)$(PREFIX)/bin/
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(VERSION)|' src/dmlops.pc.in > $(DESTDIR)$(PREFIX)/lib/pkgconfig/dmlops.pc

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/include/dmlops.h $(DESTDIR)$(PREFIX)/include/dmlops_vulkan.h $(DESTDIR)$(PREFIX)/lib/libdmlops.a \
	      $(DESTDIR)$(PREFIX)/lib/pkgconfig/dmlops.pc $(DESTDIR)$(PREFIX)/bin/dmlops

lint: $(SPV_H)
	clang-tidy --quiet $(LIB_SRC) -- $(DM_CFLAGS)
	clang-tidy --quiet $(CLI_SRC) -- -std=c11 -D_GNU_SOURCE -Iinclude -Isrc/cli
	cppcheck --quiet --error-exitcode=1 --enable=warning,portability --inline-suppr \
	    --suppress=missingIncludeSystem -Iinclude -Isrc -Isrc/cli -D__GNUC__ src

clean:
	rm -rf build build-asan build-tsan build-fuzz
