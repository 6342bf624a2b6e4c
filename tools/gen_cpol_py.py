#!/usr/bin/env python3
"""Write the Python client's copy of the blob format's constants
(clients/python/cordon/_cpol.py) from the one definition, common/cpol.h:
every CPOL_* #define with a number or string value and every CPOL_*
enumerator with an explicit value.  With "warm", the warm protocol's
(clients/python/cordon/_warm.py) from launcher/warm/warm.h: every WARM_*
#define with a number, string or character value.
tests/test_cpol_constants.py fails when a committed file is not what
this prints.

    python3 tools/gen_cpol_py.py > clients/python/cordon/_cpol.py
    python3 tools/gen_cpol_py.py warm > clients/python/cordon/_warm.py
"""
import pathlib
import re
import sys

TOP = pathlib.Path(__file__).resolve().parent.parent
# name -> (header, prefix, what it is, the file's guard)
SOURCES = {
    "cpol": (TOP / "common" / "cpol.h", "CPOL", "The blob format's",
             "CORDON_CPOL_H", "tests/test_cpol_constants.py"),
    "warm": (TOP / "launcher" / "warm" / "warm.h", "WARM",
             "The warm protocol's", "CORDON_WARM_H",
             "tests/test_cpol_constants.py"),
}
CHAR = re.compile(r"^'([ -&(-\[\]-~])'$")
NUMBER = re.compile(r"^\(?(0x[0-9a-fA-F]+|[0-9]+)u?(?: << ([0-9]+))?\)?$")


def value(text):
    """A define's value as Python source, or None (a macro, UINT64_MAX)."""
    m = CHAR.match(text)
    if m:
        return repr(m.group(1).encode())
    m = NUMBER.match(text)
    if m:
        v = int(m.group(1), 0) << int(m.group(2) or 0)
        return hex(v) if m.group(1).startswith("0x") else str(v)
    if text.startswith('"'):
        parts = re.findall(r'"((?:[^"\\]|\\.)*)"', text)
        raw = "".join(parts).encode().decode("unicode_escape")
        return repr(raw.encode("latin-1"))
    return None


def main():
    which = sys.argv[1] if len(sys.argv) > 1 else "cpol"
    header, prefix, what, guard, test = SOURCES[which]
    define = re.compile(r"^#define (%s_[A-Z0-9_]+) +(.+?)\s*(?:/\*.*)?$"
                        % prefix)
    enumerator = re.compile(r"\b(%s_[A-Z0-9_]+) = ([0-9]+)\b" % prefix)
    rel = header.relative_to(TOP)
    out = ['"""%s constants, generated from %s' % (what, rel),
           "by tools/gen_cpol_py.py: do not edit (%s" % test,
           'checks it against the header)."""', ""]
    seen = set()
    for line in header.read_text().splitlines():
        m = define.match(line)
        found = [(m.group(1), m.group(2))] if m else \
            enumerator.findall(line.split("/*")[0])
        for name, text in found:
            v = value(text.strip())
            if v is None or name in seen or name == guard:
                continue
            seen.add(name)
            out.append("%s = %s" % (name, v))
    sys.stdout.write("\n".join(out) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
