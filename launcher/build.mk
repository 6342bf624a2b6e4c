# launcher/: cordon, the launcher.  Links common/ only: no libseccomp.
LAUNCHER_SRCS := launcher/main.c launcher/launch.c launcher/run.c \
	launcher/landlock.c launcher/supervise.c launcher/status.c \
	launcher/workdir.c launcher/command.c
LAUNCHER_OBJS := $(LAUNCHER_SRCS:%.c=$(BUILD)/%.o)
# The launcher handles sizes from the blob: conversions must be explicit.
$(LAUNCHER_OBJS): CFLAGS += $(WARN_STRICT)

PROGRAMS += $(BUILD)/cordon $(BUILD)/cordon-static

$(BUILD)/cordon: $(LAUNCHER_OBJS) $(COMMON_OBJS)
	$(CC) $(LDFLAGS) -o $@ $^

# The same objects, linked statically (no -pie: static-pie needs glibc's
# rcrt1.o, which Debian ships; -static-pie keeps ASLR for the binary) and
# stripped (-s), to stay under 1 MiB; build/cordon keeps the symbols.
$(BUILD)/cordon-static: $(LAUNCHER_OBJS) $(COMMON_OBJS)
	$(CC) $(filter-out -pie,$(LDFLAGS)) -static-pie -s -o $@ $^
