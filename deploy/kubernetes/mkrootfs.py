#!/usr/bin/python3
"""Make the worker image's root file system offline, from the Debian
packages installed on this (Debian 12) host: no registry, no download.

    python3 deploy/kubernetes/mkrootfs.py [--build build] [--skip TOOL]... DEST

Then `podman build -f deploy/kubernetes/Containerfile -t cordon-worker .`
(FROM scratch, DEST copied in; DEST defaults there to build/image-rootfs).

What goes in:
  - the packages the tools' workloads import or run (PACKAGES: python3,
    numpy, pandas, matplotlib with its data and fonts, scipy, nibabel,
    pydicom, dcm2niix, torch for monai_infer, CA certificates, a shell
    and coreutils for the worker's own scripts), with
    every package they depend on (apt-cache depends --recurse, the
    installed ones), file by file from `dpkg -L`;
  - every package owning a path some blob requires (`cordonc explain
    --json BLOB`: its non-optional path rules; `dpkg -S`);
  - /usr/local/bin/cordon and the programs it executes in
    /usr/local/lib/cordon/ (build/image/), the warm pool files beside
    them (build/warm/ as /usr/local/lib/cordon/warm/), the blobs in
    /etc/cordon/policies, the Python client (cordon, cordon.mcp) in
    /usr/lib/python3/dist-packages, /etc/passwd and /etc/group with
    the worker's uid 10001, the empty mount points /work and /tmp.

Then it checks the result against the blobs: each required path of each
blob exists in DEST (links followed inside DEST).  A path missing means
that tool cannot run in the image: the script names the tool and the
paths and exits 1, unless the tool is given with --skip (its blob is
then left out of the image, and the script says so).  Exit 0: every
blob in the image has every path it requires.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys

PACKAGES = ["python3", "python3-numpy", "python3-pandas",
            "python3-matplotlib", "python3-scipy", "python3-nibabel",
            "python3-pydicom", "python3-torch", "dcm2niix",
            "ca-certificates", "libc-bin", "dash", "coreutils"]
UID = 10001
# Not needed to run anything: documentation and translations.
DROP = ("/usr/share/doc/", "/usr/share/man/", "/usr/share/info/",
        "/usr/share/locale/", "/usr/share/lintian/")


def sh(*argv):
    return subprocess.run(argv, capture_output=True, text=True)


def installed(pkgs):
    r = sh("dpkg-query", "-W", "-f", "${Package}\t${db:Status-Status}\n",
           *pkgs)
    return {ln.split("\t")[0] for ln in r.stdout.splitlines()
            if ln.endswith("\tinstalled")}


def closure(pkgs):
    """pkgs and every installed package they depend on."""
    r = sh("apt-cache", "depends", "--recurse", "--installed",
           "--no-recommends", "--no-suggests", "--no-conflicts",
           "--no-breaks", "--no-replaces", "--no-enhances", *pkgs)
    names = {ln.strip().split(":")[-1].strip().strip("<>")
             for ln in r.stdout.splitlines()}
    names = {n.split(":")[0] for n in names if n and " " not in n}
    return installed(names | set(pkgs))


def required_paths(cordonc, blob):
    out = sh(cordonc, "explain", "--json", blob)
    if out.returncode != 0:
        sys.exit("mkrootfs: %s: %s" % (blob, out.stderr.strip()))
    return [p["path"] for p in json.loads(out.stdout)["paths"]
            if not p["optional"] and not p["path"].startswith("$")]


def owner(path):
    """The package owning path (or a link to it), or None."""
    for p in (path, os.path.realpath(path)):
        r = sh("dpkg", "-S", p)
        if r.returncode == 0:
            return r.stdout.split(":")[0].split(",")[0].strip()
    return None


def resolve_in(root, path, depth=0):
    """path's target inside root (absolute links read as root's), or
    None when it does not exist there."""
    parts = [p for p in path.split("/") if p]
    cur = root
    for i, part in enumerate(parts):
        nxt = os.path.join(cur, part)
        if os.path.islink(nxt):
            if depth > 40:
                return None
            t = os.readlink(nxt)
            base = root if t.startswith("/") else cur[len(root):] or "/"
            rest = "/".join([t if t.startswith("/") else
                             os.path.join(base, t)] + parts[i + 1:])
            return resolve_in(root, rest if rest.startswith("/") else
                              "/" + rest, depth + 1)
        if not os.path.lexists(nxt):
            return None
        cur = nxt
    return cur


def copy_packages(pkgs, dest):
    files = []
    for p in sorted(pkgs):
        files += sh("dpkg", "-L", p).stdout.splitlines()
    # merged /usr: Debian's /bin, /lib, /lib64, /sbin are links
    for d in ("bin", "lib", "lib64", "sbin"):
        if os.path.islink("/" + d) and not os.path.lexists(
                os.path.join(dest, d)):
            os.symlink(os.readlink("/" + d), os.path.join(dest, d))
    keep = set()
    for f in files:
        if not f.startswith("/") or f.startswith(DROP):
            continue
        top, _, rest = f[1:].partition("/")
        if os.path.islink("/" + top) and rest:     # /sbin/x is /usr/sbin/x
            f = os.path.join("/", os.readlink("/" + top), rest)
        if os.path.islink(f) or (os.path.lexists(f) and
                                 not os.path.isdir(f)):
            keep.add(f)
    keep = sorted(keep)
    lst = os.path.join(dest, ".files")
    with open(lst, "w") as f:
        f.write("\n".join(k.lstrip("/") for k in keep) + "\n")
    r = subprocess.run("tar -C / --no-recursion -cf - -T '%s' | "
                       "tar -C '%s' -xf -" % (lst, dest), shell=True)
    os.unlink(lst)
    if r.returncode != 0:
        sys.exit("mkrootfs: copying the packages' files failed")


ALT_DIRS = ("/usr/bin", "/usr/sbin", "/usr/lib/x86_64-linux-gnu", "/usr/lib")


def alternatives(dest):
    """The links update-alternatives made (a package's postinst, so not
    in `dpkg -L`: numpy's libblas.so.3, for one): each link in ALT_DIRS
    into /etc/alternatives, and that link, where the alternative's file
    is in dest."""
    for d in ALT_DIRS:
        for e in os.scandir(d):
            if not e.is_symlink():
                continue
            alt = os.readlink(e.path)
            if not alt.startswith("/etc/alternatives/"):
                continue
            target = os.path.realpath(e.path)
            if not os.path.lexists(dest + target):
                continue
            for link, to in ((alt, os.readlink(alt)), (e.path, alt)):
                os.makedirs(os.path.dirname(dest + link), exist_ok=True)
                if not os.path.lexists(dest + link):
                    os.symlink(to, dest + link)


def add_cordon(build, src, dest, blobs):
    # cordon and the programs it executes for the features a plain run
    # leaves out (build/image/: stripped, laid out as under PREFIX), and
    # the warm pool's files beside those programs, where cordon-pool
    # finds them (launcher/companion.c)
    image = os.path.join(build, "image")
    local = os.path.join(dest, "usr/local")
    for sub in ("bin", "lib/cordon"):
        os.makedirs(os.path.join(local, sub), exist_ok=True)
        for name in os.listdir(os.path.join(image, sub)):
            to = os.path.join(local, sub, name)
            if os.path.isfile(os.path.join(image, sub, name)):
                shutil.copy(os.path.join(image, sub, name), to)
                os.chmod(to, 0o755)
    warm = os.path.join(local, "lib/cordon/warm")
    shutil.rmtree(warm, ignore_errors=True)
    shutil.copytree(os.path.join(build, "warm"), warm,
                    ignore=shutil.ignore_patterns("obj", "*.o"))
    pol = os.path.join(dest, "etc/cordon/policies")
    shutil.rmtree(pol, ignore_errors=True)
    os.makedirs(pol)
    for b in blobs:
        shutil.copy(b, pol)
    # where the client and cordon-mcp look beside the launcher
    share = os.path.join(dest, "usr/local/share/cordon")
    os.makedirs(share, exist_ok=True)
    if not os.path.lexists(os.path.join(share, "policies")):
        os.symlink("/etc/cordon/policies", os.path.join(share, "policies"))
    site = os.path.join(dest, "usr/lib/python3/dist-packages")
    os.makedirs(site, exist_ok=True)
    shutil.rmtree(os.path.join(site, "cordon"), ignore_errors=True)
    shutil.copytree(os.path.join(src, "clients/python/cordon"),
                    os.path.join(site, "cordon"),
                    ignore=shutil.ignore_patterns("__pycache__"))
    etc = os.path.join(dest, "etc")
    with open(os.path.join(etc, "passwd"), "w") as f:
        f.write("root:x:0:0:root:/root:/usr/sbin/nologin\n"
                "cordon:x:%d:%d:cordon worker:/work:/usr/sbin/nologin\n"
                "nobody:x:65534:65534:nobody:/nonexistent:"
                "/usr/sbin/nologin\n" % (UID, UID))
    with open(os.path.join(etc, "group"), "w") as f:
        f.write("root:x:0:\ncordon:x:%d:\nnogroup:x:65534:\n" % UID)
    sh_link = os.path.join(dest, "usr/bin/sh")
    if not os.path.lexists(sh_link):     # dash's postinst makes it
        os.symlink("dash", sh_link)
    for d in ("work", "tmp", "proc", "dev", "sys", "run"):
        os.makedirs(os.path.join(dest, d), exist_ok=True)
    os.chmod(os.path.join(dest, "tmp"), 0o1777)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    src = os.path.dirname(os.path.dirname(here))
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=os.path.join(src, "build"))
    ap.add_argument("--skip", action="append", default=[],
                    help="a tool left out of the image")
    ap.add_argument("dest")
    a = ap.parse_args()
    cordonc = os.path.join(a.build, "cordonc")
    blobs = sorted(os.path.join(a.build, "policies", f)
                   for f in os.listdir(os.path.join(a.build, "policies"))
                   if f.endswith(".cpol") and f[:-5] not in a.skip)
    want = set(installed(PACKAGES))
    for b in blobs:
        for p in required_paths(cordonc, b):
            if os.path.lexists(p) and not p.startswith(("/dev/", "/proc/",
                                                        "/sys/")):
                o = owner(p)
                if o:
                    want.add(o)
    os.makedirs(a.dest, exist_ok=True)
    pkgs = closure(sorted(want))
    print("mkrootfs: %d packages (%s missing here: %s)" % (
        len(pkgs), len(set(PACKAGES) - pkgs),
        " ".join(sorted(set(PACKAGES) - pkgs)) or "none"))
    copy_packages(pkgs, a.dest)
    alternatives(os.path.abspath(a.dest))
    add_cordon(a.build, src, a.dest, blobs)
    sh("ldconfig", "-r", a.dest)
    missing = {}
    for b in blobs:
        for p in required_paths(cordonc, b):
            if p.startswith(("/dev/", "/proc/", "/sys/")):
                continue         # the runtime mounts them
            if resolve_in(os.path.abspath(a.dest), p) is None:
                missing.setdefault(os.path.basename(b)[:-5], []).append(p)
    for tool in a.skip:
        print("mkrootfs: %s left out (--skip)" % tool)
    if missing:
        for tool, paths in sorted(missing.items()):
            print("mkrootfs: %s cannot run in this image: missing %s "
                  "(install its packages on this host, or --skip %s)"
                  % (tool, " ".join(paths), tool), file=sys.stderr)
        return 1
    print("mkrootfs: %s: every required path of %d blobs is there" %
          (a.dest, len(blobs)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
