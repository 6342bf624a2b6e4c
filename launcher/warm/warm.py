"""cordon's warm pool template (cordon --serve @NAME POLICY.cpol execs this).

argv: @NAME, the blob's absolute path, the index of the snippet in a run's
argv, the template's own directory, the pool's options (every spare's
set-up), "--", then the policy's preloads.  The lock on that directory
(launcher/warm/warmdir.c) is an inherited descriptor, kept open here and across
the re-executions, closed in spares; the directory is removed at the stop.

The template imports the preloads, exercises them once, freezes the
collector's generations, then serves runs on the abstract socket NAME
(SOCK_SEQPACKET, one connection and one message per run, from the same
uid only).  A request is NUL-separated words, the caller's directory,
then cordon options and operands after the policy (the snippet and its
arguments), with the caller's stdin, stdout, stderr (and a status
descriptor, given as --status-fd 3) passed by SCM_RIGHTS.  The protocol,
its messages and limits, is defined once, in warm.h; _cordon_warm
(pywarm.c) gives its numbers to these modules.

Runs are made ahead: SPARES at a time, each a fork of the pool's maker
(forked once from the template at its start: the template never forks
again, so its pages stay its own on the request path) that
calls cordon itself (_cordon_warm.run): every layer of a cold run is set
up there by cordon's own code, and only in the run, after seccomp, does
run() return here.  The run exercises the preloads again (its
copy-on-write faults and cold caches paid before any request), says "W"
on its fd 3 and waits for its arguments on its stdin (then end of file,
or, for a request with --stdin, the caller's stdin); cordon waits with
it (launcher/warm/warmhold.c) and says "R".  A request goes to a ready spare
(its words and descriptors; cordon parses and checks them), or waits for
one.  A request with options that change the set-up (--limit, --nice,
--idle, --keep-workdir, --resolve) gets a spare of its own, made for it
with the caller's stdio.  The template answers each request with
cordon's exit status ("X", 4 bytes, little endian) when that spare ends,
and re-executes itself (fresh memory layout, fresh imports) after
MAX_RUNS runs.  It stops on SIGTERM or, when its stdin is a pipe, at its
EOF: idle spares are told to go (their cordon cleans up), runs are ended
(cordon's SIGTERM handling).

The modules, one job each, next to this file:
  warm.py          this entry: the warm-up, the socket, the re-execution
  warm_preload.py  the preloads: imported, exercised, no import after
  warm_serve.py    the server loop: requests taken, queued, answered
  warm_request.py  a caller's request, its words sorted (run, set-up)
  warm_maker.py    the maker: spares forked, reaped, their ends said
  warm_spare.py    spares made, given their request
  warm_pace.py     whether a spare is exercised: the callers' pace
  warm_run.py      the run, inside the sandbox: ready, the arguments,
                   the snippet as __main__ (imports none of the server)

Nothing here reads a file after the preloads are imported: the template
never imports again (a meta path hook refuses it), so no run can make it
load anything.
"""

import gc
import os
import signal
import socket
import sys

# The extension and the template's modules: next to this file, never a
# run's (imported before the meta path hook, once).
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _cordon_warm  # noqa: E402
import warm_preload  # noqa: E402
from warm_serve import MakerGone, Pool, Stop  # noqa: E402
del sys.path[0]


def main():
    name, blob, at, home = sys.argv[1], sys.argv[2], int(sys.argv[3]), \
        sys.argv[4]
    dash = sys.argv.index("--", 5)
    opts, modules = sys.argv[5:dash], sys.argv[dash + 1:]
    _cordon_warm.harden()
    os.chdir(home)
    warm_preload.warm_up(modules)
    sys.stdout.flush()
    sys.stderr.flush()
    sys.meta_path.insert(0, warm_preload.NoImport())
    gc.collect()
    gc.freeze()
    _cordon_warm.huge()     # forks and exits: a PMD per 2 MiB (warmhuge.c)
    inherited = os.environ.pop("CORDON_WARM_FD", None)
    if inherited:
        lsock = socket.socket(fileno=int(inherited))
    else:
        lsock = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        lsock.bind("\0" + name[1:])
        lsock.listen(64)
    pool = Pool(name, blob, at, opts, lsock)
    try:
        pool.dispatch()
        if not inherited:
            sys.stderr.write("cordon: warm pool %s %s (%d preloads)\n"
                             % (name, _cordon_warm.READY_WORD, len(modules)))
            sys.stderr.flush()
        pool.serve()
    except Stop as e:
        code = 0
        try:
            if isinstance(e, MakerGone):
                raise
            pool.stop()
        except MakerGone:
            pool.broken()
            code = 125
        try:
            _cordon_warm.home_remove(home)
        except OSError as e:
            sys.stderr.write("cordon: warm pool %s: %s\n" % (name, e))
            sys.exit(125)
        sys.exit(code)
    # MAX_RUNS: a new template, same socket (a new layout, new imports).
    signal.set_wakeup_fd(-1)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    os.set_inheritable(lsock.fileno(), True)
    env = dict(os.environ, CORDON_WARM_FD=str(lsock.fileno()))
    os.execve(sys.executable, [sys.executable] + sys.orig_argv[1:], env)


if __name__ == "__main__":
    main()
