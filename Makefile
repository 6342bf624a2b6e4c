# cordon - top-level Makefile (GNU make).
#
#   make            build build/cordonc, build/cordon and build/policies/*.cpol
#   make blobs      build/cordonc and build/policies/*.cpol alone (CI)
#   make deps       install build and test dependencies (Debian, as root)
#   make check      build, then run every test
#   make demo       run one real snippet per shipped tool policy
#   make bench      benchmarks (not tests): build/bench.md
#   make sanitize   ASan+UBSan build in build-san/, test suite under it
#   make fuzz       libFuzzer harnesses, FUZZ_SECONDS each
#   make soak       SOAK_RUNS runs of every outcome, killed at random; nothing may be left
#   make lint       cppcheck and clang-tidy
#   make install    PREFIX=/usr/local DESTDIR= (INSTALL_PYTHON=0: no client)
#   make deb        Debian packages cordon and python3-cordon, into build/deb/
#
# Each directory's build.mk adds its own objects and programs.

PREFIX ?= /usr/local
DESTDIR ?=
BUILD ?= build
CC ?= cc
PYTHON ?= /usr/bin/python3
SOAK_RUNS ?= 300

# Hardening for every object: fortify (needs -O), stack protector, PIE,
# stack clash and CET; full RELRO and BIND_NOW at link time.
OPT ?= -O2 -g
HARDEN_CFLAGS := -D_FORTIFY_SOURCE=2 -fstack-protector-strong -fPIE \
	-fstack-clash-protection -fcf-protection
HARDEN_LDFLAGS := -pie -Wl,-z,relro -Wl,-z,now -Wl,-z,noexecstack
WARN := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes \
	-Wmissing-prototypes -Wformat=2 -Wvla -Wpointer-arith
# Stricter still where input bytes are decoded (common/, launcher/).
WARN_STRICT := -Wconversion -Wsign-conversion

CPPFLAGS += -D_GNU_SOURCE -Icommon -Icompiler -I$(BUILD)/grammar

# The version, written once, in VERSION: cordon --version, cordonc
# --version and, as major.minor, the compiler field of every blob (a patch
# release changes no blob byte).  tests/test_version.py holds the Python
# client and debian/changelog to it.  The objects that use it depend on
# VERSION (launcher/build.mk, compiler/build.mk).
CORDON_VERSION := $(shell cat VERSION)
VERSION_CPPFLAGS := -DCORDON_VERSION=\"$(CORDON_VERSION)\" \
	-DCORDON_VERSION_MINOR=\"$(basename $(CORDON_VERSION))\"
CPPFLAGS += $(VERSION_CPPFLAGS)
CFLAGS += -std=gnu11 $(OPT) $(HARDEN_CFLAGS) $(WARN) -MMD -MP
LDFLAGS += $(HARDEN_LDFLAGS)
SAN_FLAGS ?=
CFLAGS += $(SAN_FLAGS)
LDFLAGS += $(SAN_FLAGS)

PROGRAMS :=
CLEAN :=

all:

include common/build.mk
-include compiler/build.mk
-include launcher/build.mk
-include tests/build.mk
-include bench/build.mk
-include tools/hardening.mk

POLICY_SRCS := $(wildcard policies/*.policy)
POLICY_BLOBS := $(POLICY_SRCS:policies/%.policy=$(BUILD)/policies/%.cpol)

all: $(PROGRAMS) $(POLICY_BLOBS)

# The compiler and the shipped policies' blobs alone (the README's CI
# example: no launcher, so no static libraries needed).
blobs: $(BUILD)/cordonc $(POLICY_BLOBS)

$(BUILD)/policies/%.cpol: policies/%.policy $(wildcard policies/base/*.policy) $(BUILD)/cordonc
	@mkdir -p $(@D)
	$(BUILD)/cordonc compile -o $@ $<

$(BUILD)/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(EXTRA_CFLAGS_$(<)) -c -o $@ $<

deps:
	apt-get update
	DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
		build-essential pkg-config libseccomp-dev libssl-dev openssl flex bison libcmocka-dev \
		python3 python3-dev python3-pytest mandoc clang llvm \
		libclang-rt-14-dev \
		cppcheck clang-tidy util-linux iproute2 \
		bubblewrap firejail hyperfine busybox-static runc podman \
		python3-numpy python3-pandas python3-matplotlib python3-nibabel \
		python3-pydicom python3-scipy python3-torch python3-yaml dcm2niix \
		python3-pip python3-setuptools python3-wheel python3-all \
		debhelper dh-python dpkg-dev fakeroot lintian bash-completion \
		python3-venv pybuild-plugin-pyproject
	# The SARIF 2.1.0 schema as TypeScript types (@types/sarif is generated
	# from it): tests/test_audit.py type-checks cordonc's SARIF with tsc.
	# From the npm registry, pinned, into tools/node (ignored by git).
	if command -v npm >/dev/null; then \
		npm install --no-save --no-audit --no-fund --prefix tools/node \
			typescript@5.9.3 @types/sarif@2.1.7; \
	else echo "deps: no npm: the SARIF schema test will skip"; fi
	# The official MCP TypeScript SDK, from tests/mcp/package-lock.json
	# into tests/mcp/node_modules (ignored by git): tests/test_mcp.py
	# drives cordon-mcp with its Client, and skips without it.
	if command -v npm >/dev/null; then \
		npm ci --no-audit --no-fund --prefix tests/mcp; \
	else echo "deps: no npm: the MCP client tests will skip"; fi

clean:
	rm -rf $(BUILD) build-san build-fuzz $(CLEAN)

# cordon-static (launcher/build.mk) is for container images
# (deploy/kubernetes/): it is not installed.
BASH_COMPLETION_DIR ?= $(PREFIX)/share/bash-completion/completions
INSTALL_PYTHON ?= 1

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 \
		$(DESTDIR)$(PREFIX)/share/man/man5 $(DESTDIR)$(PREFIX)/share/man/man7 \
		$(DESTDIR)$(PREFIX)/share/cordon/policies/base \
		$(DESTDIR)$(BASH_COMPLETION_DIR)
	install -m 0755 $(BUILD)/cordon $(BUILD)/cordonc $(DESTDIR)$(PREFIX)/bin/
	install -d $(DESTDIR)$(PREFIX)/lib/cordon
	install -m 0755 $(CORDON_COMPANIONS:%=$(BUILD)/%) \
		$(DESTDIR)$(PREFIX)/lib/cordon/
	install -m 0644 $(BUILD)/libcordon-shm.so $(DESTDIR)$(PREFIX)/lib/cordon/
	if [ -e $(BUILD)/warm/_cordon_warm.so ]; then \
		install -d $(DESTDIR)$(PREFIX)/lib/cordon/warm && \
		install -m 0644 $(BUILD)/warm/_cordon_warm.so \
			$(WARM_PY:%=$(BUILD)/warm/%) \
			$(DESTDIR)$(PREFIX)/lib/cordon/warm/; fi
	install -m 0644 man/*.1 $(DESTDIR)$(PREFIX)/share/man/man1/
	install -m 0644 man/*.5 $(DESTDIR)$(PREFIX)/share/man/man5/
	install -m 0644 man/*.7 $(DESTDIR)$(PREFIX)/share/man/man7/
	install -m 0644 $(POLICY_BLOBS) $(POLICY_SRCS) $(DESTDIR)$(PREFIX)/share/cordon/policies/
	install -m 0644 policies/base/*.policy $(DESTDIR)$(PREFIX)/share/cordon/policies/base/
	install -m 0644 tools/cordon.bash-completion $(DESTDIR)$(BASH_COMPLETION_DIR)/cordonc
	ln -sf cordonc $(DESTDIR)$(BASH_COMPLETION_DIR)/cordon
ifeq ($(INSTALL_PYTHON),1)
	$(MAKE) install-python
endif

# The client, with Debian's setuptools and wheel (no network, hence no
# build isolation), into the site folder this Python searches for PREFIX
# (Debian: PREFIX/lib/python3.X/dist-packages for /usr/local); --target
# also passes Debian 12's externally-managed guard, as an admin's
# make install should.  PYTHON_SITE= names another folder.
PYTHON_SITE ?= $(shell $(PYTHON) -c 'import sysconfig as s; p = "$(PREFIX)"; \
	loc = p.endswith("/local") and "posix_local" in s.get_scheme_names(); \
	print(s.get_path("purelib", "posix_local" if loc else "posix_prefix", \
	{"base": p[:-6] if loc else p}))')
install-python:
	$(PYTHON) -m pip install --no-build-isolation --no-index --no-deps \
		--upgrade --target=$(DESTDIR)$(PYTHON_SITE) clients/python
	# cordon-mcp and cordon-runtime on PATH (pip --target leaves console
	# scripts in its bin/).
	rm -f $(DESTDIR)$(PYTHON_SITE)/bin/cordon-mcp \
		$(DESTDIR)$(PYTHON_SITE)/bin/cordon-runtime
	rmdir $(DESTDIR)$(PYTHON_SITE)/bin 2>/dev/null || true
	# Each names the client's folder and PREFIX's cordon and cordonc (when
	# installed) itself, so it works whatever PREFIX and PATH are.
	install -d $(DESTDIR)$(PREFIX)/bin
	for m in mcp runtime; do \
	printf '%s\n' '#!/bin/sh' \
		'PYTHONPATH=$(PYTHON_SITE)$${PYTHONPATH:+:$$PYTHONPATH}' \
		'[ -x $(PREFIX)/bin/cordon ] && : "$${CORDON_BIN:=$(PREFIX)/bin/cordon}"' \
		'[ -x $(PREFIX)/bin/cordonc ] && : "$${CORDONC_BIN:=$(PREFIX)/bin/cordonc}"' \
		'export PYTHONPATH CORDON_BIN CORDONC_BIN' \
		'exec $(PYTHON) -m cordon.'"$$m"' "$$@"' \
		>$(DESTDIR)$(PREFIX)/bin/cordon-$$m && \
	chmod 0755 $(DESTDIR)$(PREFIX)/bin/cordon-$$m || exit 1; done
	@$(PYTHON) -c 'import sys; sys.exit("$(PYTHON_SITE)" in sys.path)' && \
		echo "install-python: $(PYTHON) does not search" \
		"$(PYTHON_SITE): cordon-mcp finds the client by itself; for" \
		"import cordon, set PYTHONPATH=$(PYTHON_SITE)" || true

# Debian packages (debian/): cordon and python3-cordon, built in a copy of
# the tree (no .git, no build folders) so they land in $(DEB_DIR), not ../
# (dpkg-buildpackage -us -uc -b in the tree itself writes them to ../).
DEB_DIR ?= $(BUILD)/deb
deb:
	rm -rf $(DEB_DIR) && mkdir -p $(DEB_DIR)/src
	tar -c --exclude=./.git --exclude='./build*' --exclude=__pycache__ \
		--exclude=./$(BUILD) . | tar -x -C $(DEB_DIR)/src
	cd $(DEB_DIR)/src && env PATH=$(DEB_PATH) dpkg-buildpackage -us -uc -b -j$(DEB_JOBS)
	@ls $(DEB_DIR)/*.deb
DEB_JOBS ?= 2
# Debian's own tools and python3 only (not a pyenv or venv on PATH).
DEB_PATH ?= /usr/sbin:/usr/bin:/sbin:/bin

# One real snippet per shipped tool policy, as a table.
demo: all
	$(PYTHON) tools/demo.py --build $(BUILD)

# The worker image's root file system, from this host's Debian packages,
# checked against every blob (deploy/kubernetes/mkrootfs.py; minutes);
# tests/test_image.py runs it under runc once it is there.
image: all
	$(PYTHON) deploy/kubernetes/mkrootfs.py --build $(BUILD) $(BUILD)/image-rootfs

.PHONY: all blobs deps check clean install install-python deb demo bench sanitize fuzz lint soak image
.DELETE_ON_ERROR:

# (not into make image's root file system: its *.d are folders)
-include $(shell find $(BUILD) -path $(BUILD)/image-rootfs -prune -o -name '*.d' -type f -print 2>/dev/null)
