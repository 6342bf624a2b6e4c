/* secret.c - the credential stores (see secret.h). */
#include <string.h>

#include "secret.h"

/* The host's own: password hashes, sudo's rules, host and TLS keys;
 * above: also flagged on a folder above it (not /etc/ssl/private: its
 * parent holds the CA certificates a run reads, and it is root's 0700). */
static const struct { const char *path; int above; } host[] = {
	{ "/etc/shadow", 1 }, { "/etc/gshadow", 1 }, { "/etc/shadow-", 1 },
	{ "/etc/gshadow-", 1 }, { "/etc/sudoers", 1 }, { "/etc/ssh", 1 },
	{ "/etc/ssl/private", 0 },
};
/* Credential stores wherever they are (path components). */
static const char *const stores[] = {
	".ssh", ".aws", ".gnupg", ".kube", ".docker", ".netrc", ".env",
	".git-credentials", ".pgpass", ".config/gcloud",
};
/* Private key files by name: whole names, then endings. */
static const char *const key_names[] = {
	"id_rsa", "id_dsa", "id_ecdsa", "id_ed25519", "id_ecdsa_sk",
	"id_ed25519_sk",
};
static const char *const key_ends[] = {
	".key", "key.pem", ".p12", ".pfx",
};
static const char *const key_ends_shown[] = {
	"*.key", "*key.pem", "*.p12", "*.pfx",
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* 1 if a is b or a folder above it. */
static int covers(const char *a, const char *b)
{
	size_t n = strlen(a);

	if (n == 1 && a[0] == '/')
		return b[0] == '/';
	return strncmp(a, b, n) == 0 && (b[n] == '\0' || b[n] == '/');
}

static const char *store_in(const char *path)
{
	size_t i, n;

	for (i = 0; i < COUNT(stores); i++) {
		const char *s = path;

		n = strlen(stores[i]);
		while ((s = strstr(s, stores[i])) != NULL) {
			if (s > path && s[-1] == '/' &&
			    (s[n] == '\0' || s[n] == '/'))
				return stores[i];
			s++;
		}
	}
	return NULL;
}

static const char *key_file(const char *path)
{
	const char *base = strrchr(path, '/');
	size_t i, n, k;

	base = base ? base + 1 : path;
	n = strlen(base);
	for (i = 0; i < COUNT(key_names); i++)
		if (strcmp(base, key_names[i]) == 0)
			return key_names[i];
	for (i = 0; i < COUNT(key_ends); i++) {
		k = strlen(key_ends[i]);
		if (n > k && strcmp(base + n - k, key_ends[i]) == 0)
			return key_ends_shown[i];
	}
	return NULL;
}

const char *secret_path(const char *path)
{
	size_t i;
	const char *s;

	for (i = 0; i < COUNT(host); i++)
		if (covers(host[i].path, path))
			return host[i].path;
	s = store_in(path);
	return s ? s : key_file(path);
}

const char *secret_below(const char *path)
{
	size_t i;

	for (i = 0; i < COUNT(host); i++)
		if (host[i].above && covers(path, host[i].path))
			return host[i].path;
	return NULL;
}
