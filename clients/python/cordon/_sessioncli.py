"""python3 -m cordon.session [--warm] TOOL < cells: cells separated by a
line "#%%", one JSON object per cell on stdout, the status last (see
session.py).  Apart from session.py, which never imports client.py."""
from __future__ import annotations

import asyncio
import dataclasses
import json
import sys

from .client import Client
from .errors import CordonError, LauncherError


async def _cli(tool: str, text: str, warm: bool = False) -> int:
    cells = [c for c in text.split("\n#%%\n")]
    async with Client(warm=warm) as client:
        async with client.session(tool) as s:
            for code in cells:
                r = await s.run(code)
                d = dataclasses.asdict(r)
                d.pop("run", None)
                d["files"] = [{"name": f.name, "size": f.size}
                              for f in r.files]
                print(json.dumps(d), flush=True)
                if r.session_ended:
                    break
        res = s.result
        print(json.dumps({"end_reason": s.end_reason,
                          "status": dict(res.status) if res else None}))
        return 0 if res is not None else 1


def main(argv: list[str]) -> int:
    warm = argv[1:2] == ["--warm"]      # in a warm pool, started for it
    if warm:
        argv = argv[:1] + argv[2:]
    if len(argv) != 2:
        print("usage: python3 -m cordon.session [--warm] TOOL < cells",
              file=sys.stderr)
        return 2
    try:
        return asyncio.run(_cli(argv[1], sys.stdin.read(), warm))
    except (CordonError, LauncherError) as e:
        print(f"cordon.session: {e}", file=sys.stderr)
        return 1
