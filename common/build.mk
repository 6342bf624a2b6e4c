# common/: the blob format, shared by cordonc and cordon; no libseccomp.
COMMON_SRCS := common/cpol_read.c common/cpol_readsec.c common/cpol_cur.c common/cpol_load.c \
	common/cpol_write.c common/infile.c common/outfile.c common/wall.c \
	common/jsonesc.c common/utf8.c common/polquote.c common/secret.c common/origin.c \
	common/fault.c common/host.c common/http.c common/sysdecode.c \
	common/sha256.c common/bpf.c common/cpolrule.c common/action.c \
	common/units.c common/llrights.c common/fsgrant.c common/strindex.c
COMMON_OBJS := $(COMMON_SRCS:%.c=$(BUILD)/%.o)
# The reader decodes untrusted bytes: conversions must be explicit.
$(COMMON_OBJS): CFLAGS += $(WARN_STRICT)
