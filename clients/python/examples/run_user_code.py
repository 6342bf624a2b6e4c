#!/usr/bin/python3
"""Porting the common ``run_user_code(code, local_env)`` pattern to cordon.

Many LLM tool servers run generated code like this, inside an async
handler, in the server process:

    async def run_user_code(code: str, local_env: dict) -> dict:
        exec(code, {}, local_env)          # same process, same secrets,
        return local_env                   # same event loop, no timeout

The port below keeps the signature.  The variables go in as files (a
DataFrame as CSV, the rest as JSON), a fixed driver loads them, runs the
code, and writes ``result`` back as JSON or CSV; nothing is unpickled.

Run it from a built checkout (``make``):

    /usr/bin/python3 clients/python/examples/run_user_code.py

or point it elsewhere with CORDON_POLICY_DIR and CORDON_BIN.
"""
from __future__ import annotations

import asyncio
import os
import pathlib
import sys
import time

HERE = pathlib.Path(__file__).resolve()
sys.path.insert(0, str(HERE.parents[1]))          # clients/python
import cordon  # noqa: E402

# Runs inside the sandbox: load the variables, run the code, save `result`.
DRIVER = r'''
import json, os
ns = json.load(open("env.json"))
for name in os.listdir("."):
    if name.startswith("df_") and name.endswith(".csv"):
        import pandas
        ns[name[3:-4]] = pandas.read_csv(name)
exec(compile(open("user_code.py").read(), "user_code.py", "exec"), ns)
result = ns.get("result")
if hasattr(result, "to_csv"):
    result.to_csv("result.csv", index=False)
else:
    json.dump(result, open("result.json", "w"), default=str)
'''


async def run_user_code(code: str, local_env: dict, tool: str = "code_gen",
                        timeout: float = 30) -> object:
    """exec(code) with local_env's variables, in a cordon sandbox.
    Returns the code's `result` variable (JSON value or DataFrame)."""
    frames = {f"df_{k}.csv": v for k, v in local_env.items()
              if hasattr(v, "to_csv")}
    plain = {k: v for k, v in local_env.items() if not hasattr(v, "to_csv")}
    r = await cordon.arun(tool, DRIVER, timeout=timeout, inputs={
        "user_code.py": code, "env.json": plain, **frames})
    r.check()                      # raises SnippetFailed with the stderr
    out = r.outputs.get("result.csv") or r.outputs.get("result.json")
    return out.decode() if out else None


def configure() -> None:
    build = HERE.parents[3] / "build"
    cordon.configure(
        os.environ.get("CORDON_POLICY_DIR", build / "policies"),
        cordon=os.environ.get("CORDON_BIN", build / "cordon"))


async def main() -> None:
    configure()
    import pandas as pd
    sales = pd.DataFrame({"region": ["north", "south", "north", "east"],
                          "amount": [120.0, 80.5, 42.0, 310.25]})

    # 1. The normal case: analysis code over the caller's DataFrame.
    res = await run_user_code(
        "result = df.groupby('region', as_index=False)['amount'].sum()",
        {"df": sales})
    print("1. per-region totals:\n", res, sep="")

    # 2. Hostile code: secrets, the network and the server's environment
    #    are out of reach; the answer says what happened.
    res = await run_user_code(
        "import os, socket\n"
        "out = {}\n"
        "for path in paths:\n"
        "    try:\n"
        "        open(path).read(1); out[path] = 'READ'\n"
        "    except OSError as e:\n"
        "        out[path] = type(e).__name__\n"
        "try:\n"
        "    socket.create_connection(('1.1.1.1', 443), timeout=2)\n"
        "    out['network'] = 'CONNECTED'\n"
        "except OSError as e:\n"
        "    out['network'] = type(e).__name__\n"
        "out['env'] = sorted(os.environ)\n"
        "result = out",
        {"paths": ["/etc/shadow", str(pathlib.Path.home() / ".ssh/id_rsa"),
                   "/proc/1/environ", str(HERE)]})
    print("2. hostile code saw:", res)

    # 3. A hung snippet: the timeout fires and the event loop keeps
    #    serving meanwhile (the ticker below keeps ticking).
    ticks = 0

    async def ticker() -> None:
        nonlocal ticks
        while True:
            await asyncio.sleep(0.1)
            ticks += 1
    t = asyncio.ensure_future(ticker())
    start = time.monotonic()
    try:
        await run_user_code("while True: pass", {}, timeout=2)
    except cordon.SnippetFailed as e:
        print(f"3. hung code ended after {time.monotonic() - start:.1f}s: "
              f"{e.result.outcome.value} ({e.result.reason}); the loop "
              f"ticked {ticks} times meanwhile")
    t.cancel()


if __name__ == "__main__":
    asyncio.run(main())
