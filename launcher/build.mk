# launcher/: cordon, the launcher.  Links common/ only: no libseccomp.
LAUNCHER_SRCS := launcher/main.c launcher/opts.c launcher/launch.c launcher/run.c \
	launcher/landlock.c launcher/supervise.c launcher/relay.c \
	launcher/status.c launcher/workdir.c launcher/command.c launcher/sink.c \
	launcher/bounds.c launcher/cgroup.c launcher/runfs.c launcher/watch.c \
	launcher/watchpace.c launcher/cgown.c launcher/cgstale.c launcher/clock.c launcher/ctlfile.c \
	launcher/fdpass.c launcher/egress.c launcher/netns.c \
	launcher/denials.c launcher/audit.c \
	launcher/auditsay.c launcher/notes.c launcher/feed.c \
	launcher/plan.c launcher/probe.c launcher/plansay.c launcher/filter.c \
	launcher/companion.c launcher/initend.c launcher/late.c \
	launcher/limits.c launcher/llplan.c launcher/sigs.c launcher/nscause.c \
	launcher/nsprobe.c launcher/shmredirect.c
# The rooms (HACKING.md): the egress proxy, warm pools, the modes that
# watch a run's calls, the reader of the kernel's audit records.  Each has one header the rest of the launcher
# includes (egress.h, pool.h, learnmode.h); every folder is on the include
# path, so an #include names a header by its base name.
# A room the plain cold core leaves out is linked into the program that
# holds it (companion.c: cordon executes that program for a run that needs
# it); cordon links the room's no*.c instead, whose every function fails
# closed.
EGRESS_SRCS := $(addprefix launcher/egress/,proxy.c conf.c addrs.c proxyreq.c \
	refused.c dns.c httpreq.c around.c sni.c)
WARMC_SRCS := $(addprefix launcher/warm/,serve.c warmdir.c submit.c \
	warmhuge.c warmhold.c warmreq.c)
LEARN_SRCS := $(addprefix launcher/learn/,learn.c learnjudge.c \
	pathcall.c llwatch.c)
KAUDIT_SRCS := $(addprefix launcher/kaudit/,reader.c auditrec.c)
LAUNCHER_DIRS := launcher launcher/egress launcher/warm launcher/learn \
	launcher/shm launcher/kaudit
CPPFLAGS += $(addprefix -I,$(LAUNCHER_DIRS))
# OpenSSL (Debian's libssl-dev, static archives for the static PIE): the
# proxy's TLS for named hosts with a credential or http rules (tls.c,
# proxyhttp.c); initialised without reading any configuration file.  Only
# cordon-tls, cordon-static and the warm pool's extension have it: cordon
# links notls.c instead (cordon-egress notlsproxy.c too) and executes
# cordon-tls for a policy with HTTP hosts (main.c), because a static PIE
# relocates every table OpenSSL has at each start, about 95 pages written
# (bench/README.md section 1).
TLS_LIBS := -lssl -lcrypto
TLS_SRCS := launcher/egress/tls.c launcher/egress/proxyhttp.c \
	launcher/egress/httptarget.c
LAUNCHER_OBJS := $(LAUNCHER_SRCS:%.c=$(BUILD)/%.o)
EGRESS_OBJS := $(EGRESS_SRCS:%.c=$(BUILD)/%.o)
NOEGRESS_OBJS := $(BUILD)/launcher/egress/noegress.o
LEARN_OBJS := $(LEARN_SRCS:%.c=$(BUILD)/%.o)
NOLEARN_OBJS := $(BUILD)/launcher/learn/nolearn.o
WARMC_OBJS := $(WARMC_SRCS:%.c=$(BUILD)/%.o)
NOWARM_OBJS := $(BUILD)/launcher/warm/nowarm.o
KAUDIT_OBJS := $(KAUDIT_SRCS:%.c=$(BUILD)/%.o)
NOAUDIT_OBJS := $(BUILD)/launcher/kaudit/noaudit.o
TLS_OBJS := $(TLS_SRCS:%.c=$(BUILD)/%.o)
NOTLS_OBJS := $(BUILD)/launcher/egress/notls.o
NOTLSPROXY_OBJS := $(BUILD)/launcher/egress/notlsproxy.o
# The launcher handles sizes from the blob: conversions must be explicit.
$(LAUNCHER_OBJS) $(EGRESS_OBJS) $(NOEGRESS_OBJS) $(LEARN_OBJS) \
	$(NOLEARN_OBJS) $(WARMC_OBJS) $(NOWARM_OBJS) $(TLS_OBJS) \
	$(NOTLS_OBJS) $(NOTLSPROXY_OBJS) $(KAUDIT_OBJS) \
	$(NOAUDIT_OBJS): CFLAGS += $(WARN_STRICT)

# The programs (companion.c's table): cordon, the plain cold core; and one
# program per feature it leaves out, each the core with that room.
# They are installed in PREFIX/lib/cordon/ (Makefile: install).
CORDON_COMPANIONS := cordon-audit cordon-egress cordon-tls cordon-observe \
	cordon-pool
PROGRAMS += $(BUILD)/cordon $(CORDON_COMPANIONS:%=$(BUILD)/%) \
	$(BUILD)/cordon-static

# cordon itself is a static PIE: no dynamic loader at each launch (about
# 1.4 ms per run on the bench machine, see bench/README.md) and no shared
# library that LD_PRELOAD or LD_LIBRARY_PATH in the caller's environment
# could swap in.  Sanitizer builds cannot link statically: dynamic there.
ifeq ($(SAN_FLAGS),)
CORDON_LINK := $(filter-out -pie,$(LDFLAGS)) -static-pie
else
CORDON_LINK := $(LDFLAGS)
endif
# common/ comes as an archive: each program takes only the objects it
# calls (the linker pulls a member for a symbol it needs), so cordon holds
# no blob writer.  cordon's link map says what it holds (make layering).
LAUNCHER_COMMON := $(BUILD)/common/common.a
$(LAUNCHER_COMMON): $(COMMON_OBJS)
	rm -f $@
	$(AR) rcs $@ $^
CORDON_OBJS := $(LAUNCHER_OBJS) $(NOEGRESS_OBJS) $(NOTLS_OBJS) \
	$(NOLEARN_OBJS) $(NOWARM_OBJS) $(NOAUDIT_OBJS) $(LAUNCHER_COMMON)
$(BUILD)/cordon: $(CORDON_OBJS)
	$(CC) $(CORDON_LINK) -Wl,-Map=$@.map -o $@ $^
# A root run where the kernel's audit is on: the core and the reader.
$(BUILD)/cordon-audit: $(LAUNCHER_OBJS) $(NOEGRESS_OBJS) $(NOTLS_OBJS) \
	$(NOLEARN_OBJS) $(NOWARM_OBJS) $(KAUDIT_OBJS) $(LAUNCHER_COMMON)
	$(CC) $(CORDON_LINK) -o $@ $^
$(BUILD)/cordon-egress: $(LAUNCHER_OBJS) $(EGRESS_OBJS) $(NOTLS_OBJS) \
	$(NOTLSPROXY_OBJS) $(NOLEARN_OBJS) $(NOWARM_OBJS) $(KAUDIT_OBJS) \
	$(LAUNCHER_COMMON)
	$(CC) $(CORDON_LINK) -o $@ $^
$(BUILD)/cordon-tls: $(LAUNCHER_OBJS) $(EGRESS_OBJS) $(TLS_OBJS) \
	$(NOLEARN_OBJS) $(NOWARM_OBJS) $(KAUDIT_OBJS) $(LAUNCHER_COMMON)
	$(CC) $(CORDON_LINK) -o $@ $^ $(TLS_LIBS)
# Learn mode is for trusted code only: its program has every room but the
# warm pool's, and the proxy's TLS (a policy with HTTP hosts observed).
$(BUILD)/cordon-observe: $(LAUNCHER_OBJS) $(EGRESS_OBJS) $(TLS_OBJS) \
	$(LEARN_OBJS) $(NOWARM_OBJS) $(KAUDIT_OBJS) $(LAUNCHER_COMMON)
	$(CC) $(CORDON_LINK) -o $@ $^ $(TLS_LIBS)
# cordon --serve (which executes the pool's template, whose extension has
# every room) and cordon --submit (a run sent to a pool): neither runs a
# snippet in this program.
$(BUILD)/cordon-pool: $(LAUNCHER_OBJS) $(NOEGRESS_OBJS) $(NOTLS_OBJS) \
	$(NOLEARN_OBJS) $(WARMC_OBJS) $(NOAUDIT_OBJS) $(LAUNCHER_COMMON)
	$(CC) $(CORDON_LINK) -o $@ $^

# Every room in one program, linked statically (no -pie: static-pie needs
# glibc's rcrt1.o, which Debian ships; -static-pie keeps ASLR for the
# binary) and stripped (-s), for a container that wants one file: it
# never executes another program, and its plain runs hold every room's
# code (the image, deploy/kubernetes/, takes build/image/ instead).  It was under
# 1 MiB until OpenSSL came in for the proxy's TLS (credentials, http
# rules): 5.7 MiB, see bench/README.md section 3.
$(BUILD)/cordon-static: $(LAUNCHER_OBJS) $(EGRESS_OBJS) $(TLS_OBJS) \
	$(LEARN_OBJS) $(WARMC_OBJS) $(KAUDIT_OBJS) $(LAUNCHER_COMMON)
	$(CC) $(filter-out -pie,$(LDFLAGS)) -static-pie -s -o $@ $^ $(TLS_LIBS)

# libcordon-shm.so, preloaded into a run without a private /dev/shm
# (launcher/shm/shm.c, shmredirect.c): loaded by the run's interpreter,
# so built without the sanitizers (ASan must come first in a process)
# and found beside cordon like the programs (companion.c).
SHM_LIB := $(BUILD)/libcordon-shm.so
PROGRAMS += $(SHM_LIB)
$(SHM_LIB): launcher/shm/shm.c launcher/shm/shm.h
	$(CC) $(CPPFLAGS) $(filter-out -fPIE -fsanitize=% -fno-sanitize-recover=% -MMD -MP,$(CFLAGS)) \
		$(WARN_STRICT) -fPIC -fvisibility=hidden -shared \
		$(filter-out -pie -fsanitize=% -fno-sanitize-recover=%,$(LDFLAGS)) -o $@ $<

# For container images (deploy/kubernetes/Containerfile): cordon and its
# programs stripped, laid out as under PREFIX (bin/cordon, lib/cordon/),
# so that an image's plain run, too, holds none of the rooms.
IMAGE_DIR := $(BUILD)/image
PROGRAMS += $(IMAGE_DIR)/bin/cordon $(CORDON_COMPANIONS:%=$(IMAGE_DIR)/lib/cordon/%) \
	$(IMAGE_DIR)/lib/cordon/libcordon-shm.so
$(IMAGE_DIR)/bin/cordon: $(BUILD)/cordon
	@mkdir -p $(@D)
	strip -o $@ $<
$(IMAGE_DIR)/lib/cordon/%: $(BUILD)/%
	@mkdir -p $(@D)
	strip -o $@ $<

# The warm pool's template (cordon --serve): warm.py with its modules and
# _cordon_warm.so, a CPython extension made of the launcher's own sources
# (-fPIC, main as cordon_main) and launcher/warm/pywarm.c: a warm run is
# cordon's code.  In this build filter.c's text bounds (an executable's)
# are an empty array: no call of a warm run is let through as cordon's
# own, and a warm run refuses --observe.  Built for the Python that policies name
# (/usr/bin/python3); without its headers there is no warm pool (cordon
# --serve then fails clearly).
WARM_PYTHON ?= /usr/bin/python3
WARM_PYINC := $(shell $(WARM_PYTHON) -c 'import sysconfig; print(sysconfig.get_paths()["include"])' 2>/dev/null)
WARM_DIR := $(BUILD)/warm
WARM_OBJS := $(LAUNCHER_SRCS:%.c=$(WARM_DIR)/obj/%.o) $(EGRESS_SRCS:%.c=$(WARM_DIR)/obj/%.o) \
	$(LEARN_SRCS:%.c=$(WARM_DIR)/obj/%.o) $(WARMC_SRCS:%.c=$(WARM_DIR)/obj/%.o) \
	$(TLS_SRCS:%.c=$(WARM_DIR)/obj/%.o) $(KAUDIT_SRCS:%.c=$(WARM_DIR)/obj/%.o) \
	$(COMMON_SRCS:%.c=$(WARM_DIR)/obj/%.o) $(WARM_DIR)/obj/launcher/warm/pywarm.o
# The template's modules, one job each (warm.py's docstring names them).
WARM_PY := warm.py warm_preload.py warm_serve.py warm_request.py \
	warm_spare.py warm_maker.py warm_pace.py warm_run.py
ifneq ($(wildcard $(WARM_PYINC)/Python.h),)
PROGRAMS += $(WARM_DIR)/_cordon_warm.so $(WARM_PY:%=$(WARM_DIR)/%)
endif
# In sanitizer builds the extension, loaded into Debian's interpreter, can
# carry no sanitizer runtime: its UBSan checks trap (no runtime needed);
# ASan (which must come first in the process) is left out.
WARM_SAN := $(if $(SAN_FLAGS),-fsanitize=undefined -fsanitize-trap=undefined)
WARM_CFLAGS = $(filter-out -fPIE -fsanitize=% -fno-sanitize-recover=%,$(CFLAGS)) $(WARM_SAN)
$(WARM_DIR)/obj/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(WARM_CFLAGS) $(WARN_STRICT) -fPIC \
		-fvisibility=hidden $(if $(filter launcher/main.c,$<),-Dmain=cordon_main -Wno-missing-prototypes) \
		$(if $(filter launcher/filter.c,$<),-D__executable_start=warm_no_text -Detext=warm_no_text) \
		$(if $(filter launcher/warm/pywarm.c,$<),-isystem $(WARM_PYINC) -Wno-conversion -Wno-sign-conversion) \
		-c -o $@ $<
$(WARM_DIR)/_cordon_warm.so: $(WARM_OBJS)
	$(CC) -shared $(filter-out -pie -fsanitize=% -fno-sanitize-recover=%,$(LDFLAGS)) $(WARM_SAN) -o $@ $^ $(TLS_LIBS)
$(WARM_PY:%=$(WARM_DIR)/%): $(WARM_DIR)/%.py: launcher/warm/%.py
	@mkdir -p $(@D)
	install -m 0644 $< $@

# --version (Makefile: CORDON_VERSION).
$(BUILD)/launcher/main.o $(WARM_DIR)/obj/launcher/main.o: VERSION

# make layering (compiler/build.mk) reads the launcher's calls too, and
# common/'s: no circle among either's objects.
layering: $(LAUNCHER_OBJS) $(EGRESS_OBJS) $(TLS_OBJS) $(LEARN_OBJS) \
	$(WARMC_OBJS) $(KAUDIT_OBJS) $(COMMON_OBJS) $(BUILD)/cordon
# ... and counts the lines of the program cordon, what a plain cold run
# executes: the objects its link map names, their sources and the tree's
# headers they include.
LAYERING_ARGS += --cordon $(BUILD)/cordon.map
