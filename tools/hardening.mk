# tools/hardening.mk - sanitizers, fuzzing and static analysis (issue 7).
#
#   make sanitize   clang ASan+UBSan build in build-san/, then `make check`
#                   in it (unit, golden, fuzz regressions, pytest)
#   make fuzz       libFuzzer harnesses in build-fuzz/, FUZZ_SECONDS each,
#                   seeded from the shipped policies, their blobs and the
#                   golden tests
#   make lint       cppcheck and clang-tidy over the project's C sources
#
# Every build also links each harness of tests/fuzz/ with a plain main()
# (tests/fuzz/driver.c) into $(BUILD)/fuzz/; `make check` replays
# tests/fuzz/regressions/<harness>/ through it.  The normal build's
# hardening flags live in the top-level Makefile; tests/test_hardening.py
# checks them in the binaries.

# Seconds per harness for `make fuzz` (CI passes a smaller number).
FUZZ_SECONDS ?= 60
# The sanitizer and fuzzer builds need clang (libFuzzer is clang's).
SAN_CC ?= clang
# -fno-sanitize-recover: a UBSan report fails the run, it is not a log line.
SAN_CFLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer \
	-fno-sanitize-recover=all
# Objects for the fuzzer build: coverage hooks, no libFuzzer main yet.
FUZZ_CFLAGS := -fsanitize=fuzzer-no-link,address,undefined \
	-fno-omit-frame-pointer -fno-sanitize-recover=all
# Runtime options: leaks are errors everywhere (the compiler must be
# LeakSanitizer-clean); abort so pytest sees a signal, not a quiet exit.
# Not strict_string_checks: it makes strndup/strtol read to a NUL that a
# length-bounded call never needs (json_read.c's numbers), a false report.
SAN_ENV := ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:detect_stack_use_after_return=1 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

# _FORTIFY_SOURCE must be off under ASan: glibc's __*_chk wrappers bypass
# ASan's interceptors, so overflows in them would go unseen.  Only for
# sanitizer builds (SAN_FLAGS set); the normal build keeps it.
# ASan cannot link statically, so the static launcher (only the
# benchmarks use it) is not part of sanitizer builds.
ifneq ($(findstring address,$(SAN_FLAGS)),)
HARDEN_CFLAGS := $(filter-out -D_FORTIFY_SOURCE=%,$(HARDEN_CFLAGS)) \
	-U_FORTIFY_SOURCE
PROGRAMS := $(filter-out %/cordon-static,$(PROGRAMS))
endif

# ---------------------------------------------------------------------
# Fuzz harnesses.  FUZZ_ENGINE=libfuzzer links them with libFuzzer's main
# (only in build-fuzz/, with FUZZ_CFLAGS); otherwise with driver.c.

FUZZ_NAMES := blob bpf proxyreq httpreq auditrec warmreq jsonesc status
# The compiler harness needs the front end (compiler/build.mk).
ifneq ($(COMPILER_LIB_OBJS),)
FUZZ_NAMES += policy learn oci
endif
FUZZ_OBJ := $(BUILD)/tests/fuzz
# explain.c (back end) is optional until it lands.
FUZZ_EXPLAIN := $(filter %/compiler/explain/explain.o,$(COMPILER_LIB_OBJS))
ifneq ($(FUZZ_EXPLAIN),)
EXTRA_CFLAGS_tests/fuzz/fuzz_blob.c := -DFUZZ_HAVE_EXPLAIN
FUZZ_DEPS_blob := $(COMMON_OBJS) $(COMPILER_LIB_OBJS)
FUZZ_LIBS_blob := $(COMPILER_LIBS)
else
FUZZ_DEPS_blob := $(COMMON_OBJS)
endif

ifeq ($(FUZZ_ENGINE),libfuzzer)
FUZZ_MAIN :=
FUZZ_LINK_FLAGS := -fsanitize=fuzzer
else
FUZZ_MAIN := $(FUZZ_OBJ)/driver.o
FUZZ_LINK_FLAGS :=
endif

FUZZ_BINS = $(FUZZ_NAMES:%=$(BUILD)/fuzz/fuzz_%)

$(BUILD)/fuzz/fuzz_blob: $(FUZZ_OBJ)/fuzz_blob.o $(FUZZ_OBJ)/fail.o \
		$(FUZZ_MAIN) $(FUZZ_DEPS_blob)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) $(FUZZ_LINK_FLAGS) -o $@ $^ $(FUZZ_LIBS_blob)

$(BUILD)/fuzz/fuzz_bpf: $(FUZZ_OBJ)/fuzz_bpf.o $(FUZZ_OBJ)/fail.o \
		$(FUZZ_MAIN) $(COMMON_OBJS)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) $(FUZZ_LINK_FLAGS) -o $@ $^

$(BUILD)/fuzz/fuzz_proxyreq: $(FUZZ_OBJ)/fuzz_proxyreq.o $(FUZZ_OBJ)/fail.o \
		$(FUZZ_MAIN) $(BUILD)/launcher/egress/proxyreq.o $(BUILD)/launcher/egress/dns.o \
		$(BUILD)/launcher/egress/sni.o $(BUILD)/common/host.o
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) $(FUZZ_LINK_FLAGS) -o $@ $^

$(BUILD)/fuzz/fuzz_httpreq: $(FUZZ_OBJ)/fuzz_httpreq.o $(FUZZ_OBJ)/fail.o \
		$(FUZZ_MAIN) $(BUILD)/launcher/egress/httpreq.o \
		$(BUILD)/launcher/egress/httptarget.o $(BUILD)/common/http.o \
		$(BUILD)/common/utf8.o \
		$(BUILD)/common/host.o
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) $(FUZZ_LINK_FLAGS) -o $@ $^

$(BUILD)/fuzz/fuzz_auditrec: $(FUZZ_OBJ)/fuzz_auditrec.o $(FUZZ_OBJ)/fail.o \
		$(FUZZ_MAIN) $(BUILD)/launcher/kaudit/auditrec.o
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) $(FUZZ_LINK_FLAGS) -o $@ $^

$(BUILD)/fuzz/fuzz_jsonesc: $(FUZZ_OBJ)/fuzz_jsonesc.o $(FUZZ_OBJ)/fail.o \
		$(FUZZ_OBJ)/wellformed.o \
		$(FUZZ_MAIN) $(BUILD)/common/jsonesc.o $(BUILD)/common/utf8.o
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) $(FUZZ_LINK_FLAGS) -o $@ $^

# status.c and what it calls: the advice (auditsay.c, with common/'s
# quoting, secret and syscall names), the refusals' names, the sink.
$(BUILD)/fuzz/fuzz_status: $(FUZZ_OBJ)/fuzz_status.o $(FUZZ_OBJ)/fail.o \
		$(FUZZ_OBJ)/wellformed.o \
		$(FUZZ_MAIN) $(BUILD)/launcher/status.o \
		$(BUILD)/launcher/auditsay.o $(BUILD)/launcher/egress/refused.o \
		$(BUILD)/launcher/sink.o $(BUILD)/launcher/clock.o $(COMMON_OBJS)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) $(FUZZ_LINK_FLAGS) -o $@ $^

$(BUILD)/fuzz/fuzz_warmreq: $(FUZZ_OBJ)/fuzz_warmreq.o $(FUZZ_OBJ)/fail.o \
		$(FUZZ_MAIN) $(BUILD)/launcher/warm/warmreq.o
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) $(FUZZ_LINK_FLAGS) -o $@ $^

$(BUILD)/fuzz/fuzz_policy: $(FUZZ_OBJ)/fuzz_policy.o $(FUZZ_OBJ)/fail.o \
		$(FUZZ_MAIN) $(COMPILER_LIB_OBJS) $(COMMON_OBJS)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) $(FUZZ_LINK_FLAGS) -o $@ $^ $(COMPILER_LIBS)

$(BUILD)/fuzz/fuzz_learn: $(FUZZ_OBJ)/fuzz_learn.o $(FUZZ_OBJ)/fail.o \
		$(FUZZ_MAIN) $(COMPILER_LIB_OBJS) $(COMMON_OBJS)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) $(FUZZ_LINK_FLAGS) -o $@ $^ $(COMPILER_LIBS)

$(BUILD)/fuzz/fuzz_oci: $(FUZZ_OBJ)/fuzz_oci.o $(FUZZ_OBJ)/fail.o \
		$(FUZZ_MAIN) $(COMPILER_LIB_OBJS) $(COMMON_OBJS)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) $(FUZZ_LINK_FLAGS) -o $@ $^ $(COMPILER_LIBS)

# Harness objects that include the generated grammar headers (parse.h
# pulls in nothing generated, but keep the order explicit for -j).
$(FUZZ_OBJ)/fuzz_policy.o $(FUZZ_OBJ)/fuzz_learn.o $(FUZZ_OBJ)/fuzz_oci.o: \
	$(BUILD)/grammar/parser.h $(BUILD)/grammar/lexer.h

fuzz-build: $(FUZZ_BINS)

# Replay every saved regression input (part of `make check`).
fuzz-regress: $(FUZZ_BINS)
	@set -e; for h in $(FUZZ_NAMES); do \
		echo "== fuzz regressions: $$h"; \
		$(BUILD)/fuzz/fuzz_$$h tests/fuzz/regressions/$$h; \
	done

check: fuzz-regress

# ---------------------------------------------------------------------
# make sanitize: the whole suite again, built with ASan and UBSan.
#
# The launcher cannot run its sandbox under ASan: ASan reserves terabytes
# of shadow address space at start-up, so once the child has applied the
# policy's RLIMIT_AS every later mmap fails (ASan's own vfork interceptor
# included) and the child dies inside ASan's error path.  So:
#   1. build everything with ASan+UBSan (LeakSanitizer on);
#   2. run the ASan launcher over every shipped blob with --check (blob
#      loading, validation, layer probing: no rlimits applied);
#   3. replace build-san/cordon and its companions (cordon-tls...) by
#      UBSan-only builds of the
#      same sources (no shadow memory: rlimits work), built apart in
#      SAN_UB_BUILD;
#   4. make check in build-san: unit, golden, fuzz regressions and every
#      pytest, with the ASan compiler and the UBSan launcher.

SAN_UB_BUILD := build-san/launcher-ub
SAN_MAKE = $(SAN_ENV) $(MAKE) CC=$(SAN_CC) OPT='-O1 -g'

sanitize:
	$(SAN_MAKE) BUILD=build-san SAN_FLAGS='$(SAN_CFLAGS)' all
	@echo "== ASan launcher: --check on every shipped blob"
	@set -e; for b in build-san/policies/*.cpol; do \
		$(SAN_ENV) build-san/cordon --check "$$b" >/dev/null; \
	done
	$(SAN_MAKE) BUILD=$(SAN_UB_BUILD) \
		SAN_FLAGS='-fsanitize=undefined -fno-sanitize-recover=all' \
		$(SAN_UB_BUILD)/cordon $(CORDON_COMPANIONS:%=$(SAN_UB_BUILD)/%)
	cp $(SAN_UB_BUILD)/cordon $(CORDON_COMPANIONS:%=$(SAN_UB_BUILD)/%) \
		build-san/
	$(SAN_MAKE) BUILD=build-san SAN_FLAGS='$(SAN_CFLAGS)' check

# ---------------------------------------------------------------------
# make fuzz: each harness for FUZZ_SECONDS.  The corpus grows in
# build-fuzz/corpus/<harness>/ (kept between runs); seeds are regenerated
# from the shipped policies, the blobs `make` compiles and the golden
# tests; crashes land in build-fuzz/artifacts/<harness>/ and fail the run.
# Each crash must become a file in tests/fuzz/regressions/<harness>/.
# Then tests/fuzz/fuzz_mcp.py drives cordon-mcp's JSON-RPC layer with
# mutated lines for as long (a failure prints the seed that reproduces it),
# and tests/fuzz/fuzz_runtime.py cordon-runtime's request parsing, in
# process and over HTTP, for as long.

FUZZ_RUN_FLAGS := -timeout=10 -rss_limit_mb=2048 -print_final_stats=1

fuzz: all
	$(MAKE) BUILD=build-fuzz CC=$(SAN_CC) OPT='-O1 -g' \
		SAN_FLAGS='$(FUZZ_CFLAGS)' FUZZ_ENGINE=libfuzzer fuzz-build
	$(PYTHON) tools/fuzz-seeds.py --build $(BUILD) --out build-fuzz/seeds
	@set -e; for h in $(FUZZ_NAMES); do \
		mkdir -p build-fuzz/corpus/$$h build-fuzz/artifacts/$$h \
		    build-fuzz/seeds/$$h; \
		echo "== fuzz $$h for $(FUZZ_SECONDS)s"; \
		dict=; [ -f tests/fuzz/$$h.dict ] && dict=-dict=tests/fuzz/$$h.dict; \
		$(SAN_ENV) build-fuzz/fuzz/fuzz_$$h $(FUZZ_RUN_FLAGS) $$dict \
			-max_total_time=$(FUZZ_SECONDS) \
			-artifact_prefix=build-fuzz/artifacts/$$h/ \
			build-fuzz/corpus/$$h build-fuzz/seeds/$$h \
			tests/fuzz/regressions/$$h \
			2>build-fuzz/fuzz_$$h.log || { \
			tail -n 60 build-fuzz/fuzz_$$h.log; exit 1; }; \
		grep -E '^stat::(number_of_executed_units|average_exec_per_sec)' \
			build-fuzz/fuzz_$$h.log; \
	done
	@echo "== fuzz mcp (cordon-mcp's JSON-RPC, Python) for $(FUZZ_SECONDS)s"
	$(PYTHON) tests/fuzz/fuzz_mcp.py --build $(BUILD) \
		--seconds $(FUZZ_SECONDS)
	@echo "== fuzz runtime (cordon-runtime's requests, Python) for $(FUZZ_SECONDS)s"
	$(PYTHON) tests/fuzz/fuzz_runtime.py --build $(BUILD) \
		--seconds $(FUZZ_SECONDS)

# ---------------------------------------------------------------------
# make lint: cppcheck (suppressions, each justified, in
# tools/cppcheck.supp) and clang-tidy (.clang-tidy) over hand-written C;
# the bison/flex output in $(BUILD)/grammar is generated and not linted.

LINT_SRCS = $(sort $(wildcard common/*.c compiler/*.c compiler/*/*.c launcher/*.c launcher/*/*.c \
	grammar/*.c tests/*/*.c bench/*.c))
LINT_CPPFLAGS = -D_GNU_SOURCE $(VERSION_CPPFLAGS) -Icommon -Icompiler \
	$(addprefix -Icompiler/,$(COMPILER_DIRS)) $(addprefix -I,$(LAUNCHER_DIRS)) -I$(BUILD)/grammar \
	$(if $(WARM_PYINC),-isystem $(WARM_PYINC))
CPPCHECK := cppcheck
CLANG_TIDY := clang-tidy
# clang-tidy runs one process per file, LINT_JOBS at a time.
LINT_JOBS ?= $(shell nproc 2>/dev/null || echo 2)

# Needs the generated grammar headers (and so the build) for the includes.
lint: all
	$(CPPCHECK) --quiet --error-exitcode=1 --std=c11 --language=c \
		--enable=warning,style,performance,portability \
		--inline-suppr --suppressions-list=tools/cppcheck.supp \
		-D__linux__ -D__x86_64__ $(LINT_CPPFLAGS) $(LINT_SRCS)
	@echo "clang-tidy: $(words $(LINT_SRCS)) files"
	@printf '%s\n' $(LINT_SRCS) | xargs -P $(LINT_JOBS) -n 1 sh -c \
		'$(CLANG_TIDY) --quiet "$$0" -- $(LINT_CPPFLAGS) -std=gnu11 \
		2>/dev/null || { echo "clang-tidy: $$0 failed"; exit 1; }'

.PHONY: fuzz-build fuzz-regress
