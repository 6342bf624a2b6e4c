/* action.c - the errno names and the spelling of an action (action.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "action.h"
#include "bpf.h"

#define E(x) [x] = #x

/* Indexed by number: one name each (a second name for a number would
 * be an override, which -Wextra refuses).  glibc 2.36's
 * strerrorname_np, which tests/unit/test_action.c compares it with. */
static const char *const errno_names[] = {
	E(EPERM), E(ENOENT), E(ESRCH), E(EINTR), E(EIO), E(ENXIO), E(E2BIG),
	E(ENOEXEC), E(EBADF), E(ECHILD), E(EAGAIN), E(ENOMEM), E(EACCES),
	E(EFAULT), E(ENOTBLK), E(EBUSY), E(EEXIST), E(EXDEV), E(ENODEV),
	E(ENOTDIR), E(EISDIR), E(EINVAL), E(ENFILE), E(EMFILE), E(ENOTTY),
	E(ETXTBSY), E(EFBIG), E(ENOSPC), E(ESPIPE), E(EROFS), E(EMLINK),
	E(EPIPE), E(EDOM), E(ERANGE), E(EDEADLK), E(ENAMETOOLONG), E(ENOLCK),
	E(ENOSYS), E(ENOTEMPTY), E(ELOOP), E(ENOMSG), E(EIDRM), E(ECHRNG),
	E(EL2NSYNC), E(EL3HLT), E(EL3RST), E(ELNRNG), E(EUNATCH), E(ENOCSI),
	E(EL2HLT), E(EBADE), E(EBADR), E(EXFULL), E(ENOANO), E(EBADRQC),
	E(EBADSLT), E(EBFONT), E(ENOSTR), E(ENODATA), E(ETIME), E(ENOSR),
	E(ENONET), E(ENOPKG), E(EREMOTE), E(ENOLINK), E(EADV), E(ESRMNT),
	E(ECOMM), E(EPROTO), E(EMULTIHOP), E(EDOTDOT), E(EBADMSG),
	E(EOVERFLOW), E(ENOTUNIQ), E(EBADFD), E(EREMCHG), E(ELIBACC),
	E(ELIBBAD), E(ELIBSCN), E(ELIBMAX), E(ELIBEXEC), E(EILSEQ),
	E(ERESTART), E(ESTRPIPE), E(EUSERS), E(ENOTSOCK), E(EDESTADDRREQ),
	E(EMSGSIZE), E(EPROTOTYPE), E(ENOPROTOOPT), E(EPROTONOSUPPORT),
	E(ESOCKTNOSUPPORT), E(EOPNOTSUPP), E(EPFNOSUPPORT), E(EAFNOSUPPORT),
	E(EADDRINUSE), E(EADDRNOTAVAIL), E(ENETDOWN), E(ENETUNREACH),
	E(ENETRESET), E(ECONNABORTED), E(ECONNRESET), E(ENOBUFS), E(EISCONN),
	E(ENOTCONN), E(ESHUTDOWN), E(ETOOMANYREFS), E(ETIMEDOUT),
	E(ECONNREFUSED), E(EHOSTDOWN), E(EHOSTUNREACH), E(EALREADY),
	E(EINPROGRESS), E(ESTALE), E(EUCLEAN), E(ENOTNAM), E(ENAVAIL),
	E(EISNAM), E(EREMOTEIO), E(EDQUOT), E(ENOMEDIUM), E(EMEDIUMTYPE),
	E(ECANCELED), E(ENOKEY), E(EKEYEXPIRED), E(EKEYREVOKED),
	E(EKEYREJECTED), E(EOWNERDEAD), E(ENOTRECOVERABLE), E(ERFKILL),
	E(EHWPOISON),
};

#define NERRNO (sizeof(errno_names) / sizeof(errno_names[0]))

/* Second names for numbers above, accepted in a policy, never written. */
static const struct {
	const char *name;
	int value;
} errno_aliases[] = {
	{ "EWOULDBLOCK", EWOULDBLOCK }, { "EDEADLOCK", EDEADLOCK },
	{ "ENOTSUP", ENOTSUP },
};

const char *cpol_errno_name(int e)
{
	if (e <= 0 || (size_t)e >= NERRNO)
		return NULL;
	return errno_names[e];
}

int cpol_errno_value(const char *name)
{
	size_t i;

	if (!name)
		return -1;
	for (i = 1; i < NERRNO; i++)
		if (errno_names[i] && strcmp(errno_names[i], name) == 0)
			return (int)i;
	for (i = 0; i < sizeof(errno_aliases) / sizeof(errno_aliases[0]); i++)
		if (strcmp(errno_aliases[i].name, name) == 0)
			return errno_aliases[i].value;
	return -1;
}

const char *cpol_action_name(uint32_t action, char *buf, size_t len)
{
	uint32_t data = action & BPF_ACT_DATA_MASK;
	const char *e;

	if ((action & BPF_ACT_FULL_MASK) != BPF_ACT_ERRNO)
		return bpf_action_str(action, buf, len);
	e = cpol_errno_name((int)data);
	if (e)
		snprintf(buf, len, "errno(%s)", e);
	else
		snprintf(buf, len, "errno(%u)", data);
	return buf;
}
