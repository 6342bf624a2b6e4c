"""Finding the launcher, the compiler and the compiled policies with no
configuration, and making every path the client is given absolute (cordon
runs in another directory than the caller's).

The launcher: ``cordon=``, else $CORDON_BIN, else ``cordon`` on PATH.
The policies: ``policy_dir=``, else $CORDON_POLICY_DIR, else beside the
launcher: ``DIR/policies`` (a build tree: build/cordon, build/policies)
or ``DIR/../share/cordon/policies`` (installed: PREFIX/bin/cordon,
PREFIX/share/cordon/policies), for the launcher's path as found and, if
it is a symbolic link, for its target too.
"""
from __future__ import annotations

import os
import shutil
from typing import Sequence

from .errors import ConfigError

def absolute(path: "str | os.PathLike[str]") -> str:
    """An absolute path (not resolved: links are the caller's to keep)."""
    return os.path.abspath(os.path.expanduser(os.fspath(path)))


def _which(name: str) -> tuple[str | None, str]:
    path = os.environ.get("PATH", os.defpath)
    return shutil.which(name, path=path), path


def binary(name: str, env_var: str, given: "str | os.PathLike[str] | None",
           what: str, required: bool = True) -> str | None:
    """Find a program: given, else $env_var, else PATH; absolute."""
    if given:
        found, source = absolute(given), f"{name}="
    elif os.environ.get(env_var):
        found, source = absolute(os.environ[env_var]), f"${env_var}"
    else:
        hit, path = _which(name)
        if not hit:
            if not required:
                return None
            raise ConfigError(
                f"{what} not found: looked for {name}= (not given), "
                f"${env_var} (unset) and '{name}' on PATH ({path}); "
                f"install cordon (make install, the Debian package) or "
                f"pass {name}=")
        found, source = absolute(hit), "PATH"
    if not (os.path.isfile(found) and os.access(found, os.X_OK)):
        raise ConfigError(f"{what} {found} (from {source}) is not an "
                          "executable file")
    return found


def _beside(launcher: str) -> list[str]:
    """Where the compiled policies sit next to a launcher."""
    out: list[str] = []
    for exe in (launcher, os.path.realpath(launcher)):
        d = os.path.dirname(exe)
        for cand in (os.path.join(d, "policies"),
                     os.path.normpath(os.path.join(
                         d, os.pardir, "share", "cordon", "policies"))):
            if cand not in out:
                out.append(cand)
    return out


def policy_dir(given: "str | os.PathLike[str] | None",
               launcher: str) -> str:
    """The folder of compiled policies (TOOL.cpol), absolute."""
    if given or os.environ.get("CORDON_POLICY_DIR"):
        source = "policy_dir=" if given else "$CORDON_POLICY_DIR"
        d = absolute(given or os.environ["CORDON_POLICY_DIR"])
        if not os.path.isdir(d):
            raise ConfigError(f"policy folder {d} (from {source}) is not "
                              "a directory")
        return d
    tried = _beside(launcher)
    for d in tried:
        if os.path.isdir(d):
            return d
    raise ConfigError(
        "no policy folder: policy_dir= not given, $CORDON_POLICY_DIR "
        f"unset, and none beside the launcher {launcher}: looked in "
        + ", ".join(tried))


def absolutes(paths: Sequence["str | os.PathLike[str]"]) -> tuple[str, ...]:
    return tuple(absolute(p) for p in paths)
