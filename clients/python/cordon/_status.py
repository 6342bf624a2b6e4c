"""cordon's status report (cordon(1) STATUS), read: one JSON object on
the status descriptor.  Used by the client's runs and by sessions."""
from __future__ import annotations

import json
from typing import Any


def parse_status(raw: bytes) -> dict[str, Any] | None:
    """cordon's status report, or None.  Bytes that are not UTF-8 (an
    older cordon wrote a denied path's raw bytes) are read as cordon
    escapes them now, \\udcXX (surrogateescape, cordon(1)): a name the
    run chose never costs the run's outcome."""
    line = raw.strip().split(b"\n", 1)[0] if raw.strip() else b""
    if not line:
        return None
    try:
        d = json.loads(line.decode("utf-8", "surrogateescape"))
    except ValueError:
        return None
    return d if isinstance(d, dict) else None
