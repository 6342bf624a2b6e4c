#!/usr/bin/env python3
"""tools/facts.py - each fact written once (HACKING.md): a fact that has
its one home may not be written again elsewhere in the C sources (or, for
PY_RULES, in the Python client's modules).  Run by
`make layering` (part of `make check`).  Each rule: a pattern that is a
sure sign of a copy, the files allowed to hold it, and the fact's home.
Exits 1 naming every copy found."""
import os
import re
import sys

DIRS = ('common', 'compiler', 'launcher', 'grammar')
RULES = [
    # (pattern, files allowed, the fact's home)
    (r'\bstrerrorname_np\s*\(', set(),
     'errno names: common/action.c (cpol_errno_name)'),
    (r'"E(WOULDBLOCK|DEADLOCK|NOTSUP)"', {'common/action.c'},
     'errno aliases: common/action.c'),
    (r'"errno\(%', {'common/action.c', 'common/bpf.c'},
     'an action\'s spelling: common/action.c (cpol_action_name)'),
    (r'"KMGT"|\{\s*"K",|\{\s*"ms",', {'common/units.c'},
     'size and time units: common/units.c'),
    (r'rlwcdxuvts|\{\s*\'r\',\s*CORDON_LL', {'common/llrights.c'},
     'the trace\'s right letters: common/llrights.c'),
    (r'#\s*define\s+\w+_RIGHTS\s|\b0x7ff2\b|\b0xffffull\b|'
     r'#\s*define\s+\w*_(READ|WRITE|CREATE|REMOVE)\s+\(CORDON_LL_FS',
     {'common/llrights.h'},
     'groups of Landlock rights: common/llrights.h'),
    (r'#\s*define\s+EXIT_(POLICY|USAGE)\b|getopt\w*\(.*"[^"]*D:',
     {'compiler/cliopt.h'},
     '-D and cordonc\'s exit statuses: compiler/cliopt.h'),
    (r'"sendmmsg"\s*\)|\{\s*"sendmmsg",\s*TABLES', {'compiler/names/tables_syscalls.c'},
     'the network statement\'s syscalls: names/ (tables_net_owner)'),
    (r'#\s*define\s+\w*VERSION\w*\s+"[^"]*\d+\.\d+', set(),
     'the version: VERSION (Makefile: CORDON_VERSION)'),
]

# The same for the client's Python (comments are code here: a '#' line
# is skipped only where it starts the line).
PY_DIRS = ('clients/python/cordon',)
PY_RULES = [
    (r'CORDONSESSION|b"[CI]%0\d*x', {'clients/python/cordon/_sessiondrv.py'},
     'the session protocol: clients/python/cordon/_sessiondrv.py'),
]


def sources(top, dirs=DIRS, exts=('.c', '.h', '.l', '.y')):
    for d in dirs:
        for base, _, files in os.walk(os.path.join(top, d)):
            for f in sorted(files):
                if f.endswith(exts):
                    yield os.path.relpath(os.path.join(base, f), top)


def main():
    top = sys.argv[1] if len(sys.argv) > 1 else '.'
    found = []
    for path in sources(top):
        with open(os.path.join(top, path), encoding='utf-8') as f:
            lines = f.read().split('\n')
        for n, line in enumerate(lines, 1):
            code = re.sub(r'/\*.*?(\*/|$)|//.*$', '', line)
            if re.match(r'\s*\*', code):      # inside a block comment
                continue
            for pat, allowed, home in RULES:
                if path not in allowed and re.search(pat, code):
                    found.append(f'{path}:{n}: a copy of a fact whose '
                                 f'home is {home}\n    {line.strip()}')
    for path in sources(top, PY_DIRS, ('.py',)):
        with open(os.path.join(top, path), encoding='utf-8') as f:
            lines = f.read().split('\n')
        for n, line in enumerate(lines, 1):
            if line.lstrip().startswith('#'):
                continue
            for pat, allowed, home in PY_RULES:
                if path not in allowed and re.search(pat, line):
                    found.append(f'{path}:{n}: a copy of a fact whose '
                                 f'home is {home}\n    {line.strip()}')
    for f in found:
        print(f'facts: {f}', file=sys.stderr)
    if found:
        return 1
    print(f'facts: ok ({len(RULES) + len(PY_RULES)} facts, each written '
          f'once)')
    return 0


if __name__ == '__main__':
    sys.exit(main())
