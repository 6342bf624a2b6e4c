# launcher/: cordon, the launcher.  Links common/ only: no libseccomp.
LAUNCHER_SRCS := launcher/main.c launcher/launch.c launcher/run.c \
	launcher/landlock.c launcher/supervise.c launcher/status.c \
	launcher/workdir.c launcher/command.c launcher/sink.c \
	launcher/bounds.c launcher/cgroup.c launcher/runfs.c \
	launcher/fdpass.c launcher/egress.c launcher/proxy.c \
	launcher/proxyreq.c launcher/dns.c launcher/netns.c \
	launcher/denials.c launcher/learn.c
LAUNCHER_OBJS := $(LAUNCHER_SRCS:%.c=$(BUILD)/%.o)
# The launcher handles sizes from the blob: conversions must be explicit.
$(LAUNCHER_OBJS): CFLAGS += $(WARN_STRICT)

PROGRAMS += $(BUILD)/cordon $(BUILD)/cordon-static

# cordon itself is a static PIE: no dynamic loader at each launch (about
# 1.4 ms per run on the bench machine, see bench/README.md) and no shared
# library that LD_PRELOAD or LD_LIBRARY_PATH in the caller's environment
# could swap in.  Sanitizer builds cannot link statically: dynamic there.
ifeq ($(SAN_FLAGS),)
CORDON_LINK := $(filter-out -pie,$(LDFLAGS)) -static-pie
else
CORDON_LINK := $(LDFLAGS)
endif
$(BUILD)/cordon: $(LAUNCHER_OBJS) $(COMMON_OBJS)
	$(CC) $(CORDON_LINK) -o $@ $^

# The same objects, linked statically (no -pie: static-pie needs glibc's
# rcrt1.o, which Debian ships; -static-pie keeps ASLR for the binary) and
# stripped (-s), to stay under 1 MiB (for containers); build/cordon is
# the same program with its symbols.
$(BUILD)/cordon-static: $(LAUNCHER_OBJS) $(COMMON_OBJS)
	$(CC) $(filter-out -pie,$(LDFLAGS)) -static-pie -s -o $@ $^
