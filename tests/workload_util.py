"""Real scientific workloads for the shipped tool policies.

Shared by tests/test_workloads.py and tools/demo.py.  Each workload is:

- an input generator (runs unsandboxed, in the caller's process) that
  writes synthetic input files into a fresh work directory;
- a snippet (the "model-generated" Python the tool runs under cordon);
- a checker that verifies the snippet's printed JSON and output files
  against values recomputed here from the same synthetic inputs.

Nothing in here imports torch: the test process stays light.  numpy,
nibabel and pydicom are imported lazily by the generators.
"""
import json
import os
import pathlib
import socket
import struct
import subprocess
import threading

PYTHON = "/usr/bin/python3"

# Volume geometry shared by the generators and checkers.
SHAPE = (24, 24, 16)
CENTER = (11.5, 12.0, 7.5)
RADIUS = 6.0
SEED = 1234


# --------------------------------------------------------------------------
# synthetic inputs

def _sphere(np, shape=SHAPE, center=CENTER, radius=RADIUS):
    zz = np.indices(shape, dtype=np.float64)
    d2 = sum((zz[i] - center[i]) ** 2 for i in range(3))
    return d2 <= radius * radius


def _image(np):
    """A float32 volume: 100 inside the sphere, 10 outside, plus a
    deterministic ramp so that the features are not trivial."""
    mask = _sphere(np)
    ramp = np.arange(np.prod(SHAPE), dtype=np.float64).reshape(SHAPE) % 7
    img = np.where(mask, 100.0, 10.0) + ramp
    return img.astype(np.float32), mask.astype(np.uint8)


def make_radiomics_inputs(workdir):
    import numpy as np
    import nibabel as nib
    img, mask = _image(np)
    aff = np.diag([0.8, 0.8, 2.0, 1.0])
    nib.save(nib.Nifti1Image(img, aff), os.path.join(workdir, "image.nii.gz"))
    nib.save(nib.Nifti1Image(mask, aff), os.path.join(workdir, "mask.nii.gz"))
    write_dicom_series(os.path.join(workdir, "dicom"), nslices=1)


def expected_radiomics():
    import numpy as np
    img, mask = _image(np)
    roi = img[mask.astype(bool)].astype(np.float64)
    return {
        "voxels": int(mask.sum()),
        "volume_mm3": float(mask.sum() * 0.8 * 0.8 * 2.0),
        "mean": float(roi.mean()),
        "std": float(roi.std()),
        "min": float(roi.min()),
        "max": float(roi.max()),
        "p90": float(np.percentile(roi, 90)),
    }


def write_dicom_series(outdir, nslices=8, rows=32, cols=32):
    """A CT series written by pydicom: nslices slices of rows x cols,
    1 mm pixels, 2 mm slices, pixel value = 10*slice + (row+col) % 50."""
    import numpy as np
    import pydicom
    from pydicom.dataset import Dataset, FileDataset, FileMetaDataset
    from pydicom.uid import ExplicitVRLittleEndian, generate_uid

    os.makedirs(outdir, exist_ok=True)
    study, series, frame = (generate_uid(), generate_uid(), generate_uid())
    for k in range(nslices):
        meta = FileMetaDataset()
        meta.MediaStorageSOPClassUID = "1.2.840.10008.5.1.4.1.1.2"
        meta.MediaStorageSOPInstanceUID = generate_uid()
        meta.TransferSyntaxUID = ExplicitVRLittleEndian
        name = os.path.join(outdir, "slice%03d.dcm" % k)
        ds = FileDataset(name, {}, file_meta=meta, preamble=b"\0" * 128)
        ds.is_little_endian = True
        ds.is_implicit_VR = False
        ds.SOPClassUID = meta.MediaStorageSOPClassUID
        ds.SOPInstanceUID = meta.MediaStorageSOPInstanceUID
        ds.StudyInstanceUID = study
        ds.SeriesInstanceUID = series
        ds.FrameOfReferenceUID = frame
        ds.PatientName = "Synthetic^Phantom"
        ds.PatientID = "SYN0001"
        ds.Modality = "CT"
        ds.StudyDate = "20240101"
        ds.SeriesDate = "20240101"
        ds.AcquisitionDate = "20240101"
        ds.StudyTime = "120000"
        ds.SeriesTime = "120000"
        ds.AcquisitionTime = "120000"
        ds.SeriesNumber = 1
        ds.InstanceNumber = k + 1
        ds.ImagePositionPatient = [0.0, 0.0, 2.0 * k]
        ds.ImageOrientationPatient = [1.0, 0.0, 0.0, 0.0, 1.0, 0.0]
        ds.SliceThickness = 2.0
        ds.SliceLocation = 2.0 * k
        ds.PixelSpacing = [1.0, 1.0]
        ds.Rows = rows
        ds.Columns = cols
        ds.SamplesPerPixel = 1
        ds.PhotometricInterpretation = "MONOCHROME2"
        ds.BitsAllocated = 16
        ds.BitsStored = 16
        ds.HighBit = 15
        ds.PixelRepresentation = 0
        ds.RescaleIntercept = 0
        ds.RescaleSlope = 1
        r, c = np.indices((rows, cols))
        px = (10 * k + (r + c) % 50).astype(np.uint16)
        ds.PixelData = px.tobytes()
        ds.save_as(name, write_like_original=False)
    return outdir


def make_code_gen_inputs(workdir):
    write_dicom_series(os.path.join(workdir, "dicom"), nslices=8)


def expected_code_gen():
    import numpy as np
    r, c = np.indices((32, 32))
    total = sum(int((10 * k + (r + c) % 50).sum()) for k in range(8))
    return {"shape": [32, 32, 8], "voxel_sum": total,
            "squares": sum(i * i for i in range(200))}


def _infer_volume(np):
    """Binary sphere plus two isolated voxels the 3x3x3 mean filter
    removes."""
    vol = _sphere(np, shape=(20, 20, 20), center=(9.5, 9.5, 9.5),
                  radius=5.5).astype(np.float32)
    vol[1, 1, 1] = 1.0
    vol[18, 2, 17] = 1.0
    return vol


def make_monai_inputs(workdir):
    import numpy as np
    import nibabel as nib
    vol = _infer_volume(np)
    nib.save(nib.Nifti1Image(vol, np.eye(4)),
             os.path.join(workdir, "ct.nii.gz"))


def expected_monai_mask():
    """What the snippet's network computes: a 3x3x3 mean filter (zero
    padding) thresholded at 0.5 (k/27 never equals 0.5)."""
    import numpy as np
    from scipy import ndimage
    vol = _infer_volume(np).astype(np.float64)
    mean = ndimage.uniform_filter(vol, size=3, mode="constant", cval=0.0)
    return (mean > 0.5).astype(np.uint8)


QUERY_ROWS = [
    # collection, modality, body_part, patients, series, size_mb
    ("LIDC-IDRI", "CT", "CHEST", 1010, 1308, 124000.5),
    ("LIDC-IDRI", "DX", "CHEST", 290, 290, 900.25),
    ("NSCLC-Radiomics", "CT", "CHEST", 422, 422, 33000.0),
    ("NSCLC-Radiomics", "RTSTRUCT", "CHEST", 422, 422, 120.0),
    ("TCGA-GBM", "MR", "BRAIN", 262, 5420, 64000.0),
    ("TCGA-GBM", "CT", "BRAIN", 30, 35, 2100.0),
    ("CPTAC-PDA", "CT", "PANCREAS", 168, 1200, 51000.75),
    ("CPTAC-PDA", "PT", "PANCREAS", 40, 80, 3000.0),
    ("MIDRC-RICORD-1C", "DX", "CHEST", 361, 998, 1500.0),
    ("COVID-19-NY-SBU", "CT", "CHEST", 1384, 13000, 99000.0),
]


def make_query_inputs(workdir):
    with open(os.path.join(workdir, "index.csv"), "w") as f:
        f.write("collection,modality,body_part,patients,series,size_mb\n")
        for row in QUERY_ROWS:
            f.write(",".join(str(x) for x in row) + "\n")


def expected_query():
    ct = [r for r in QUERY_ROWS if r[1] == "CT"]
    per = {}
    for r in ct:
        per[r[0]] = per.get(r[0], 0) + r[4]
    return {
        "ct_collections": len({r[0] for r in ct}),
        "ct_series": sum(r[4] for r in ct),
        "ct_size_mb": round(sum(r[5] for r in ct), 2),
        "top": max(per, key=lambda k: (per[k], k)),
    }


# --------------------------------------------------------------------------
# snippets (what the model writes)

RADIOMICS_SNIPPET = r'''
import csv, json, os, sys
import numpy as np
import nibabel as nib
import pydicom
from scipy import ndimage, stats
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt

img = nib.load("image.nii.gz")
msk = nib.load("mask.nii.gz")
data = np.asarray(img.dataobj, dtype=np.float64)
mask = np.asarray(msk.dataobj) > 0
sx, sy, sz = img.header.get_zooms()[:3]
roi = data[mask]
labels, nlab = ndimage.label(mask)
com = ndimage.center_of_mass(mask)
# surface: faces between mask and background voxels, in mm^2
m = np.pad(mask, 1)
faces = {0: sy * sz, 1: sx * sz, 2: sx * sy}
surface = 0.0
for ax, area in faces.items():
    surface += np.count_nonzero(np.diff(m.astype(np.int8), axis=ax)) * area
hist, edges = np.histogram(roi, bins=16)
p = hist[hist > 0] / hist.sum()
feat = {
    "voxels": int(mask.sum()),
    "volume_mm3": float(mask.sum() * sx * sy * sz),
    "surface_mm2": float(surface),
    "mean": float(roi.mean()),
    "std": float(roi.std()),
    "min": float(roi.min()),
    "max": float(roi.max()),
    "p90": float(np.percentile(roi, 90)),
    "skewness": float(stats.skew(roi)),
    "kurtosis": float(stats.kurtosis(roi)),
    "entropy": float(-(p * np.log2(p)).sum()),
    "components": int(nlab),
    "centroid": [float(c) for c in com],
}
ds = pydicom.dcmread(os.path.join("dicom", sorted(os.listdir("dicom"))[0]))
feat["dicom_modality"] = str(ds.Modality)
feat["dicom_pixel_sum"] = int(ds.pixel_array.astype(np.int64).sum())
with open("features.csv", "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["feature", "value"])
    for k, v in feat.items():
        if not isinstance(v, list):
            w.writerow([k, v])
fig, axs = plt.subplots(1, 2, figsize=(8, 3.5), dpi=80)
axs[0].imshow(data[:, :, data.shape[2] // 2].T, cmap="gray", origin="lower")
axs[0].contour(mask[:, :, data.shape[2] // 2].T, levels=[0.5], colors="r")
axs[0].set_title("slice with ROI")
axs[1].hist(roi, bins=16, color="tab:blue")
axs[1].set_xlabel("intensity")
axs[1].set_title("ROI histogram")
fig.tight_layout()
fig.savefig("plot.png")
print(json.dumps(feat))
'''

CODE_GEN_SNIPPET = r'''
import glob, json, os, subprocess, sys
from multiprocessing import Barrier, Pool
import numpy as np
import nibabel as nib

_meet = None

def keep(barrier):
    global _meet
    _meet = barrier

def meet(_):
    # Returns only once two tasks wait at once, so two distinct workers
    # ran it whatever the scheduler did; a pool that cannot run two
    # raises BrokenBarrierError after the timeout instead of hanging.
    _meet.wait(timeout=30)
    return os.getpid()

def square(x):
    return x * x

os.makedirs("nifti", exist_ok=True)
proc = subprocess.run(["/usr/bin/dcm2niix", "-z", "n", "-b", "y",
                       "-f", "series", "-o", "nifti", "dicom"],
                      capture_output=True, text=True)
if proc.returncode != 0:
    sys.stderr.write(proc.stdout + proc.stderr)
    sys.exit(3)
nii = sorted(glob.glob("nifti/*.nii"))
vol = nib.load(nii[0])
arr = np.asarray(vol.dataobj)
try:
    barrier = Barrier(2)
    with Pool(2, initializer=keep, initargs=(barrier,)) as pool:
        pids = pool.map(meet, range(2), chunksize=1)
        res = pool.map(square, range(200), chunksize=10)
    pool_error = None
except OSError as e:        # no private /dev/shm: no semaphores
    pids, res = [], []
    pool_error = "%s errno %s" % (type(e).__name__, e.errno)
with open("summary.json", "w") as f:
    json.dump({"files": [os.path.basename(p) for p in nii]}, f)
print(json.dumps({
    "converted": [os.path.basename(p) for p in nii],
    "shape": list(arr.shape),
    "voxel_sum": int(arr.astype(np.int64).sum()),
    "zooms": [float(z) for z in vol.header.get_zooms()[:3]],
    "squares": int(sum(res)),
    "workers": len(set(pids) - {os.getpid()}),
    "pool_error": pool_error,
}))
'''

MONAI_SNIPPET = r'''
import json, os
import numpy as np
import nibabel as nib
import torch
import torch.nn as nn

torch.set_num_threads(2)
device = "cuda" if torch.cuda.is_available() else "cpu"

class TinySeg(nn.Module):
    """Two 3-D convolutions: a 3x3x3 mean filter in 4 channels, then a
    1x1x1 projection with bias -0.5: mask = mean > 0.5."""
    def __init__(self):
        super().__init__()
        self.enc = nn.Conv3d(1, 4, 3, padding=1, bias=False)
        self.act = nn.ReLU()
        self.head = nn.Conv3d(4, 1, 1)
        with torch.no_grad():
            self.enc.weight.fill_(1.0 / 27.0)
            self.head.weight.fill_(0.25)
            self.head.bias.fill_(-0.5)
    def forward(self, x):
        return self.head(self.act(self.enc(x)))

img = nib.load("ct.nii.gz")
vol = np.asarray(img.dataobj, dtype=np.float32)
x = torch.from_numpy(vol)[None, None].to(device)
net = TinySeg().to(device).eval()
with torch.inference_mode():
    logits = net(x)
mask = (logits[0, 0] > 0).to(torch.uint8).cpu().numpy()
nib.save(nib.Nifti1Image(mask, img.affine), "mask.nii.gz")
print(json.dumps({"device": device, "shape": list(mask.shape),
                  "voxels": int(mask.sum()),
                  "params": sum(p.numel() for p in net.parameters())}))
'''

QUERY_SNIPPET = r'''
import json, socket, ssl, sys
import pandas as pd

df = pd.read_csv("index.csv")
ct = df.query("modality == 'CT'")
per = ct.groupby("collection")["series"].sum().sort_values(ascending=False)
ct.to_csv("ct_series.csv", index=False)
out = {
    "ct_collections": int(ct["collection"].nunique()),
    "ct_series": int(ct["series"].sum()),
    "ct_size_mb": round(float(ct["size_mb"].sum()), 2),
    "top": str(per.index[0]),
}
ctx = ssl.create_default_context()
out["ca_certs"] = ctx.cert_store_stats()["x509_ca"]
print(json.dumps(out))
'''


# --------------------------------------------------------------------------
# loopback test server for the query tools

class LoopbackServer:
    """Listens on two loopback ports (both really open, so a refusal
    seen by the snippet comes from the sandbox, not from the kernel's
    RST) and answers every request with a fixed line."""

    REPLY = "HTTP/1.0 200 OK\r\n\r\ncordon-loopback-ok"

    def __init__(self):
        self.socks = []
        self.ports = []
        for _ in range(2):
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            s.bind(("127.0.0.1", 0))
            s.listen(8)
            s.settimeout(0.2)
            self.socks.append(s)
            self.ports.append(s.getsockname()[1])
        self.hits = [0, 0]
        self._stop = threading.Event()
        self._threads = [threading.Thread(target=self._serve, args=(i,),
                                          daemon=True) for i in range(2)]

    def _serve(self, i):
        s = self.socks[i]
        while not self._stop.is_set():
            try:
                c, _ = s.accept()
            except OSError:
                continue
            self.hits[i] += 1
            with c:
                c.settimeout(5)
                try:
                    c.recv(4096)
                    c.sendall(self.REPLY.encode())
                except OSError:
                    pass

    def __enter__(self):
        for t in self._threads:
            t.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        for t in self._threads:
            t.join(2)
        for s in self.socks:
            s.close()


# --------------------------------------------------------------------------
# running under cordon

def compile_policy(cordonc, src, out, defines=(), include_dirs=()):
    cmd = [str(cordonc), "compile"]
    for d in include_dirs:
        cmd += ["-I", str(d)]
    for k, v in defines:
        cmd += ["-D", "%s=%s" % (k, v)]
    cmd += ["-o", str(out), str(src)]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError("cordonc failed (%d): %s\n%s" %
                           (p.returncode, " ".join(cmd), p.stderr))
    return out


class Run:
    def __init__(self, proc, status, wall):
        self.returncode = proc.returncode
        self.stdout = proc.stdout
        self.stderr = proc.stderr
        self.status = status
        self.wall = wall

    def json(self):
        lines = [ln for ln in self.stdout.splitlines() if ln.startswith("{")]
        if not lines:
            raise AssertionError("no JSON on stdout\nstdout:\n%s\nstderr:\n%s"
                                 % (self.stdout, self.stderr[-4000:]))
        return json.loads(lines[-1])

    def describe(self):
        return ("rc=%s status=%s\nstdout:\n%s\nstderr (tail):\n%s" %
                (self.returncode, json.dumps(self.status), self.stdout[-2000:],
                 self.stderr[-6000:]))


def run_cordon(cordon, blob, snippet_text, workdir, args=(), timeout=300,
               extra=(), pool=None):
    """Run snippet_text under cordon with blob, workdir kept (the caller
    owns it); pool="@name": in that warm pool (cordon --submit; a
    --workdir is never removed).  Returns a Run with the parsed status
    JSON (or None)."""
    import time
    workdir = pathlib.Path(workdir)
    snip = workdir.parent / (workdir.name + "-snippet.py")
    snip.write_text(snippet_text)
    status_path = workdir.parent / (workdir.name + "-status.json")
    if status_path.exists():
        status_path.unlink()
    cmd = [str(cordon), "--workdir", str(workdir), "--keep-workdir",
           "--status-file", str(status_path)] + list(extra) + \
          [str(blob), str(snip)] + [str(a) for a in args]
    if pool:
        cmd = [str(cordon), "--submit", pool, "--workdir", str(workdir),
               "--status-file", str(status_path)] + list(extra) + \
              [str(snip)] + [str(a) for a in args]
    t0 = time.monotonic()
    proc = subprocess.run(cmd, capture_output=True, text=True,
                          timeout=timeout, stdin=subprocess.DEVNULL)
    wall = time.monotonic() - t0
    status = None
    try:
        status = json.loads(status_path.read_text())
    except (OSError, ValueError):
        pass
    return Run(proc, status, wall)


# --------------------------------------------------------------------------
# confinement probe: run under every tool policy; prints one JSON object
# {check: outcome}.  Each outcome is "ok" (the operation succeeded) or
# "errno N" / an exception name.

PROBE_SNIPPET = r'''
import ctypes, errno, json, os, socket, subprocess, sys
out = {}
def attempt(name, fn):
    try:
        fn()
        out[name] = "ok"
    except OSError as e:
        out[name] = "errno %s" % e.errno
    except Exception as e:
        out[name] = type(e).__name__

def rd(p):
    with open(p, "rb") as f:
        f.read(1)

attempt("read_etc_shadow", lambda: rd("/etc/shadow"))
attempt("read_etc_passwd", lambda: rd("/etc/passwd"))
attempt("list_root", lambda: os.listdir("/root"))
attempt("list_home", lambda: os.listdir("/home"))
attempt("read_proc_1_environ", lambda: rd("/proc/1/environ"))
attempt("read_proc_1_status", lambda: rd("/proc/1/status"))
attempt("read_proc_ppid_status", lambda: rd("/proc/%d/status" % os.getppid()))
attempt("list_proc", lambda: os.listdir("/proc"))
attempt("write_etc", lambda: open("/etc/cordon-probe", "w").close())
attempt("write_usr", lambda: open("/usr/lib/cordon-probe", "w").close())
attempt("write_var_tmp", lambda: open("/var/tmp/cordon-probe", "w").close())
attempt("write_workdir", lambda: open("probe-out.txt", "w").write("x"))
tmpname = sys.argv[1]
def write_tmp():
    with open(tmpname, "w") as f:
        f.write("x")
attempt("write_tmp", write_tmp)
outside = sys.argv[2]      # a file the caller's uid owns, outside the workdir
attempt("chmod_outside", lambda: os.chmod(outside, 0o777))
attempt("utime_outside", lambda: os.utime(outside, (0, 0)))
attempt("setxattr_outside", lambda: os.setxattr(outside, "user.x", b"1"))
def fchmod_ro():
    fd = os.open("/usr/lib/python3.11/os.py", os.O_RDONLY)
    try:
        os.fchmod(fd, 0o666)
    finally:
        os.close(fd)
attempt("fchmod_readonly_fd", fchmod_ro)
attempt("exec_sh", lambda: subprocess.run(["/bin/sh", "-c", "true"]))
attempt("exec_usr_bin_env", lambda: subprocess.run(["/usr/bin/env"],
                                                  capture_output=True))
attempt("socket_unix", lambda: socket.socket(socket.AF_UNIX).close())
attempt("socket_netlink", lambda: socket.socket(
    socket.AF_NETLINK, socket.SOCK_RAW, 0).close())
attempt("socket_udp", lambda: socket.socket(socket.AF_INET,
                                            socket.SOCK_DGRAM).close())
attempt("socket_tcp", lambda: socket.socket(socket.AF_INET,
                                            socket.SOCK_STREAM).close())
attempt("socket_mptcp", lambda: socket.socket(socket.AF_INET,
                                              socket.SOCK_STREAM, 262).close())
attempt("socketpair", lambda: [s.close() for s in socket.socketpair()])

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
def sc(name, nr, *args):
    ctypes.set_errno(0)
    r = libc.syscall(ctypes.c_long(nr), *[ctypes.c_long(a) for a in args])
    if r == 0 and name.startswith("clone"):
        os._exit(0)        # a child that should never have been made
    out[name] = "ok" if r >= 0 else "errno %d" % ctypes.get_errno()
sc("ptrace_traceme", 101, 0, 0, 0, 0)
sc("unshare_user", 272, 0x10000000)
sc("unshare_net", 272, 0x40000000)
sc("mount", 165, 0, 0, 0, 0, 0)
sc("io_uring_setup", 425, 0, 0)
sc("memfd_create", 319, 0, 0)
sc("bpf", 321, 0, 0, 0)
sc("perf_event_open", 298, 0, 0, -1, -1, 0)
sc("keyctl", 250, 0, 0, 0, 0, 0)
sc("userfaultfd", 323, 0)
sc("personality_no_randomize", 135, 0x0040000)
sc("personality_query", 135, 0xffffffff)
sc("ioctl_tiocsti", 16, 0, 0x5412, 0)
sc("ioctl_tiocsti_high", 16, 0, 0x100005412, 0)
sc("clone_newuser", 56, 0x10000000 | 17, 0, 0, 0, 0)
sc("clone3", 435, 0, 0)
sc("prlimit_pid1", 302, 1, 7, 0, 0)
sc("kill_pid1", 62, 1, 0)
out["env"] = sorted(os.environ)
try:
    out["cwd_is_workdir"] = os.path.realpath(os.getcwd()) == \
        os.path.realpath(os.environ.get("HOME", ""))
except OSError as e:
    out["cwd_is_workdir"] = "errno %s" % e.errno
print(json.dumps(out))
'''

# What every policy must refuse (check -> acceptable outcomes).
EACCES, EPERM, ENOSYS, EAFNOSUPPORT = "errno 13", "errno 1", "errno 38", \
    "errno 97"
PROBE_DENIED = {
    "read_etc_shadow": {EACCES},
    "read_etc_passwd": {EACCES},
    "list_root": {EACCES},
    "list_home": {EACCES},
    "read_proc_1_environ": {EACCES},
    "read_proc_1_status": {EACCES},
    "read_proc_ppid_status": {EACCES, "errno 2"},   # ppid 0 in a pid ns
    "list_proc": {EACCES},
    "write_etc": {EACCES},
    "write_usr": {EACCES},
    "write_var_tmp": {EACCES},
    "chmod_outside": {EPERM},
    "utime_outside": {EPERM},
    "setxattr_outside": {EPERM},
    "fchmod_readonly_fd": {EPERM},
    "exec_sh": {EACCES},
    "exec_usr_bin_env": {EACCES},
    "socket_unix": {EAFNOSUPPORT},
    "socket_netlink": {EAFNOSUPPORT},
    "socket_udp": {EAFNOSUPPORT},
    "socket_mptcp": {EAFNOSUPPORT},
    "ptrace_traceme": {EPERM},
    "unshare_user": {EPERM},
    "unshare_net": {EPERM},
    "mount": {EPERM},
    "io_uring_setup": {ENOSYS},
    "memfd_create": {EPERM},
    "bpf": {EPERM},
    "perf_event_open": {EPERM},
    "keyctl": {EPERM},
    "userfaultfd": {EPERM},
    "personality_no_randomize": {ENOSYS, EPERM},
    "ioctl_tiocsti": {EPERM},
    "ioctl_tiocsti_high": {EPERM},
    "clone_newuser": {ENOSYS, EPERM},
    "clone3": {ENOSYS},
    "prlimit_pid1": {ENOSYS, EPERM},
}
# kill(1, 0) is refused by Landlock's signal scope unless a PID namespace
# makes pid 1 part of the sandbox: checked by the test when "pid" is absent.
PROBE_ALLOWED = ("write_workdir", "socketpair", "personality_query")
# The environment a tool sees: the policy's, nothing of the caller's.
ENV_BASE = {"HOME", "TMPDIR", "PATH", "LANG", "MPLBACKEND", "MPLCONFIGDIR",
            "XDG_CACHE_HOME", "XDG_CONFIG_HOME", "OPENBLAS_NUM_THREADS",
            "OMP_NUM_THREADS", "MKL_NUM_THREADS"}


def layers_summary(status):
    """One short string of the layers a status report says were applied."""
    if not status:
        return "-"
    lay = status.get("layers") or {}
    parts = []
    for key, short in (("no_new_privs", "nnp"), ("seccomp", "seccomp"),
                       ("caps_dropped", "caps"), ("rlimits", "rlimits"),
                       ("env", "env"), ("fds_closed", "fds"),
                       ("new_session", "setsid")):
        if lay.get(key):
            parts.append(short)
    if lay.get("landlock_fs"):
        ll = "landlock%s" % lay.get("landlock_abi", "")
        extra = [n for k, n in (("landlock_net", "net"),
                                ("scope_abstract_unix", "unix"),
                                ("scope_signal", "signal")) if lay.get(k)]
        parts.append(ll + ("(" + ",".join(extra) + ")" if extra else ""))
    ns = lay.get("namespaces") or []
    if ns:
        parts.append("ns:" + ",".join(ns))
    priv = [n for k, n in (("private_tmp", "tmp"), ("private_shm", "shm"))
            if lay.get(k)]
    if priv:
        parts.append("private:" + ",".join(priv))
    return " ".join(parts)
