/*
 * secret.h - the credential stores cordon and cordonc know, one table
 * (secret.c): the host's password and key files (/etc/shadow, /etc/ssh,
 * ...), stores found under any folder (.ssh, .aws, .netrc, ...), and
 * private key files by name (id_rsa, *.key, *key.pem, *.p12).  cordonc's
 * lint (CL006, compiler/query/pathq.c) flags a readable rule on one or
 * on an ancestor of one; cordon's advice for a Landlock denial
 * (launcher/auditsay.c) names the store instead of offering the rule.
 */
#ifndef CORDON_SECRET_H
#define CORDON_SECRET_H

/* The store path is, or lies beneath, or whose name it has (the table's
 * entry: "/etc/shadow", ".ssh", "*.key"), or NULL. */
const char *secret_path(const char *path);

/* A host store (an absolute entry) that path is or is an ancestor of:
 * "/etc/shadow" for "/etc/shadow" and for "/etc"; else NULL.  Not
 * /etc/ssl/private for /etc/ssl (secret.c says why). */
const char *secret_below(const char *path);

#endif
