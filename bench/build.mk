# bench/: benchmarks, not tests (make check does not run them).
#   make bench   build everything plus the bench programs, run the driver
#                (bench/run.py): a Markdown table on stdout and in
#                $(BUILD)/bench.md.  BENCH_FLAGS passes options to it, e.g.
#                make bench BENCH_FLAGS="--duration 5 --quick".
# floor and sysbench read seccomp programs from blobs with common/'s reader;
# the naive linear filter is built by hand (bench/filter.c): no libseccomp.
BENCH_BINS := $(BUILD)/bench/floor $(BUILD)/bench/sysbench
BENCH_FLAGS ?=

# floor --kernel-work makes the run's cgroup and tmpfs with cordon's own code.
FLOOR_CG_OBJS := $(addprefix $(BUILD)/launcher/,cgroup.o cgown.o cgstale.o \
	ctlfile.o runfs.o)
$(BUILD)/bench/floor: $(BUILD)/bench/floor.o $(BUILD)/bench/filter.o \
		$(BUILD)/bench/kwork.o $(FLOOR_CG_OBJS) $(COMMON_OBJS)
	$(CC) $(LDFLAGS) -o $@ $^

$(BUILD)/bench/sysbench: $(BUILD)/bench/sysbench.o $(BUILD)/bench/filter.o \
		$(COMMON_OBJS)
	$(CC) $(LDFLAGS) -o $@ $^

# Section 8 (bench/mcp.py: cordon-runtime's POST /execute, bench/runtime.py;
# cordon-mcp through the MCP SDK client, and sessions) runs after, with the
# same flags; the MCP rows need make deps' npm ci in tests/mcp and say "not
# run" without it.  Its report: $(BUILD)/bench-mcp.md.
# Section 10 (bench/pod.py: launch cost in a worker pod under runc against
# the host; root and runc, else "not run"): $(BUILD)/bench-pod.md.
bench: all $(BENCH_BINS)
	$(PYTHON) bench/run.py --build $(BUILD) $(BENCH_FLAGS)
	$(PYTHON) bench/mcp.py --build $(BUILD) $(BENCH_FLAGS)
	$(PYTHON) bench/pod.py --build $(BUILD) $(BENCH_FLAGS)
