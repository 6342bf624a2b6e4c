# tests/oci/: ociload, the equivalence helper of tests/test_oci.py (an
# OCI profile built into a filter the way runc builds it, compared with a
# blob through the BPF interpreter).  Included by tests/build.mk.
OCILOAD := $(BUILD)/tests/ociload

$(OCILOAD): $(BUILD)/tests/oci/ociload.o $(COMMON_OBJS) $(COMPILER_LIB_OBJS)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^ $(COMPILER_LIBS)

check: $(OCILOAD)
