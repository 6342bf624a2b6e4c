"""The GPU check's workload: run bare and under cordon (monai_infer).

    python3 workload.py gpu|cpu REPS SIZE

torch on the GPU (or, with "cpu", on the CPU): a matrix product and the
forward pass of a small 3-D convolution network on a random SIZE^3
volume, each copied back and compared with a float64 reference computed
on the CPU; then REPS timed forward passes.  Prints one JSON object on
the last line of stdout and exits 0 when every comparison held.  TF32 is
off so that the GPU's float32 results can be held to float32 tolerances.
Bare, it also lists the files the process mapped and the device nodes it
holds open (from /proc/self; under cordon /proc is not granted).
"""
import copy
import json
import os
import sys
import time

RTOL = 1e-4   # float32 against float64, after a few hundred additions
ATOL = 1e-4


def proc_self():
    """Files mapped and device nodes open, where /proc/self is readable."""
    mapped, nodes = set(), set()
    try:
        with open("/proc/self/maps") as f:
            for line in f:
                parts = line.split(None, 5)
                if len(parts) == 6 and parts[5].startswith("/"):
                    mapped.add(parts[5].strip().removesuffix(" (deleted)"))
        for fd in os.listdir("/proc/self/fd"):
            try:
                target = os.readlink("/proc/self/fd/" + fd)
            except OSError:
                continue
            if target.startswith("/dev/"):
                nodes.add(target)
    except OSError as e:
        return {"proc_self": "unreadable: %s" % e.strerror}
    return {"mapped": sorted(mapped), "nodes": sorted(nodes)}


# Files the CUDA driver is known to open (device nodes, the driver's
# /proc and /sys files, libcuda): which ones this process can open tells,
# under cordon, what the policy refuses CUDA (a failed GPU run's cause).
CUDA_FILES = ["/dev/nvidiactl", "/dev/nvidia0", "/dev/nvidia-uvm",
              "/dev/nvidia-uvm-tools", "/dev/nvidia-modeset",
              "/proc/driver/nvidia/params", "/proc/driver/nvidia/version",
              "/proc/devices", "/proc/modules", "/proc/self/maps",
              "/proc/self/status", "/sys/bus/pci/devices",
              "/sys/devices/system/node/online", "/dev/shm"]


def access_probe():
    import ctypes
    import errno
    out = {}
    for path in CUDA_FILES:
        try:
            os.close(os.open(path, os.O_RDONLY | os.O_NONBLOCK))
            out[path] = "ok"
        except OSError as e:
            out[path] = errno.errorcode.get(e.errno, str(e.errno))
    try:
        ctypes.CDLL("libcuda.so.1")
        out["libcuda.so.1"] = "ok"
    except OSError as e:
        out["libcuda.so.1"] = str(e)
    return out


def sync(torch, dev):
    if dev == "cuda":
        torch.cuda.synchronize()


def network(nn):
    return nn.Sequential(nn.Conv3d(1, 8, 3, padding=1), nn.ReLU(),
                         nn.Conv3d(8, 8, 3, padding=1), nn.ReLU(),
                         nn.Conv3d(8, 1, 1))


def compare(torch, got, ref):
    err = float((got.double() - ref).abs().max())
    return err, bool(torch.allclose(got.double(), ref, rtol=RTOL, atol=ATOL))


def matmul(torch, dev, out):
    a, b = torch.randn(256, 256), torch.randn(256, 256)
    c = (a.to(dev) @ b.to(dev)).cpu()
    out["matmul_max_err"], ok = compare(torch, c, a.double() @ b.double())
    return ok


def conv(torch, nn, dev, reps, size, out):
    net = network(nn).eval()
    x = torch.rand(1, 1, size, size, size)
    with torch.inference_mode():
        ref = copy.deepcopy(net).double()(x.double())
        cpu32 = net(x)
        netd, xd = net.to(dev), x.to(dev)
        if dev == "cuda":
            out["gpu_bytes_allocated"] = int(torch.cuda.memory_allocated())
        t = time.perf_counter()
        y = netd(xd)
        sync(torch, dev)
        out["forward_first_ms"] = round((time.perf_counter() - t) * 1e3, 3)
        times = []
        for _ in range(reps):
            t = time.perf_counter()
            netd(xd)
            sync(torch, dev)
            times.append(time.perf_counter() - t)
        y = y.cpu()
    times.sort()
    out["forward_ms_median"] = round(times[len(times) // 2] * 1e3, 3)
    out["forward_ms_min"] = round(times[0] * 1e3, 3)
    out["conv_max_err"], ok = compare(torch, y, ref)
    out["conv_vs_cpu32_max_err"] = float((y - cpu32).abs().max())
    return ok


def main():
    want, reps, size = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    t = time.perf_counter()
    import torch
    import torch.nn as nn
    out = {"torch": torch.__version__, "prefix": sys.prefix,
           "import_s": round(time.perf_counter() - t, 3)}
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.set_num_threads(2)
    torch.manual_seed(0)
    try:
        out["cuda_available"] = bool(torch.cuda.is_available())
    except Exception as e:  # a refused driver call surfaces here
        out["cuda_available"], out["cuda_error"] = False, repr(e)
    dev = "cuda" if want == "gpu" and out["cuda_available"] else "cpu"
    out["device"] = dev
    ok = dev == "cuda" or want == "cpu"
    if ok and dev == "cuda":
        out["device_name"] = torch.cuda.get_device_name(0)
        out["cuda"], out["cudnn"] = (torch.version.cuda,
                                     torch.backends.cudnn.version())
    if ok:
        ok = matmul(torch, dev, out) & conv(torch, nn, dev, reps, size, out)
    out.update(proc_self())
    if want == "gpu":
        out["access"] = access_probe()
    out["ok"] = ok
    print(json.dumps(out))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
