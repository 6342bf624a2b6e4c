#!/usr/bin/env python3
"""Write the Python client's copy of the blob format's constants
(clients/python/cordon/_cpol.py) from the one definition, common/cpol.h:
every CPOL_* #define with a number or string value and every CPOL_*
enumerator with an explicit value.  tests/test_cpol_constants.py fails
when the committed file is not what this prints.

    python3 tools/gen_cpol_py.py > clients/python/cordon/_cpol.py
"""
import pathlib
import re
import sys

HEADER = pathlib.Path(__file__).resolve().parent.parent / "common" / "cpol.h"

DEFINE = re.compile(r"^#define (CPOL_[A-Z0-9_]+) +(.+?)\s*(?:/\*.*)?$")
ENUMERATOR = re.compile(r"\b(CPOL_[A-Z0-9_]+) = ([0-9]+)\b")
NUMBER = re.compile(r"^\(?(0x[0-9a-fA-F]+|[0-9]+)u?(?: << ([0-9]+))?\)?$")


def value(text):
    """A define's value as Python source, or None (a macro, UINT64_MAX)."""
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
    out = ['"""The blob format\'s constants, generated from common/cpol.h',
           "by tools/gen_cpol_py.py: do not edit (tests/test_cpol_constants.py",
           'checks it against the header)."""', ""]
    seen = set()
    for line in HEADER.read_text().splitlines():
        m = DEFINE.match(line)
        found = [(m.group(1), m.group(2))] if m else \
            ENUMERATOR.findall(line.split("/*")[0])
        for name, text in found:
            v = value(text.strip())
            if v is None or name in seen or name == "CORDON_CPOL_H":
                continue
            seen.add(name)
            out.append("%s = %s" % (name, v))
    sys.stdout.write("\n".join(out) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
