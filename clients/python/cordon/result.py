"""The result of one sandboxed run."""
from __future__ import annotations

import dataclasses
import enum
from typing import Any, Mapping

from .errors import CordonError
from .outputs import OutputFile, RefusedOutput


class Outcome(str, enum.Enum):
    """How the run ended (the status report's ``outcome``)."""
    EXITED = "exited"            # the snippet exited; see exit_code
    SIGNALED = "signaled"        # killed by a signal; see signal
    TIMEOUT = "timeout"          # wall-clock timeout (the whole tree ended)
    SECCOMP = "seccomp"          # killed by the seccomp filter (known)
    CPU_LIMIT = "cpu_limit"      # RLIMIT_CPU, checked against rusage
    FSIZE_LIMIT = "fsize_limit"  # older launchers only: now "signaled"
    OOM = "oom"                  # out of memory
    OUTPUT_LIMIT = "output_limit"  # the output passed the cap: run ended
    INTERRUPTED = "interrupted"  # cordon got SIGHUP/SIGINT/SIGTERM
    ERROR = "error"              # cordon's own failure

    @classmethod
    def parse(cls, value: Any) -> "Outcome | str":
        try:
            return cls(value)
        except ValueError:
            return str(value)     # a newer launcher's outcome: keep it


@dataclasses.dataclass(frozen=True)
class Layers:
    """The enforcement receipt: what cordon actually applied."""
    no_new_privs: bool = False
    seccomp: bool = False
    landlock_abi: int = 0
    landlock_errata: int = 0
    landlock_fs: bool = False
    landlock_net: bool = False
    scope_abstract_unix: bool = False
    scope_signal: bool = False
    caps_dropped: bool = False
    rlimits: bool = False
    env: bool = False
    fds_closed: bool = False
    new_session: bool = False
    namespaces: tuple[str, ...] = ()
    private_tmp: bool = False
    private_shm: bool = False
    workdir_noexec: bool = False
    raw: Mapping[str, Any] = dataclasses.field(default_factory=dict,
                                               repr=False)

    @classmethod
    def from_status(cls, d: Mapping[str, Any] | None) -> "Layers":
        if not isinstance(d, Mapping):
            return cls()
        kw: dict[str, Any] = {}
        for f in dataclasses.fields(cls):
            if f.name == "raw" or f.name not in d:
                continue
            v = d[f.name]
            if f.name == "namespaces":
                v = tuple(str(x) for x in v) if isinstance(v, list) else ()
            elif f.name in ("landlock_abi", "landlock_errata"):
                v = int(v) if isinstance(v, int) else 0
            else:
                v = v is True
            kw[f.name] = v
        return cls(raw=dict(d), **kw)


@dataclasses.dataclass(frozen=True)
class Denial:
    """One kind of system call the policy refused (the status report's
    ``denials``): ``call`` is decoded the way ``cordonc explain`` writes
    it, ``rule`` is the policy line that decided it ("file:line") or
    "default"; ``count`` is how many times the run made it; ``expected``
    is the policy's intent (a rule naming the call answers it ENOSYS so
    that callers fall back, as glibc does from clone3: cordon(1))."""
    syscall: str
    call: str
    action: str              # "errno(EAFNOSUPPORT)", "kill"
    rule: str
    count: int
    expected: bool = False

    @classmethod
    def from_status(cls, d: Any) -> "Denial | None":
        if not isinstance(d, Mapping):
            return None
        count = d.get("count")
        return cls(syscall=str(d.get("syscall", "")),
                   call=str(d.get("call", "")),
                   action=str(d.get("action", "")),
                   rule=str(d.get("rule", "")),
                   count=count if isinstance(count, int) else 0,
                   expected=d.get("expected") is True)


def denials_from_status(status: Mapping[str, Any]
                        ) -> "tuple[Denial, ...] | None":
    """The denials, or None when cordon could not observe them (no PID
    namespace, or an older launcher): never an empty tuple that would
    claim nothing was refused."""
    raw = status.get("denials")
    if not isinstance(raw, list):
        return None
    return tuple(x for x in (Denial.from_status(d) for d in raw)
                 if x is not None)


# The refusals that are the policy working as meant, never the snippet's
# failure: the one table, read by RunResult.summary() and cordon-mcp.
# Key: the kind of refusal; value: why it is expected, said to a model.
# Which refusals are of each kind is decided where the facts are:
# "denial" by cordon (a rule that names the call and answers it ENOSYS:
# the status's "expected"), "output" by outputs.py (a folder the
# policy's environment gives a library, BlobInfo.workdir_state).
EXPECTED_REFUSALS = {
    "denial": "a call the policy answers ENOSYS on purpose; the caller "
              "falls back (glibc's clone3 -> clone)",
    "output": "a library's state folder the policy's environment names "
              "(matplotlib's MPLCONFIGDIR .config): not an output",
}


@dataclasses.dataclass(frozen=True)
class NetworkRefusal:
    """One connection or request the egress proxy refused (the status
    report's ``network_refused``): ``dest`` is "host:port" (or "?",
    "(plain http)"), ``method`` and ``path`` the HTTP request it read
    ("" when none), ``why`` the proxy's reason ("not a host the policy
    names", "no address", "not a method and path the policy allows")."""
    dest: str
    why: str
    method: str = ""
    path: str = ""

    @classmethod
    def from_status(cls, d: Any) -> "NetworkRefusal | None":
        if not isinstance(d, Mapping):
            return None
        return cls(dest=str(d.get("dest", "?")), why=str(d.get("why", "?")),
                   method=str(d.get("method", "")),
                   path=str(d.get("path", "")))

    def __str__(self) -> str:
        req = f" ({self.method} {self.path})" if self.method else ""
        return f"{self.dest}{req}: {self.why}"


@dataclasses.dataclass(frozen=True)
class LandlockDenial:
    """One refusal of Landlock (the status report's
    ``landlock_denials``): ``access`` ("fs.read_file", "net.connect_tcp"),
    ``object`` the path or "address:port", ``add`` the rule to add or,
    starting "not advised: ", why none is offered (a credential file)."""
    access: str
    object: str
    add: str
    count: int = 1

    @classmethod
    def from_status(cls, d: Any) -> "LandlockDenial | None":
        if not isinstance(d, Mapping):
            return None
        n = d.get("count")
        return cls(access=str(d.get("access", "?")),
                   object=str(d.get("path", d.get("dest", "?"))),
                   add=str(d.get("add", "")),
                   count=n if isinstance(n, int) and
                   not isinstance(n, bool) else 1)

    def __str__(self) -> str:
        rule = self.add.startswith(("path ", "network "))
        return (f"{self.access} on {self.object} x{self.count}; "
                f"{'add: ' if rule else ''}{self.add}")


@dataclasses.dataclass(frozen=True)
class Timings:
    wall_ms: int = 0        # cordon's wall clock for the snippet
    user_ms: int = 0
    sys_ms: int = 0
    max_rss_kb: int = 0
    client_ms: float = 0.0  # the client's whole call: inputs to outputs


@dataclasses.dataclass(frozen=True)
class RunResult:
    tool: str
    outcome: Outcome | str
    reason: str
    exit_code: int           # cordon's exit status (see cordon(1))
    signal: int
    stdout: bytes = dataclasses.field(repr=False)
    stderr: bytes = dataclasses.field(repr=False)
    stdout_truncated: bool
    stderr_truncated: bool
    timings: Timings
    layers: Layers
    policy: str              # the policy name in the blob
    blob: str                # the blob's SHA-256 (hex)
    outputs: Mapping[str, OutputFile]
    refused: tuple[RefusedOutput, ...]
    status: Mapping[str, Any] = dataclasses.field(repr=False)
    # What the seccomp filter refused; None: not observed (see
    # denials_unobserved).  denials_dropped: calls past the table.
    denials: "tuple[Denial, ...] | None" = None
    denials_dropped: int = 0

    @property
    def denials_unobserved(self) -> tuple[str, ...]:
        """Kinds of refusal cordon could not see: "seccomp" (no
        listener), "seccomp-trap", "landlock"."""
        v = self.status.get("denials_unobserved")
        return tuple(str(x) for x in v) if isinstance(v, list) else (
            "seccomp", "landlock")

    @property
    def network_refused(self) -> tuple[NetworkRefusal, ...]:
        """What the egress proxy refused, in order (a policy with named
        hosts; empty otherwise).  network_refused_dropped: past the
        list."""
        v = self.status.get("network_refused")
        return tuple(x for x in (NetworkRefusal.from_status(d)
                                 for d in (v if isinstance(v, list) else ()))
                     if x is not None)

    @property
    def network_refused_dropped(self) -> int:
        v = self.status.get("network_refused_dropped")
        return v if isinstance(v, int) and not isinstance(v, bool) else 0

    @property
    def landlock_denials(self) -> "tuple[LandlockDenial, ...] | None":
        """What Landlock refused, with the rule to add; None: not
        observed (the kernel's audit is off or not cordon's to read, and
        the run was not made with watch=True: landlock_denials_reason in
        status says why)."""
        v = self.status.get("landlock_denials")
        if not isinstance(v, list):
            return None
        return tuple(x for x in (LandlockDenial.from_status(d) for d in v)
                     if x is not None)

    def summary(self) -> list[str]:
        """The refusals, one line each, as cordon-mcp and SnippetFailed
        say them: denials to fix, the proxy's refusals, the outputs not
        returned; the expected ones (EXPECTED_REFUSALS) on a line of
        their own that says why, never under "denied:"."""
        lines: list[str] = []
        fix = [d for d in self.denials or () if not d.expected]
        if fix:
            lines.append("denied: " + "; ".join(
                f"{d.call} -> {d.action} ({d.rule}) x{d.count}"
                for d in fix) + (f"; and {self.denials_dropped} more"
                                 if self.denials_dropped else ""))
        for ll in self.landlock_denials or ():
            lines.append(f"Landlock refused: {ll}")
        for n in self.network_refused:
            lines.append(f"network refused: {n}")
        if self.network_refused_dropped:
            lines.append(f"network refused: and {self.network_refused_dropped}"
                         " more")
        for ref in self.refused:
            if not ref.expected:
                lines.append(f"not returned: {ref.name}: {ref.reason}")
        exp = [f"{d.call} x{d.count}" for d in self.denials or ()
               if d.expected]
        if exp:
            lines.append(f"expected, not a failure: {', '.join(exp)} ("
                         f"{EXPECTED_REFUSALS['denial']})")
        exp = [ref.name for ref in self.refused if ref.expected]
        if exp:
            lines.append(f"expected, not a failure: {', '.join(exp)} ("
                         f"{EXPECTED_REFUSALS['output']})")
        return lines

    @property
    def ok(self) -> bool:
        """The snippet exited 0 within every limit."""
        return self.outcome == Outcome.EXITED and self.exit_code == 0

    @property
    def output_truncated(self) -> bool:
        return self.stdout_truncated or self.stderr_truncated

    def stdout_text(self, errors: str = "replace") -> str:
        return self.stdout.decode("utf-8", errors)

    def stderr_text(self, errors: str = "replace") -> str:
        return self.stderr.decode("utf-8", errors)

    def check(self) -> "RunResult":
        """Return self if ok, else raise SnippetFailed."""
        if not self.ok:
            raise SnippetFailed(self)
        return self


class SnippetFailed(CordonError):
    """Raised by RunResult.check() when the snippet did not succeed."""

    def __init__(self, result: RunResult) -> None:
        tail = result.stderr_text()[-2000:]
        said = "".join(f"\n{x}" for x in result.summary()
                       if not x.startswith("expected"))
        super().__init__(f"{result.tool}: {result.outcome}: {result.reason}"
                         + said + (f"\n{tail}" if tail else ""))
        self.result = result
