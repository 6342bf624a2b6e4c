# bench/: benchmarks, not tests (make check does not run them).
#   make bench   build everything plus the bench programs, run the driver
#                (bench/run.py): a Markdown table on stdout and in
#                $(BUILD)/bench.md.  BENCH_FLAGS passes options to it, e.g.
#                make bench BENCH_FLAGS="--duration 5 --quick".
# floor and sysbench read seccomp programs from blobs with common/'s reader;
# the naive linear filter is built by hand (bench/filter.c): no libseccomp.
BENCH_BINS := $(BUILD)/bench/floor $(BUILD)/bench/sysbench
BENCH_FLAGS ?=

$(BUILD)/bench/floor: $(BUILD)/bench/floor.o $(BUILD)/bench/filter.o \
		$(COMMON_OBJS)
	$(CC) $(LDFLAGS) -o $@ $^

$(BUILD)/bench/sysbench: $(BUILD)/bench/sysbench.o $(BUILD)/bench/filter.o \
		$(COMMON_OBJS)
	$(CC) $(LDFLAGS) -o $@ $^

bench: all $(BENCH_BINS)
	$(PYTHON) bench/run.py --build $(BUILD) $(BENCH_FLAGS)
