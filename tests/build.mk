# tests/: make check builds everything, then runs each suite in order.
#   unit:   tests/unit/test_*.c (cmocka), linked with common/ and the
#           compiler's library objects (COMPILER_LIB_OBJS, from
#           compiler/build.mk)
#   golden: tests/golden/run.sh (diagnostics and round trips)
#   corpus: tests/corpus/run.sh (every policy in the tree: the same bytes)
#   pytest: tests/run-pytest.sh (as root, then as uid 65534)
UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=$(BUILD)/tests/%)

$(BUILD)/tests/%: $(BUILD)/tests/unit/%.o $(COMMON_OBJS) $(COMPILER_LIB_OBJS)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^ -lcmocka $(COMPILER_LIBS)

check: all $(UNIT_BINS)
	@set -e; for t in $(UNIT_BINS); do echo "== $$t"; $$t; done
	@echo "== golden"; BUILD=$(BUILD) sh tests/golden/run.sh
	@echo "== corpus"; BUILD=$(BUILD) sh tests/corpus/run.sh
	@echo "== pytest"; BUILD=$(BUILD) PYTHON=$(PYTHON) sh tests/run-pytest.sh

# make soak: hundreds of runs of every outcome, cordon and the submitters
# killed at random points; nothing may be left (tools/soak.py).
soak: all
	@BUILD=$(BUILD) PYTHON=$(PYTHON) SOAK_RUNS=$(SOAK_RUNS) sh tests/run-soak.sh

# OCI export/import equivalence helper (tests/oci/build.mk).
-include tests/oci/build.mk

# test_landlock: the launcher's Landlock decisions, against the kernel.
$(BUILD)/tests/test_landlock: $(BUILD)/launcher/landlock.o \
	$(BUILD)/launcher/llplan.o
$(BUILD)/tests/unit/test_landlock.o: CPPFLAGS += -Ilauncher

# test_cgown: cordon's own cgroup v1 group, from a mountinfo line.
$(BUILD)/tests/test_cgown: $(BUILD)/launcher/cgown.o
$(BUILD)/tests/unit/test_cgown.o: CPPFLAGS += -Ilauncher

# test_host: the host-name check, with the proxy's two parsers.
$(BUILD)/tests/test_host: $(BUILD)/launcher/egress/proxyreq.o $(BUILD)/launcher/egress/dns.o \
	$(BUILD)/launcher/egress/sni.o
$(BUILD)/tests/unit/test_host.o: CPPFLAGS += -Ilauncher

# test_plan: the run's plan (blob, options, kernel facts -> decisions or
# the refusal with its cause), with the pure files it decides limits,
# Landlock and the listener programs' sizes through: none makes a system
# call (make layering checks that test_plan links no object that does).
$(BUILD)/tests/test_plan: $(BUILD)/launcher/plan.o $(BUILD)/launcher/limits.o \
	$(BUILD)/launcher/filter.o $(BUILD)/launcher/llplan.o
$(BUILD)/tests/unit/test_plan.o: CPPFLAGS += -Ilauncher

# test_filter: the programs cordon makes for its listener, each proven,
# and each proof shown to fail on a broken program.
$(BUILD)/tests/test_filter: $(BUILD)/launcher/filter.o
$(BUILD)/tests/unit/test_filter.o: CPPFLAGS += -Ilauncher

# test_httptarget: a request target's normal form (a table of spellings),
# and the head parser's refused and marked fields.
$(BUILD)/tests/test_httptarget: $(BUILD)/launcher/egress/httptarget.o \
	$(BUILD)/launcher/egress/httpreq.o
$(BUILD)/tests/unit/test_httptarget.o: CPPFLAGS += -Ilauncher
