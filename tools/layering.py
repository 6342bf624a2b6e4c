#!/usr/bin/env python3
"""layering.py - the rules the compiler's tree keeps (HACKING.md), checked.

usage: layering.py OBJECT... [--cordon MAP]
       (the compiler's, the launcher's and common/'s objects, for call
       edges; the link map of the program cordon, for its size)

Fails (exit 1, one line per breach) when:
  - a compiler file includes a header of a folder its folder may not use
    (DEPENDS), or a header of another folder that is not that folder's
    public face (PUBLIC);
  - the compiler's headers include each other in a circle;
  - the same for the launcher's rooms (LAUNCHER_DEPENDS, LAUNCHER_PUBLIC),
    and the cold core includes pool.h only in main.c (LAUNCHER_ONLY);
  - two headers in common/, compiler/ and launcher/ share a base name;
  - the compiler's objects, the launcher's, or common/'s, call each
    other in a circle (file level, from nm: a defines what b uses and b
    defines what a uses, or longer);
  - <seccomp.h> is included outside backend/ and names/tables_syscalls.c;
  - a function in compiler/, common/ or launcher/ is over 80 lines, or a
    .c file there over 600;
  - the program cordon (what a plain cold run executes: the objects its
    link map names) is made of more than CORDON_MAX_LINES lines of C,
    counted as whole files: each object's source and every header of
    the tree it includes (from the compiler's .d files);
  - a module of the warm pool's Python (launcher/warm/*.py) imports one
    of the folder's modules WARM_PY_IMPORTS does not allow it, or is over
    600 lines, or has a function over 80;
  - the Python modules of a folder in PY_PACKAGES (the client,
    clients/python/cordon, and launcher/warm) import each other in a
    circle: every import counts, at the top, in a function or under
    TYPE_CHECKING, but for a module's own `if __name__ == "__main__":`
    block (it runs as __main__, another module object);
  - a PURE object (the plan and the files it decides through) reaches,
    through the objects it calls, a function outside them that is not in
    PURE_LIBC: the plan makes no system call (tests/unit/test_plan.c
    links only these);
  - a file of MAPPED's folders (their path below the folder), or an
    entry at the top of the tree, is not named between backquotes in
    HACKING.md's map (git ls-files; skipped outside a git checkout).
Reads files and runs nm; writes nothing.
"""
import ast
import os
import re
import subprocess
import sys

ROOT = 'compiler'
# folder -> the folders it may include from (common/ and the generated
# grammar headers are open to all).  "top" is compiler/*.[ch]: the driver
# (input.c) and main.c.
DEPENDS = {
    'names': [],
    'io': [],
    'front': ['names'],
    'check': ['front', 'names', 'query'],
    'backend': ['names'],
    'explain': ['names', 'io'],
    'query': ['names'],
    'top': ['front', 'check', 'backend', 'names', 'io', 'explain',
            'audit', 'oci', 'learn'],
    'audit': ['top', 'query', 'explain', 'names', 'io', 'check', 'front'],
    'oci': ['top', 'query', 'explain', 'names', 'io', 'check', 'front'],
    'learn': ['top', 'query', 'explain', 'names', 'io', 'check', 'front'],
}
# folder -> its public headers: all another folder may include.
PUBLIC = {
    'front': {'parse.h'},
    'check': {'check.h'},
    'names': {'tables.h'},
    'backend': {'emit.h', 'validate.h'},
    'explain': {'explain.h', 'explain_fmt.h'},
    'query': {'sysq.h', 'pathq.h'},
    'audit': {'auditcmd.h'},
    'oci': {'oci.h'},
    'learn': {'learn.h'},
    'io': {'jsonout.h', 'json_read.h'},
    'top': {'input.h', 'compile.h', 'cliopt.h'},
}
# The launcher's rooms (launcher/build.mk): "top" is launcher/*.[ch], the
# cold core with main.c and opts.c; the egress proxy, warm pools and the
# modes that watch a run's calls (learn/) each show the rest one header.
# shm/ is libcordon-shm.so, a library of the run's (preloaded into it):
# it uses nothing of cordon's, and shows cordon the names both use.
LAUNCHER_DEPENDS = {
    'top': ['egress', 'warm', 'learn', 'shm'],
    'kaudit': ['top'],
    'egress': ['top'],
    'warm': ['top'],
    'learn': ['top'],
    'shm': [],
}
LAUNCHER_PUBLIC = {
    'top': {'cordon.h', 'kaudit.h', 'plan.h', 'filter.h', 'supervise.h'},
    'egress': {'egress.h'},
    'warm': {'pool.h'},
    'learn': {'learnmode.h'},
    'shm': {'shm.h'},
    'kaudit': set(),
}
# The cold core never calls into a warm pool: main.c composes them (a
# spare's hold step is launch()'s hook, opts.hold); only it may include
# pool.h (what the core sees of warm pools; warm.h is the pool's own)
# among the core's files.
LAUNCHER_ONLY = {'pool.h': {'launcher/main.c'}}
# The warm pool's Python (launcher/warm/): which of the folder's modules
# each may import.  warm_run.py runs inside the sandbox: nothing of the
# server's (warm_serve, warm_maker, warm_spare, warm_request) may come
# with it.
WARM_PY = 'launcher/warm'
WARM_PY_IMPORTS = {
    'warm': {'_cordon_warm', 'warm_preload', 'warm_serve'},
    'warm_serve': {'_cordon_warm', 'warm_spare', 'warm_request',
                   'warm_pace', 'warm_maker'},
    'warm_pace': set(),
    'warm_maker': {'_cordon_warm', 'warm_spare'},
    'warm_spare': {'_cordon_warm', 'warm_run'},
    'warm_request': {'_cordon_warm'},
    'warm_run': {'_cordon_warm', 'warm_preload'},
    'warm_preload': {'_cordon_warm'},
}
# folder -> the package name its modules are imported under ('' for a
# folder of top-level modules): their imports of each other must not
# make a circle.
PY_PACKAGES = {'clients/python/cordon': 'cordon', WARM_PY: ''}
# The plan and the files it decides through: no system call, at any
# depth (their calls into common/ included); PURE_LIBC is the C library
# they may use (no system call behind any of it).
PURE = ('launcher/plan.o', 'launcher/limits.o', 'launcher/llplan.o',
        'launcher/filter.o')
PURE_LIBC = {
    'snprintf', '__snprintf_chk', 'vsnprintf', '__vsnprintf_chk', 'strlen',
    'strcmp',
    'strncmp', 'strchr', 'strstr', 'strspn', 'strcasecmp', 'memcpy',
    'memset', 'memcmp', 'bcmp', 'memchr', 'calloc', 'malloc', 'realloc',
    'free',
    'inet_ntop', 'inet_pton', '__stack_chk_fail', '__errno_location',
    '__executable_start', 'etext',
}
# A sanitizer's own calls (make sanitize's build): its checks, not the
# plan's; they make no system call on the plan's behalf.
SANITIZER_PREFIXES = ('__asan_', '__ubsan_', '__sanitizer_', '__lsan_')
# The folders whose every file HACKING.md names (by its path below the
# folder), and the map.
MAPPED = ('common', 'launcher', 'clients/python/cordon', 'tools', 'grammar')
MAP = 'HACKING.md'
MAX_FILE_LINES = 600
# The program cordon, the plain cold core (features are programs of their
# own: launcher/companion.c), in lines of C, whole files and headers: the
# figure it has, so that it cannot grow unseen (18,923 before the rooms
# left it; 14,719 after; 15,346 once the plan decided alone and issue
# 41's messages, the payload's pid, nscause.c, nsprobe.c and supervise.h came in;
# 15,444 with a run without namespaces given its semaphores in its workdir
# (shmredirect.c, shm.h: used by the plain cold run in a pod) and the
# watch's mapped files held open); 15,189 once egress.h kept only what
# the core sees (the proxy's own header is proxy.h, which no object of
# cordon includes); 15,239 with a pod's root told why its run's uid map
# is refused (nscause.c: CAP_SETFCAP); 15,243 with one capability
# check for it and the run's drop (run.c: run_cap_held); 15,138 once the
# core saw warm pools through pool.h, not the pool's own warm.h; 14,823
# once the reader of the kernel's audit records was a room of its own
# (kaudit/: cordon-audit).  Issue 40 asks for 8,000: that
# needs the core's own rooms and headers.
CORDON_MAX_LINES = 14823
SECCOMP_OK = ('compiler/backend/', 'compiler/names/tables_syscalls.c')
MAX_FUNCTION_LINES = 80
INCLUDE = re.compile(r'^\s*#\s*include\s+([<"])([^">]+)[">]', re.M)


def folder(path):
    parts = path.split('/')
    return parts[1] if len(parts) > 2 else 'top'


def sources(dirs, exts):
    out = []
    for d in dirs:
        for base, _, files in os.walk(d):
            out += [os.path.join(base, f) for f in files if f.endswith(exts)]
    return sorted(out)


def includes(path):
    with open(path, encoding='utf-8') as f:
        return INCLUDE.findall(f.read())


def check_includes(files, errors, depends=None, public=None):
    depends = DEPENDS if depends is None else depends
    public = PUBLIC if public is None else public
    where = {os.path.basename(f): f for f in files if f.endswith('.h')}
    graph = {}
    for f in files:
        mine = folder(f)
        graph[f] = []
        for kind, name in includes(f):
            if kind == '<':
                if name == 'seccomp.h' and not f.startswith(SECCOMP_OK):
                    errors.append(f'{f}: <seccomp.h> outside backend/')
                continue
            h = where.get(name)
            if not h:
                continue        # common/ or generated
            graph[f].append(h)
            theirs = folder(h)
            if theirs == mine:
                continue
            if theirs not in depends.get(mine, []):
                errors.append(f'{f}: includes {h}: {mine}/ may not use '
                              f'{theirs}/')
            elif name not in public.get(theirs, set()):
                errors.append(f'{f}: includes {h}: not the public face '
                              f'of {theirs}/')
    for cyc in circles({k: v for k, v in graph.items() if k.endswith('.h')}):
        errors.append('include circle: ' + ' -> '.join(cyc))


def circles(graph):
    """Strongly connected components with more than one node (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph.get(v, []):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


_SYMBOLS = {}


def object_symbols(o):
    """An object's defined and undefined symbols (nm), read once: the call
    and purity checks both ask."""
    if o not in _SYMBOLS:
        out = subprocess.run(['nm', o], capture_output=True, text=True,
                             check=True).stdout
        defs, uses = set(), set()
        for line in out.splitlines():
            f = line.split()
            if len(f) == 3 and f[1] in 'TDBR':
                defs.add(f[2])
            elif len(f) == 2 and f[0] == 'U':
                uses.add(f[1])
        _SYMBOLS[o] = (defs, uses)
    return _SYMBOLS[o]


def check_calls(objects, errors):
    defs = {o: object_symbols(o)[0] for o in objects}
    uses = {o: object_symbols(o)[1] for o in objects}
    owner = {s: o for o, d in defs.items() for s in d}
    graph = {o: sorted({owner[s] for s in uses[o] if s in owner} - {o})
             for o in objects}
    for cyc in circles(graph):
        errors.append('call circle: ' + ' -> '.join(cyc))


def check_only(files, errors):
    for f in files:
        if folder(f) != 'top':
            continue
        for _, name in includes(f):
            allowed = LAUNCHER_ONLY.get(name)
            if allowed is not None and f not in allowed:
                errors.append(f'{f}: includes {name}: only '
                              f'{", ".join(sorted(allowed))} may')


def check_warm_python(errors):
    """launcher/warm/*.py: each module imports only the folder's modules
    WARM_PY_IMPORTS allows it (any other import is the standard library's
    or the preloads'); every module is listed; files within
    MAX_FILE_LINES, functions within MAX_FUNCTION_LINES."""
    own = set(WARM_PY_IMPORTS) | {'_cordon_warm'}
    for f in sources([WARM_PY], ('.py',)):
        name = os.path.basename(f)[:-3]
        with open(f, encoding='utf-8') as fh:
            text = fh.read()
        tree = ast.parse(text, f)
        if name not in WARM_PY_IMPORTS:
            errors.append(f'{f}: not in WARM_PY_IMPORTS')
            continue
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name.split('.')[0] for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module.split('.')[0]]
            for n in names:
                if n in own and n not in WARM_PY_IMPORTS[name]:
                    errors.append(f'{f}:{node.lineno}: imports {n}')
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                n = node.end_lineno - node.lineno + 1
                if n > MAX_FUNCTION_LINES:
                    errors.append(f'{f}:{node.lineno}: function of {n} '
                                  f'lines (over {MAX_FUNCTION_LINES})')
        n = text.count('\n')
        if n > MAX_FILE_LINES:
            errors.append(f'{f}: {n} lines (over {MAX_FILE_LINES})')


def py_imports(tree, mods, package):
    """The modules of MODS that TREE imports (a package's own modules by
    relative or absolute import; '__init__' for the package itself),
    leaving out a module-level `if __name__ == "__main__":` block."""
    nodes = []
    for top in tree.body:
        t = getattr(top, 'test', None)
        if isinstance(top, ast.If) and isinstance(t, ast.Compare) and \
                isinstance(t.left, ast.Name) and t.left.id == '__name__':
            continue
        nodes += list(ast.walk(top))
    out = set()
    for node in nodes:
        if isinstance(node, ast.Import):
            for a in node.names:
                parts = a.name.split('.')
                if package and parts[0] == package:
                    out.add(parts[1] if len(parts) > 1 else '__init__')
                elif not package and parts[0] in mods:
                    out.add(parts[0])
        elif isinstance(node, ast.ImportFrom):
            parts = (node.module or '').split('.')
            if node.level == 1 or (package and node.level == 0 and
                                   parts[0] == package):
                sub = parts[0] if node.level == 1 else \
                    (parts[1] if len(parts) > 1 else '')
                if sub:
                    out.add(sub)
                else:
                    out |= {a.name if a.name in mods else '__init__'
                            for a in node.names}
            elif node.level == 0 and not package and parts[0] in mods:
                out.add(parts[0])
    return out & mods


def check_py_circles(errors, packages=None):
    for d, package in (packages or PY_PACKAGES).items():
        files = [f for f in sources([d], ('.py',))
                 if os.path.dirname(f) == d]
        mods = {os.path.basename(f)[:-3] for f in files}
        graph = {}
        for f in files:
            with open(f, encoding='utf-8') as fh:
                tree = ast.parse(fh.read(), f)
            graph[os.path.basename(f)[:-3]] = sorted(
                py_imports(tree, mods, package))
        for cyc in circles(graph):
            errors.append(f'import circle in {d}: ' + ' -> '.join(cyc))


def check_pure(objects, errors):
    """Every function a PURE object reaches is in a PURE object, in an
    object it reaches, or in PURE_LIBC."""
    defs = {o: object_symbols(o)[0] for o in objects}
    uses = {o: object_symbols(o)[1] for o in objects}
    owner = {s: o for o, d in defs.items() for s in d}
    todo = [o for o in objects if o.endswith(PURE) and '/warm/' not in o]
    seen = set(todo)
    while todo:
        o = todo.pop()
        for s in sorted(uses[o]):
            if s in owner:
                if owner[s] not in seen:
                    seen.add(owner[s])
                    todo.append(owner[s])
            elif s not in PURE_LIBC and not s.startswith(
                    SANITIZER_PREFIXES):
                errors.append(f'{o}: the plan\'s pure code calls {s} '
                              f'(not in PURE_LIBC)')
    for o in sorted(seen):
        if '/launcher/' in o and not o.endswith(PURE):
            errors.append(f'{o}: reached from the plan, not one of PURE')


def check_map(errors):
    """Every file of MAPPED and every top-level entry is named in MAP."""
    try:
        out = subprocess.run(['git', 'ls-files'], capture_output=True,
                             text=True, check=True).stdout.split('\n')
    except (OSError, subprocess.CalledProcessError):
        return                  # not a checkout (a copy for make deb)
    with open(MAP, encoding='utf-8') as fh:
        named = set(re.findall(r'`([^`\n]+)`', fh.read()))
    named |= {n.rstrip('/') for n in named}
    tops = {n.split('/')[0] for n in named}
    missing = []
    for f in sorted(filter(None, out)):
        if not os.path.exists(f):
            continue            # removed, not yet staged
        top = f.split('/')[0]
        if top not in tops and f'the map does not name {top}' not in missing:
            missing.append(f'the map does not name {top}')
        for d in MAPPED:
            if f.startswith(d + '/') and f[len(d) + 1:] not in named:
                missing.append(f'the map does not name {f} (as '
                               f'`{f[len(d) + 1:]}`)')
    errors += [f'{MAP}: {m}' for m in missing]


def check_unique_headers(files, errors):
    """Every folder is on the include path: a header's base name must say
    which header it is (a second audit.h would be found first by some
    files and not others)."""
    seen = {}
    for f in files:
        b = os.path.basename(f)
        if b in seen:
            errors.append(f'{f}: a second {b} (first {seen[b]})')
        seen.setdefault(b, f)


def check_lengths(files, errors):
    for f in files:
        with open(f, encoding='utf-8') as fh:
            lines = fh.read().split('\n')
        if len(lines) - 1 > MAX_FILE_LINES:
            errors.append(f'{f}: {len(lines) - 1} lines (over '
                          f'{MAX_FILE_LINES})')
        start = None
        for i, line in enumerate(lines):
            if line == '{':
                start = i
            elif line.startswith('}') and start is not None:
                if i - start - 1 > MAX_FUNCTION_LINES:
                    errors.append(f'{f}:{start}: function of {i - start - 1}'
                                  f' lines (over {MAX_FUNCTION_LINES})')
                start = None


def program_lines(objects):
    """Lines of the files a program is built from: each object's source
    and the tree's headers it includes (the .d file beside it; a system
    header, an absolute path, is not the tree's)."""
    files = set()
    for o in objects:
        with open(o[:-2] + '.d', encoding='utf-8') as f:
            head = f.read().replace('\\\n', ' ').split('\n')[0]
        files.update(p for p in head.split(':', 1)[1].split()
                     if not p.startswith('/'))
    total = 0
    for p in files:
        with open(p, encoding='utf-8') as f:
            total += f.read().count('\n')
    return total


def map_objects(path):
    """The tree's objects a link map says the linker used: each object
    given (LOAD) and each archive member it pulled in, as its object's
    path; the C library's (absolute paths) are not the tree's."""
    objs = set()
    member = re.compile(r'^(\S+\.a)\((\S+\.o)\)')
    with open(path, encoding='utf-8') as f:
        for line in f:
            if line.startswith('LOAD ') and line.rstrip().endswith('.o'):
                objs.add(line.split()[1])
            m = member.match(line)
            if m:
                objs.add(os.path.join(os.path.dirname(m.group(1)),
                                      m.group(2)))
    return sorted(o for o in objs if not o.startswith('/'))  # the tree's


def check_cordon(link_map, errors):
    if not link_map:
        return None
    n = program_lines(map_objects(link_map[0]))
    if n > CORDON_MAX_LINES:
        errors.append(f'the program cordon: {n} lines of C (over '
                      f'{CORDON_MAX_LINES}): a feature that a plain cold '
                      f'run does not use belongs in a program of its own '
                      f'(launcher/companion.c)')
    return n


def main(argv):
    errors = []
    cordon = []
    if '--cordon' in argv:
        cordon = argv[argv.index('--cordon') + 1:]
        argv = argv[:argv.index('--cordon')]
    lines = check_cordon(cordon, errors)
    check_includes(sources([ROOT], ('.c', '.h')), errors)
    check_includes(sources(['launcher'], ('.c', '.h')), errors,
                   LAUNCHER_DEPENDS, LAUNCHER_PUBLIC)
    check_only(sources(['launcher'], ('.c', '.h')), errors)
    check_warm_python(errors)
    check_py_circles(errors)
    check_map(errors)
    check_unique_headers(sources(['common', ROOT, 'launcher'], ('.h',)),
                         errors)
    for part in ('/compiler/', '/launcher/', '/common/'):
        check_calls([o for o in argv[1:] if part in o], errors)
    check_pure([o for o in argv[1:] if '/launcher/' in o or
                '/common/' in o], errors)
    check_lengths(sources([ROOT, 'common', 'launcher'], ('.c',)), errors)
    for e in errors:
        print('layering: ' + e)
    if errors:
        return 1
    print('layering: ok (folders, public headers, no include or call '
          'circle, files within %d lines, functions within %d; the warm '
          'pool\'s Python; no Python import circle; the plan makes no '
          'system call; HACKING.md names every file)' % (MAX_FILE_LINES,
          MAX_FUNCTION_LINES))
    if lines is not None:
        print('layering: the program cordon: %d lines of C (at most %d)'
              % (lines, CORDON_MAX_LINES))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
