"""A Python subprocess launcher of the kind applications use today.

rlimits in preexec_fn, an empty environment, stdin from /dev/null, output
captured, a fresh session, a temporary working directory (the snippet, if
any, copied into it), a timeout.  This is the baseline cordon replaces;
the bench times it both warm (launch() called in a running interpreter,
as an application server does) and cold (this file as a program).

    python3 pylaunch.py [--snippet FILE] COMMAND [ARG...]
"""

import os
import resource
import shutil
import subprocess
import sys
import tempfile

LIMITS = (
    (resource.RLIMIT_CPU, 30),
    (resource.RLIMIT_AS, 4 << 30),
    (resource.RLIMIT_FSIZE, 256 << 20),
    (resource.RLIMIT_NOFILE, 256),
    (resource.RLIMIT_CORE, 0),
)


def _limits():
    for res, value in LIMITS:
        resource.setrlimit(res, (value, value))


def launch(argv, snippet=None, timeout=60):
    """Run argv; "$SNIPPET" in argv names the copied snippet.  Returns the
    exit status (negative: killed by that signal)."""
    with tempfile.TemporaryDirectory(prefix="pylaunch-") as tmp:
        if snippet is not None:
            copy = os.path.join(tmp, os.path.basename(snippet))
            shutil.copyfile(snippet, copy)
            argv = [copy if a == "$SNIPPET" else a for a in argv]
        proc = subprocess.run(argv, env={}, cwd=tmp, preexec_fn=_limits,
                              stdin=subprocess.DEVNULL, capture_output=True,
                              timeout=timeout, start_new_session=True,
                              check=False)
    return proc.returncode


def main(args):
    snippet = None
    if len(args) >= 2 and args[0] == "--snippet":
        snippet, args = args[1], args[2:]
    if not args:
        print(__doc__.strip().splitlines()[-1].strip(), file=sys.stderr)
        return 2
    rc = launch(args, snippet)
    return rc if rc >= 0 else 128 - rc


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
