"""Helpers for the audit subcommand tests (test_audit*.py)."""
import json
import subprocess

# CL018 (a wildcard over http rules) is in a blob only: test_hosts_around.py
LINT_RULES = ["CL%03d" % i for i in (*range(18), 19)]

# Lint pairs whose -bad policy allows more than its -ok twin: diff of
# ok -> bad must exit 1 naming the subject, bad -> ok must exit 0.
WIDER_PAIRS = {
    "CL001": ("syscall", "ptrace"),
    "CL002": ("syscall", "personality"),
    "CL003": ("default", "action"),
    "CL004": ("path", "$WORKDIR"),
    "CL006": ("path", "/etc"),
    "CL007": ("env", "API_TOKEN"),
    "CL008": ("network", "8080"),
    "CL009": ("timeout", "timeout"),
    "CL010": ("limit", "nproc"),
    "CL011": ("layers", "best-effort"),
    "CL013": ("limit", "disk"),
}


def cordonc(binary, *args, check_rc=None):
    """Run cordonc; return (rc, stdout, stderr)."""
    p = subprocess.run([str(binary), *map(str, args)], capture_output=True,
                       text=True, timeout=120)
    if check_rc is not None:
        assert p.returncode == check_rc, (args, p.returncode, p.stdout,
                                          p.stderr)
    return p.returncode, p.stdout, p.stderr


def cordonc_json(binary, *args, check_rc=None):
    rc, out, err = cordonc(binary, *args, "--json", check_rc=check_rc)
    return rc, json.loads(out), err


def active(findings, rule):
    """Findings of a rule that are not suppressed."""
    return [f for f in findings if f["id"] == rule and not f["suppressed"]]
