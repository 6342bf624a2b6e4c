#!/usr/bin/python3
"""make demo: run one real snippet per shipped tool policy under cordon.

    python3 tools/demo.py --build build

Compiles the shipped policies if their blobs are missing or older than
their sources, generates synthetic inputs in a fresh work directory per
tool (the same workloads as tests/test_workloads.py), runs each snippet,
and prints a table: tool, outcome, wall time, layers applied (from the
status JSON), and a one-line result.  The query tools run their pandas
work; their network (named hosts through cordon's egress proxy) is shown
by tests/test_egress.py.  Then the tools that preload their libraries run
the same snippet again in a warm pool (cordon --serve, --submit).
"""
import argparse
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile

SRC = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(SRC / "tests"))
import workload_util as wu  # noqa: E402

TOOLS = ("radiomics", "code_gen", "monai_infer", "idc_query", "bih_query",
         "midrc_query")
WARM = ("code_gen", "monai_infer")      # their policies preload


def blob_for(cordonc, build, tool):
    src = SRC / "policies" / (tool + ".policy")
    blob = build / "policies" / (tool + ".cpol")
    deps = [src] + list((SRC / "policies" / "base").glob("*.policy"))
    if not blob.exists() or any(d.stat().st_mtime > blob.stat().st_mtime
                                for d in deps):
        blob.parent.mkdir(parents=True, exist_ok=True)
        wu.compile_policy(cordonc, src, blob)
    return blob


def summary(tool, r):
    try:
        j = r.json()
    except AssertionError:
        tail = (r.stderr.strip().splitlines() or ["(no output)"])[-1]
        return "no result: " + tail[:60]
    if tool == "radiomics":
        return "%d voxels, mean %.2f, plot.png" % (j["voxels"], j["mean"])
    if tool == "code_gen":
        return "dcm2niix %s %s, pool sum %s" % (
            ",".join(j["converted"]), "x".join(map(str, j["shape"])),
            j["squares"] if not j.get("pool_error") else j["pool_error"])
    if tool == "monai_infer":
        return "%s mask %d voxels" % (j["device"], j["voxels"])
    return "%d CT series, %d CA certificates (network: named hosts, "\
        "tests/test_egress.py)" % (j["ct_series"], j["ca_certs"])


def warm_row(cordon, blob, tool, gen, top):
    """The tool's snippet in a warm pool of its blob: the second run (the
    first waits for the pool's spares)."""
    name = "@cordon-demo-%d-%s" % (os.getpid(), tool)
    srv = subprocess.Popen([str(cordon), "--serve", name, str(blob)],
                           stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, text=True)
    try:
        if "ready" not in srv.stderr.readline():
            return None
        for i in range(2):
            work = top / ("%s-warm%d" % (tool, i))
            work.mkdir()
            gen[0](str(work))
            r = wu.run_cordon(cordon, blob, gen[1], work, pool=name)
        return r
    finally:
        srv.terminate()
        srv.wait()


def table_row(tool, r):
    st = r.status or {}
    wall = st.get("wall_ms")
    return (tool, st.get("outcome", "rc=%s" % r.returncode),
            "%.2fs" % (wall / 1000.0 if wall is not None else r.wall),
            wu.layers_summary(st), summary(tool.split()[0], r))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default="build")
    args = ap.parse_args()
    build = pathlib.Path(args.build)
    if not build.is_absolute():
        build = SRC / build
    cordonc, cordon = build / "cordonc", build / "cordon"
    for b in (cordonc, cordon):
        if not b.exists():
            sys.exit("demo: %s is missing: run make first" % b)
    gens = {"radiomics": (wu.make_radiomics_inputs, wu.RADIOMICS_SNIPPET),
            "code_gen": (wu.make_code_gen_inputs, wu.CODE_GEN_SNIPPET),
            "monai_infer": (wu.make_monai_inputs, wu.MONAI_SNIPPET)}
    rows = []
    top = pathlib.Path(tempfile.mkdtemp(prefix="cordon-demo."))
    try:
        for tool in TOOLS:
            work = top / tool
            work.mkdir()
            if tool in gens:
                gens[tool][0](str(work))
                blob = blob_for(cordonc, build, tool)
                r = wu.run_cordon(cordon, blob, gens[tool][1], work)
            else:
                blob_for(cordonc, build, tool)     # the shipped one builds
                wu.make_query_inputs(str(work))
                blob = wu.compile_policy(
                    cordonc, SRC / "policies" / (tool + ".policy"),
                    top / (tool + ".cpol"))
                r = wu.run_cordon(cordon, blob, wu.QUERY_SNIPPET, work)
            rows.append(table_row(tool, r))
        for tool in WARM:
            r = warm_row(cordon, build / "policies" / (tool + ".cpol"),
                         tool, gens[tool], top)
            if r is not None:
                rows.append(table_row(tool + " (warm)", r))
    finally:
        shutil.rmtree(top, ignore_errors=True)
    head = ("tool", "outcome", "wall", "layers applied", "result")
    widths = [max(len(str(x[i])) for x in rows + [head])
              for i in range(len(head))]
    line = "  ".join("%-*s" % (w, h) for w, h in zip(widths, head)).rstrip()
    print(line)
    print("-" * len(line))
    for row in rows:
        print("  ".join("%-*s" % (w, c)
                        for w, c in zip(widths, row)).rstrip())
    return 0 if all(r[1] == "exited" for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
