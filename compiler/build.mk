# compiler/: cordonc, the policy compiler, and its grammar (grammar/).
# Generated lexer and parser go to $(BUILD)/grammar/, never committed.
# Every compiler object but main.o forms the library the unit tests link.
# A new subcommand adds its files here and one line to main.c's table.
COMPILER_SRCS := compiler/ast.c compiler/diag.c compiler/parse.c \
	compiler/check.c compiler/checkfs.c compiler/checkexp.c \
	compiler/rules.c compiler/value.c \
	compiler/tables_syscalls.c compiler/tables_groups.c \
	compiler/tables_consts.c compiler/tables_args.c \
	compiler/emit.c compiler/validate.c \
	compiler/explain.c compiler/explain_fmt.c compiler/explain_json.c \
	compiler/jsonout.c compiler/outfile.c
COMPILER_SRCS += $(addprefix compiler/,json_read.c oci_report.c oci_export.c oci_import.c oci_import_out.c)
COMPILER_SRCS += $(addprefix compiler/,input.c finding.c pathq.c sysq.c lint.c expect.c diff.c diffsys.c verify.c audit.c auditfmt.c sarif.c auditcmd.c learn.c learn_write.c)
GRAMMAR_OBJS := $(BUILD)/grammar/parser.o $(BUILD)/grammar/lexer.o
COMPILER_LIB_OBJS := $(COMPILER_SRCS:%.c=$(BUILD)/%.o) $(GRAMMAR_OBJS)
COMPILER_LIBS := -lseccomp

PROGRAMS += $(BUILD)/cordonc

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
