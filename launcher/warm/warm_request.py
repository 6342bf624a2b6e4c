"""A caller's request, as the template reads it (cordon --serve,
launcher/warm/warm.py; the protocol: warm.h).  Its words are sorted
into the run's options (the spare's cordon takes them), set-up options
(a spare of its own) and operands; cordon parses and checks them again
with its own parser (warmhold.c)."""

import os

import _cordon_warm

# The options of a warm request, from cordon's own table: name -> (takes
# a value, kind).  "run" options are the run's (warmhold.c takes them);
# "setup" ones need a spare made for the request; any other is refused
# here (and would be by cordon).
OPTIONS = _cordon_warm.options()
STATUS_WORD = b"%d\0" % _cordon_warm.STATUS_FD


def split_request(buf, spans):
    """A request's words after the caller's directory (spans of buf, each
    NUL-ended) -> (set-up options, run options, operands).  An option is
    (name, its value's span or None); operands are spans.  Nothing of the
    caller's is copied: words are compared in place."""
    setup, go, i = [], [], 0
    while i < len(spans):
        s, e = spans[i]
        if buf[s] != 0x2d or e - s == 2:        # an operand, or "-"
            break
        i += 1
        if buf.startswith(b"--\0", s):
            break
        name, value = option_at(buf, s, e)
        takes, kind = OPTIONS[name]
        if takes and value is None:
            if i >= len(spans):
                raise ValueError(name + " needs a value")
            value, i = spans[i], i + 1
        if name == "--status-fd" and not buf.startswith(STATUS_WORD,
                                                        value[0]):
            raise ValueError("--status-fd must be %d"
                             % _cordon_warm.STATUS_FD)
        (go if kind == "run" else setup).append((name, value))
    if i >= len(spans):
        raise ValueError("no snippet")
    return setup, go, spans[i:]


def option_at(buf, s, e):
    """The option (of OPTIONS) the word at s..e names, and the span of
    its "=value" (or None)."""
    for name, (takes, _) in OPTIONS.items():
        end = s + len(name)
        if end < e and buf.startswith(name.encode(), s) and \
                buf[end] in (0, 0x3d):
            if buf[end] == 0x3d and not takes:
                raise ValueError(name + " takes no value")
            return name, (end + 1, e) if buf[end] == 0x3d else None
    raise ValueError("an option a warm run does not take")


class Request:
    """A caller's run: its connection, descriptors, and its words in buf,
    a bytearray (the caller's directory, options, operands, NUL-ended):
    cwd and operands are spans of buf; setup (a spare of its own) and go
    are options (split_request).  The template copies none of a caller's
    words: they are sent from buf, which is wiped once the spare has them,
    and in every spare's run for the requests still waiting there."""
    __slots__ = ("conn", "fds", "buf", "cwd", "setup", "go", "operands")

    def __init__(self, conn, fds, buf, n):
        self.conn, self.fds, self.buf = conn, fds, buf
        most = _cordon_warm.WORDS_MAX + 1       # and the directory
        spans, start = [], 0
        while start < n and len(spans) <= most:
            end = buf.find(0, start, n)
            if end < 0:
                raise ValueError("a request is NUL-ended words")
            spans.append((start, end + 1))
            start = end + 1
        if len(spans) > most:
            raise ValueError("too many words")
        if len(spans) < 2 or buf[0] != 0x2f:
            raise ValueError("empty request")
        self.cwd = spans[0]
        self.setup, self.go, self.operands = split_request(buf, spans[1:])

    def has(self, name):
        return any(n == name for n, _ in self.go)

    def own(self):
        """Its --workdir as a set-up option: for spares without a run
        tmpfs (the caller's folder must be the run's workdir itself)."""
        self.setup += [o for o in self.go if o[0] == "--workdir"]
        self.go = [o for o in self.go if o[0] != "--workdir"]

    def words(self, options):
        """In a spare made for this request (its own words): options as
        cordon's argv words."""
        out = []
        for name, value in options:
            out.append(name)
            if value:
                out.append(self.word(value))
        return out

    def word(self, span):
        return os.fsdecode(bytes(self.buf[span[0]:span[1] - 1]))

    def message(self, blob):
        """What the spare's cordon gets: directory, run options (each
        value its own word), the policy, operands; in one bytearray made
        at its size (no copy left behind by growing), wiped once sent."""
        mv = memoryview(self.buf)
        parts = [mv[self.cwd[0]:self.cwd[1]]]
        for name, value in self.go:
            parts.append(name.encode() + b"\0")
            if value:
                parts.append(mv[value[0]:value[1]])
        parts.append(os.fsencode(blob) + b"\0")
        parts += [mv[s:e] for s, e in self.operands]
        out, at = bytearray(sum(len(p) for p in parts)), 0
        for p in parts:
            out[at:at + len(p)] = p
            at += len(p)
        return out

    def wipe(self):
        self.buf[:] = bytes(len(self.buf))
