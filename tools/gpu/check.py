"""tools/gpu-check.sh's checks (run by it with the interpreter under test).

    python3 -I -B check.py SRC BUILD TMP PYTHON REQUIRE_GPU REPS SIZE JSON

Compiles policies/monai_infer.policy for this machine's interpreter and
driver locations with `cordonc compile -D`, runs tools/gpu/workload.py
bare and under cordon, runs tools/gpu/hostile.py's probes under the same
blob, prints what it found and exits 0 (every check passed), 1 (one
failed) or 3 (cordon refuses to run the policy on this kernel).
"""
import ctypes
import glob
import json
import os
import re
import subprocess
import sys
import sysconfig

HERE = os.path.dirname(os.path.abspath(__file__))
GRANTED_LIBDIR = "/usr/lib/x86_64-linux-gnu"  # base/python.policy grants it
SYS_LANDLOCK_CREATE_RULESET = 444
LANDLOCK_CREATE_RULESET_VERSION = 1
EXIT_FAIL, EXIT_REFUSED = 1, 3
# Requests for the ioctl probes: 'G' type (outside every granted range:
# seccomp answers with the policy's default errno), and 'F' type (inside
# NVIDIA's range, on /dev/null, which has no ioctl-dev right: Landlock).
IOCTL_OUTSIDE = 0xC0104701
IOCTL_NO_DEV_RIGHT = 0xC0104600
OPEN_NODES = ["/dev/nvidia-uvm-tools", "/dev/nvidia-modeset", "/dev/mem",
              "/dev/kmsg", "/dev/full"]
WRITE_FILES = ["/proc/driver/nvidia/params",
               "/sys/bus/pci/drivers/nvidia/unbind",
               "/sys/devices/system/cpu/smt/control",
               "/sys/kernel/mm/transparent_hugepage/enabled"]


class Report:
    def __init__(self):
        self.checks, self.info = [], {}

    def check(self, name, ok, detail=""):
        self.checks.append({"check": name, "ok": bool(ok), "detail": detail})
        print("%s  %s%s" % ("PASS" if ok else "FAIL", name,
                            ": " + detail if detail and (
                                not ok or "stderr" not in detail) else ""),
              flush=True)
        return ok

    def note(self, key, value, text=None):
        self.info[key] = value
        print("info  %s: %s" % (key, value if text is None else text),
              flush=True)

    def failed(self):
        return [c["check"] for c in self.checks if not c["ok"]]


def landlock_abi():
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    r = libc.syscall(SYS_LANDLOCK_CREATE_RULESET, None, ctypes.c_size_t(0),
                     ctypes.c_uint32(LANDLOCK_CREATE_RULESET_VERSION))
    if r < 0:
        return None, os.strerror(ctypes.get_errno())
    return int(r), None


def elf_interp(path):
    """The PT_INTERP of an ELF64 little-endian executable, or None."""
    with open(path, "rb") as f:
        data = f.read(1 << 20)
    if data[:4] != b"\x7fELF" or data[4] != 2:
        return None
    phoff = int.from_bytes(data[32:40], "little")
    phentsize = int.from_bytes(data[54:56], "little")
    for i in range(int.from_bytes(data[56:58], "little")):
        ph = data[phoff + i * phentsize:phoff + (i + 1) * phentsize]
        if int.from_bytes(ph[0:4], "little") == 3:
            off = int.from_bytes(ph[8:16], "little")
            size = int.from_bytes(ph[32:40], "little")
            return data[off:off + size].rstrip(b"\0").decode()
    return None


def policy_defaults(src):
    """NAME -> default value, from the define statements of the policy."""
    out = {}
    for rel in ("policies/base/python.policy", "policies/monai_infer.policy"):
        with open(os.path.join(src, rel)) as f:
            for m in re.finditer(r'^define (\w+) = "([^"]*)";', f.read(),
                                 re.M):
                out[m.group(1)] = m.group(2)
    with open(os.path.join(src, "policies/monai_infer.policy")) as f:
        libs = re.findall(r'^path "\$\{TORCH_SYSLIB\}/([^"]+)"', f.read(),
                          re.M)
    return out, libs


def standin(tmp, name, is_dir, members=()):
    """An empty file or directory in TMP for a path this machine lacks."""
    path = os.path.join(tmp, "standin", name)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    if is_dir:
        os.makedirs(path, exist_ok=True)
        for m in members:
            open(os.path.join(path, m), "w").close()
    else:
        open(path, "w").close()
    return path


def torch_site():
    import importlib.util
    spec = importlib.util.find_spec("torch")
    if not spec or not spec.origin:
        return None
    return os.path.dirname(os.path.dirname(os.path.realpath(spec.origin)))


def site_root(defaults):
    """The tree of installed packages: a venv's root, or torch's site."""
    if sys.prefix != sys.base_prefix:
        return os.path.realpath(sys.prefix)
    site = torch_site()
    d = defaults["PYTHON_SITE"]
    if site and not (site + "/").startswith(d + "/"):
        return site
    return d if os.path.isdir(d) else site


def definitions(tmp, python, defaults, libs):
    ver = "%d.%d" % sys.version_info[:2]
    exe = os.path.realpath(python)
    interp = elf_interp(exe)
    site = site_root(defaults) or standin(tmp, "PYTHON_SITE", True)
    torch = torch_site()
    if torch and not (torch + "/").startswith(site + "/"):
        local = torch   # a venv that sees the system's packages
    else:
        local = "/usr/local/lib/python" + ver
    d = {"PYTHON": python, "PYTHON_EXE": exe,
         "PYTHON_STDLIB": os.path.realpath(sysconfig.get_paths()["stdlib"]),
         "PYTHON_SITE": site, "PYTHON_LOCAL": local,
         "PYTHON_ETC": "/etc/python" + ver,
         "LD_SO": os.path.realpath(interp) if interp else defaults["LD_SO"]}
    standins = []
    for name, is_dir in (("PYTHON_ETC", True), ("MPL_RC", False),
                         ("MPL_DATA", True), ("FONTS", True)):
        path = d.get(name, defaults[name])
        if not os.path.exists(path):
            path = standin(tmp, name, is_dir)
            standins.append(name)
        d[name] = path
    if all(os.path.exists(os.path.join(defaults["TORCH_SYSLIB"], lib))
           for lib in libs):
        d["TORCH_SYSLIB"] = defaults["TORCH_SYSLIB"]
    else:
        d["TORCH_SYSLIB"] = standin(tmp, "TORCH_SYSLIB", True, libs)
        standins.append("TORCH_SYSLIB")
    d["NVIDIA_LIB"] = defaults["NVIDIA_LIB"]
    return d, standins


def driver_libdir(bare):
    """Where the bare run loaded libcuda from, if not in a granted dir."""
    for path in bare.get("mapped", []):
        if os.path.basename(path).startswith("libcuda.so"):
            d = os.path.dirname(os.path.realpath(path))
            if not (d + "/").startswith(GRANTED_LIBDIR + "/"):
                return d, path
            return None, path
    return None, None


def in_ld_cache(soname):
    for ldconfig in ("/sbin/ldconfig", "/usr/sbin/ldconfig"):
        if os.access(ldconfig, os.X_OK):
            r = subprocess.run([ldconfig, "-p"], capture_output=True,
                               text=True)
            return soname in r.stdout
    return None


def last_json(text):
    for line in reversed(text.splitlines()):
        if line.startswith("{"):
            try:
                return json.loads(line)
            except ValueError:
                return None
    return None


def run_bare(python, tmp, script, args, timeout=600):
    cwd = os.path.join(tmp, "bare")
    os.makedirs(cwd, exist_ok=True)
    r = subprocess.run([python, "-I", "-B", script] + args, cwd=cwd,
                       capture_output=True, text=True, timeout=timeout)
    return r.returncode, last_json(r.stdout), r.stderr


def run_cordon(build, blob, tmp, script, args, timeout=600):
    status_path = os.path.join(tmp, "status.json")
    if os.path.exists(status_path):
        os.unlink(status_path)
    r = subprocess.run([os.path.join(build, "cordon"), "--status-file",
                        status_path, blob, script] + args,
                       capture_output=True, text=True, timeout=timeout)
    status = None
    if os.path.exists(status_path):
        with open(status_path) as f:
            status = json.load(f)
    return r.returncode, last_json(r.stdout), r.stderr, status


def cordonc(build, *args):
    return subprocess.run([os.path.join(build, "cordonc")] + list(args),
                          capture_output=True, text=True)


def compile_blobs(rep, src, build, tmp, defs):
    policy = os.path.join(src, "policies", "monai_infer.policy")
    shipped = os.path.join(tmp, "monai_infer.shipped.cpol")
    local = os.path.join(tmp, "monai_infer.cpol")
    r = cordonc(build, "compile", "-o", shipped, policy)
    if not rep.check("the shipped policy compiles", r.returncode == 0,
                     r.stderr.strip()):
        return None
    dargs = []
    for k, v in sorted(defs.items()):
        dargs += ["-D", "%s=%s" % (k, v)]
    r = cordonc(build, "compile", "-o", local, *dargs, policy)
    if not rep.check("it compiles for this machine (cordonc compile -D)",
                     r.returncode == 0, r.stderr.strip()):
        return None
    print("info  what the definitions change against the shipped blob:")
    d = cordonc(build, "diff", shipped, local)
    print("      " + (d.stdout + d.stderr).strip().replace("\n", "\n      "))
    return local


def granted(blob_json, path, right):
    """Whether the nearest rule at or above PATH grants RIGHT (rules land
    on the inode: a rule on a link covers its target)."""
    best, best_len = None, -1
    for rule in blob_json["paths"]:
        for p in {rule["path"], os.path.realpath(rule["path"])}:
            if ((path == p or path.startswith(p.rstrip("/") + "/")) and
                    len(p) > best_len):
                best, best_len = rule, len(p)
    return best is not None and right in best["rights"]


def coverage(rep, build, blob, bare):
    """What the bare run used against what the blob grants (for narrowing
    the policy: the device nodes CUDA held open, files it mapped)."""
    r = cordonc(build, "explain", "--json", blob)
    if r.returncode != 0:
        return None
    bj = json.loads(r.stdout)
    if "mapped" in bare:
        miss = [p for p in bare["mapped"]
                if not granted(bj, os.path.realpath(p), "read-file")]
        rep.note("mapped files the blob does not grant", miss,
                 ", ".join(miss) or "none")
        rep.note("device nodes the bare run held open", bare["nodes"],
                 ", ".join(bare["nodes"]) or "none")
    nv = [x["path"] for x in bj["paths"] if x["path"].startswith("/dev/nv")]
    rep.note("NVIDIA nodes the policy grants", nv, ", ".join(nv))
    unused = [n for n in nv if os.path.exists(n) and
              n not in bare.get("nodes", [])]
    rep.note("granted NVIDIA nodes present but not held by the bare run",
             unused, ", ".join(unused) or "none")
    return bj


def show_status(rep, status):
    if not status:
        rep.note("cordon status", None, "none written")
        return
    keys = ("outcome", "exit_code", "signal", "reason", "wall_ms",
            "max_rss_kb")
    rep.note("cordon status", {k: status.get(k) for k in keys},
             " ".join("%s=%s" % (k, json.dumps(status.get(k)))
                      for k in keys))
    rep.note("cordon layers", status.get("layers"),
             json.dumps(status.get("layers"), separators=(",", ":")))


def check_run(rep, label, rc, out, err, gpu):
    if not rep.check(label + ": the snippet ran", rc == 0 and out,
                     "exit %d; stderr: %s" % (rc, err.strip()[-800:])):
        return False
    dev = "cuda" if gpu else "cpu"
    rep.check(label + ": torch on " + dev, out.get("device") == dev,
              "torch %s, device %s%s" % (out.get("torch"), out.get("device"),
                                         ", " + out["device_name"]
                                         if "device_name" in out else ""))
    if gpu:
        rep.check(label + ": allocated on the GPU",
                  out.get("gpu_bytes_allocated", 0) > 0,
                  "%s bytes" % out.get("gpu_bytes_allocated"))
    rep.check(label + ": matrix product matches the CPU (float64)",
              out.get("ok") and "matmul_max_err" in out,
              "max error %s" % out.get("matmul_max_err"))
    return rep.check(label + ": 3-D conv network matches the CPU",
                     out.get("ok") and "conv_max_err" in out,
                     "max error %s against float64, %s against float32"
                     % (out.get("conv_max_err"),
                        out.get("conv_vs_cpu32_max_err")))


def check_layers(rep, status):
    layers = (status or {}).get("layers") or {}
    off = [k for k in ("no_new_privs", "seccomp", "landlock_fs",
                       "caps_dropped", "rlimits", "env", "fds_closed")
           if not layers.get(k)]
    rep.check("cordon applied every layer", not off,
              "off: " + ", ".join(off) if off else
              "landlock ABI %s, namespaces %s" % (
                  layers.get("landlock_abi"),
                  ",".join(layers.get("namespaces") or []) or "none"))


def hostile_probes(bj, gpu):
    """(kind, target, request, errnos that mean refused, why)."""
    probes = []
    for node in sorted(glob.glob("/dev/nvidia-caps/*")) + OPEN_NODES:
        if os.path.exists(node) and not granted(bj, node, "read-file"):
            probes.append(("open", node, None, ("EACCES",),
                           "a device node the policy does not grant"))
    node = "/dev/nvidiactl" if gpu else "/dev/null"
    probes.append(("ioctl", node, IOCTL_OUTSIDE, ("ENOSYS",),
                   "a request outside the granted ranges (seccomp)"))
    probes.append(("ioctl", "/dev/null", IOCTL_NO_DEV_RIGHT, ("EACCES",),
                   "an NVIDIA-range request on a node without ioctl-dev "
                   "(Landlock)"))
    for path in WRITE_FILES + sorted(glob.glob(
            "/sys/module/nvidia/parameters/*"))[:1]:
        if os.path.exists(path):
            probes.append(("write", path, None, ("EACCES",),
                           "writing a /proc or /sys file"))
    return probes


def run_hostile(rep, args, build, blob, tmp):
    script = os.path.join(HERE, "hostile.py")
    results = []
    for kind, target, req, refused, why in hostile_probes(args["bj"],
                                                          args["gpu"]):
        pargs = [kind, target] + ([hex(req)] if req is not None else [])
        rc, out, err, status = run_cordon(build, blob, tmp, script, pargs)
        _, bare, _ = run_bare(args["python"], tmp, script, pargs)
        out = out or {}
        ok = (rc == 0 and out.get("errno") in refused and
              (kind != "ioctl" or out.get("failed_at") == "ioctl"))
        seen = ("%s at %s" % (out.get("errno"), out.get("failed_at"))
                if out else "the probe did not run (exit %d: %s)" % (
                    rc, (status or {}).get("reason") or err.strip()[-200:]))
        rep.check("hostile: %s %s%s refused" % (
            kind, target, " " + hex(req) if req is not None else ""), ok,
            "%s; under cordon: %s (bare: %s)" % (
                why, seen, (bare or {}).get("errno") or "succeeded"))
        results.append({"probe": pargs, "cordon": out, "bare": bare,
                        "outcome": (status or {}).get("outcome")})
    rep.info["hostile"] = results


def compare_access(rep, bare, caged):
    """Files CUDA opens that the bare run could open and cordon's not."""
    b, c = bare.get("access"), (caged or {}).get("access")
    if not (b and c):
        return
    lost = {p: c.get(p) for p, v in b.items() if v == "ok" and
            c.get(p) != "ok"}
    rep.note("opened bare, refused under cordon", lost,
             ", ".join("%s (%s)" % kv for kv in sorted(lost.items())) or
             "none")


def timing(rep, bare, caged, bare_wall, status):
    if not (bare and caged and "forward_ms_median" in bare and
            "forward_ms_median" in caged):
        return
    b, c = bare["forward_ms_median"], caged["forward_ms_median"]
    rep.note("forward pass (median)", {"bare_ms": b, "cordon_ms": c},
             "bare %.3f ms, under cordon %.3f ms (x%.2f); torch import "
             "bare %.2f s, under cordon %.2f s; whole run bare %.2f s, "
             "under cordon %.2f s" % (
                 b, c, c / b if b else 0, bare["import_s"],
                 caged["import_s"], bare_wall,
                 (status or {}).get("wall_ms", 0) / 1e3))


def prepare(rep, a):
    abi, why = landlock_abi()
    rep.note("kernel", os.uname().release)
    rep.note("landlock ABI", abi, str(abi) if abi else "none (%s)" % why)
    rep.note("python", a["python"], "%s -> %s (Python %s, prefix %s)" % (
        a["python"], os.path.realpath(a["python"]),
        sys.version.split()[0], sys.prefix))
    defaults, libs = policy_defaults(a["src"])
    defs, standins = definitions(a["tmp"], a["python"], defaults, libs)
    if standins:
        rep.note("stand-ins", standins, "empty stand-ins in the scratch "
                 "directory for paths this machine lacks: " +
                 ", ".join(standins))
    return defs


def bare_run(rep, a, defs):
    import time
    script = os.path.join(HERE, "workload.py")
    want = "gpu" if os.path.exists("/dev/nvidia0") else "cpu"
    t = time.monotonic()
    rc, out, err = run_bare(a["python"], a["tmp"], script,
                            [want, a["reps"], a["size"]])
    wall = time.monotonic() - t
    a["gpu"] = bool(out and out.get("device") == "cuda")
    if want == "gpu" and not a["gpu"]:
        rep.note("bare run", (out or {}).get("cuda_error"),
                 "/dev/nvidia0 exists but torch sees no GPU: %s" %
                 ((out or {}).get("cuda_error") or err.strip()[-300:]))
        t = time.monotonic()
        rc, out, err = run_bare(a["python"], a["tmp"], script,
                                ["cpu", a["reps"], a["size"]])
        wall = time.monotonic() - t
    check_run(rep, "bare", rc, out, err, a["gpu"])
    libdir, libcuda = driver_libdir(out or {})
    if libdir:
        defs["NVIDIA_LIB"] = libdir
    if libcuda:
        cached = in_ld_cache("libcuda.so.1")
        rep.note("libcuda", libcuda, "%s (in the ld.so cache: %s%s)" % (
            libcuda, cached, "" if cached is not False else
            "; found through LD_LIBRARY_PATH, which cordon's environment "
            "does not pass: torch under cordon will not find the driver"))
    return out or {}, wall


def main():
    keys = ("src", "build", "tmp", "python", "require_gpu", "reps", "size",
            "json")
    a = dict(zip(keys, sys.argv[1:]))
    rep = Report()
    defs = prepare(rep, a)
    bare, bare_wall = bare_run(rep, a, defs)
    code = 0
    if not a["gpu"] and a["require_gpu"] == "1":
        rep.check("a GPU is present (--require-gpu)", False,
                  "no /dev/nvidia0 or torch.cuda.is_available() is false")
    else:
        if not a["gpu"]:
            print("info  no GPU: CPU fallback only", flush=True)
        blob = compile_blobs(rep, a["src"], a["build"], a["tmp"], defs)
        code = finish_runs(rep, a, blob, bare, bare_wall)
    code = code or (EXIT_FAIL if rep.failed() else 0)
    summary = {"gpu": a["gpu"], "exit": code, "checks": rep.checks,
               "info": rep.info, "definitions": defs}
    if a["json"]:
        with open(a["json"], "w") as f:
            json.dump(summary, f, indent=1)
    verdict = {0: "PASS", EXIT_FAIL: "FAIL", EXIT_REFUSED:
               "REFUSED (cordon will not run monai_infer on this kernel)"}
    mode = "GPU: " if a["gpu"] else (
        "no GPU (--require-gpu): " if a["require_gpu"] == "1" else
        "no GPU: CPU fallback only: ")
    print("gpu-check: %s%s" % (mode, verdict[code]))
    return code


def finish_runs(rep, a, blob, bare, bare_wall):
    if not blob:
        return EXIT_FAIL
    a["bj"] = coverage(rep, a["build"], blob, bare)
    r = subprocess.run([os.path.join(a["build"], "cordon"), "--check", blob],
                       capture_output=True, text=True)
    print("info  cordon --check:\n      " + (r.stdout + r.stderr).strip()
          .replace("\n", "\n      "))
    script = os.path.join(HERE, "workload.py")
    rc, out, err, status = run_cordon(
        a["build"], blob, a["tmp"], script,
        ["gpu" if a["gpu"] else "cpu", a["reps"], a["size"]])
    show_status(rep, status)
    if r.returncode != 0:
        rep.note("refused", (status or {}).get("reason"),
                 "cordon refuses to run monai_infer here (the policy fails "
                 "closed; it has no best-effort landlock): %s" %
                 ((status or {}).get("reason") or r.stderr.strip()))
        return EXIT_REFUSED
    check_layers(rep, status)
    check_run(rep, "cordon", rc, out, err, a["gpu"])
    compare_access(rep, bare, out)
    timing(rep, bare, out, bare_wall, status)
    run_hostile(rep, a, a["build"], blob, a["tmp"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
