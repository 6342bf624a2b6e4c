# compiler/: cordonc, the policy compiler, and its grammar (grammar/).
# One folder per step of the pipeline (HACKING.md): front/ -> check/ ->
# backend/, with names/ (the tables) below them, and explain/, query/,
# audit/, oci/ reading the struct cpol they produce; io/ is shared output
# and JSON.  Every folder is on the include path, so an #include names a
# header by its base name; `make layering` (tools/layering.py) keeps the
# arrows one way.  Generated lexer and parser go to $(BUILD)/grammar/,
# never committed.  Every compiler object but main.o forms the library the
# unit tests link.  A new subcommand adds its files here and one line to
# main.c's table.
COMPILER_DIRS := front check names backend explain query audit oci io learn
CPPFLAGS += $(addprefix -Icompiler/,$(COMPILER_DIRS))

COMPILER_SRCS := $(addprefix compiler/front/,ast.c diag.c parse.c incsearch.c)
COMPILER_SRCS += $(addprefix compiler/check/,check.c merge.c checkfs.c \
	checkhttp.c checkexp.c rules.c rulesentry.c value.c)
COMPILER_SRCS += $(addprefix compiler/names/,tables_syscalls.c tables_rights.c \
	tables_groups.c tables_consts.c tables_args.c tables_vars.c)
COMPILER_SRCS += $(addprefix compiler/backend/,emit.c validate.c)
COMPILER_SRCS += $(addprefix compiler/explain/,explain.c explain_fmt.c \
	explain_json.c)
COMPILER_SRCS += $(addprefix compiler/io/,jsonout.c json_read.c)
COMPILER_SRCS += $(addprefix compiler/oci/,oci_report.c oci_export.c \
	oci_import.c oci_import_out.c oci_import_keep.c)
COMPILER_SRCS += compiler/compile.c compiler/input.c compiler/cliopt.c
COMPILER_SRCS += $(addprefix compiler/query/,pathq.c sysq.c)
COMPILER_SRCS += $(addprefix compiler/audit/,finding.c lint.c lintsys.c linthttp.c expect.c \
	diff.c difflist.c diffloc.c diffsys.c diffnet.c diffhttp.c difffmt.c reach.c verify.c audit.c auditfmt.c sarif.c auditcmd.c)
COMPILER_SRCS += $(addprefix compiler/learn/,learn.c learn_write.c learn_name.c \
    learn_fold.c learn_net.c learn_copy.c learn_read.c)
GRAMMAR_OBJS := $(BUILD)/grammar/parser.o $(BUILD)/grammar/lexer.o
COMPILER_LIB_OBJS := $(COMPILER_SRCS:%.c=$(BUILD)/%.o) $(GRAMMAR_OBJS)
COMPILER_LIBS := -lseccomp

PROGRAMS += $(BUILD)/cordonc

# The installed bases, searched after the -I directories: PREFIX is
# compiled in (a stamp rebuilds incsearch.o when PREFIX changes). The
# stamp is out of date only when the folder it holds differs, decided
# when make reads this file, so a second make (or make -q) finds
# nothing to do.
POLICY_DIR ?= $(PREFIX)/share/cordon/policies
POLICY_DIR_STAMP := $(BUILD)/policy-dir.stamp
$(BUILD)/compiler/front/incsearch.o: CPPFLAGS += -DCORDON_POLICY_DIR='"$(POLICY_DIR)"'
$(BUILD)/compiler/front/incsearch.o: $(POLICY_DIR_STAMP)
ifneq ($(file <$(POLICY_DIR_STAMP)),$(POLICY_DIR))
$(POLICY_DIR_STAMP): FORCE
endif
$(POLICY_DIR_STAMP):
	@mkdir -p $(@D)
	@printf '%s\n' '$(POLICY_DIR)' > $@
FORCE:
.PHONY: FORCE

$(BUILD)/cordonc: $(BUILD)/compiler/main.o $(COMPILER_LIB_OBJS) $(COMMON_OBJS)
	$(CC) $(LDFLAGS) -o $@ $^ $(COMPILER_LIBS)

# bison: every warning is an error (-Wall -Werror), conflicts included
# (%expect 0 in the grammar).
$(BUILD)/grammar/parser.c $(BUILD)/grammar/parser.h &: grammar/parser.y
	@mkdir -p $(@D)
	bison -Wall -Werror -d -o $(BUILD)/grammar/parser.c $<

$(BUILD)/grammar/lexer.c $(BUILD)/grammar/lexer.h &: grammar/lexer.l \
    $(BUILD)/grammar/parser.h
	@mkdir -p $(@D)
	flex --header-file=$(BUILD)/grammar/lexer.h -o $(BUILD)/grammar/lexer.c $<

$(BUILD)/grammar/%.o: $(BUILD)/grammar/%.c
	$(CC) $(CPPFLAGS) $(CFLAGS) $(EXTRA_CFLAGS_$(<)) -c -o $@ $<

# Objects that include the generated headers must wait for them.
$(COMPILER_SRCS:%.c=$(BUILD)/%.o) $(BUILD)/compiler/main.o: \
    $(BUILD)/grammar/parser.h $(BUILD)/grammar/lexer.h

# make layering: the rules the tree keeps (HACKING.md), part of make check:
# folders use only the folders and public headers tools/layering.py
# allows, no include or call circle among compiler files, no call circle
# among launcher files (calls read from
# the objects with nm), no function over 80 lines in compiler/, common/
# or launcher/ and no .c file over 600, the warm pool's Python imports
# only what WARM_PY_IMPORTS allows, libseccomp only in backend/ (and
# names/'s syscall table), the plain cold program cordon's sources within
# their ceiling (launcher/build.mk: LAYERING_ARGS);
# and tools/facts.py: no copy of a fact that has its one home (errno and
# action names, units, right groups and letters, -D, exit codes, version).
layering: $(BUILD)/compiler/main.o $(COMPILER_SRCS:%.c=$(BUILD)/%.o)
	$(PYTHON) tools/layering.py $(filter %.o,$^) $(LAYERING_ARGS)
	$(PYTHON) tools/facts.py
check: layering
.PHONY: layering

# --version and the blob's compiler field (Makefile: CORDON_VERSION).
$(BUILD)/compiler/main.o $(BUILD)/compiler/check/check.o: VERSION
