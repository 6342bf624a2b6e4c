#!/usr/bin/python3
"""Write the seed corpora of the fuzz harnesses (tests/fuzz/).

    tools/fuzz-seeds.py --build build --out build-fuzz/seeds

out/blob/    every compiled blob in BUILD/policies/, every test policy
             that BUILD/cordonc compiles, plus one small blob built here
             field by field (cpol.h), valid even without cordonc
out/policy/  every *.policy under policies/ and tests/ (the golden
             tests' bad policies are the point)
out/bpf/     for each blob's seccomp program, a few inputs in the bpf
             harness's format: a 64-byte struct seccomp_data
             (little-endian nr, arch, ip, args[6]) then the program,
             8 bytes per instruction (u16 code, u8 jt, u8 jf, u32 k)
out/oci/     every *.json under tests/oci/, and every shipped blob as
             `cordonc export --format oci` writes it

Seeds are regenerated on every `make fuzz`; the corpus the fuzzer grows
lives apart, in build-fuzz/corpus/.
"""
import argparse
import hashlib
import pathlib
import shutil
import struct
import subprocess
import tempfile

MAGIC = b"\x89CPOL\r\n\x1a"
HEADER_LEN = 64
CRITICAL = 1
AUDIT_ARCH_X86_64 = 0xC000003E
SECCOMP_SECTION = 3


def s(text):
    data = text.encode()
    return struct.pack("<H", len(data)) + data


def sect(kind, body):
    return struct.pack("<HHI", kind, CRITICAL, len(body)) + body


def seal(body_sections, nsect, arch=AUDIT_ARCH_X86_64):
    size = HEADER_LEN + len(body_sections)
    head = MAGIC + struct.pack("<HHIIIII", 1, HEADER_LEN, arch, size, nsect,
                               0, 0)
    digest = hashlib.sha256(head + body_sections).digest()
    return head + digest + body_sections


def tiny_blob():
    """A minimal valid blob: allow everything but ptrace (kill)."""
    ld = lambda k: (0x20, 0, 0, k)         # BPF_LD|BPF_W|BPF_ABS
    ret = lambda k: (0x06, 0, 0, k)        # BPF_RET|BPF_K
    prog = [ld(4), (0x15, 1, 0, AUDIT_ARCH_X86_64), ret(0x80000000),
            ld(0), (0x15, 0, 1, 101), ret(0x80000000), ret(0x7fff0000)]
    insns = struct.pack("<I", len(prog)) + b"".join(
        struct.pack("<HBBI", *i) for i in prog)
    secs = [
        sect(1, s("tiny") + s("fuzz seed") + s("fuzz-seeds") + bytes(32)),
        sect(2, struct.pack("<III", 6, 0x2, 0)),
        sect(3, insns),
        sect(4, struct.pack("<I", 2)
             + struct.pack("<QB", 0x1 | 0x4 | 0x8, 0) + s("/usr")
             + struct.pack("<QB", 0x2, 1) + s("$WORKDIR/out")),
        sect(5, struct.pack("<I", 1) + struct.pack("<BH", 1, 443)),
        sect(6, struct.pack("<QQI", 60000, 1 << 20, 2)
             + struct.pack("<BQ", 1, 30) + struct.pack("<BQ", 2, 1 << 32)),
        sect(7, struct.pack("<I", 2) + struct.pack("<B", 1) + s("LANG")
             + s("") + struct.pack("<B", 2) + s("HOME") + s("$WORKDIR")),
        sect(8, struct.pack("<I", 3) + s("/usr/bin/python3") + s("-I")
             + s("$SNIPPET")),
        sect(9, struct.pack("<II", 0x80000000, 1)
             + struct.pack("<I", 101) + s("ptrace")
             + struct.pack("<IB", 0x80000000, 1)
             + struct.pack("<BBBQQ", 0, 7, 32, 0xffffffff, 16)
             + s("tiny.policy:1")),
    ]
    return seal(b"".join(secs), len(secs))


def seccomp_program(blob):
    """The raw instructions of a blob's SECCOMP section, or None."""
    if len(blob) < HEADER_LEN or blob[:8] != MAGIC:
        return None
    nsect = struct.unpack_from("<I", blob, 20)[0]
    at = HEADER_LEN
    for _ in range(nsect):
        if at + 8 > len(blob):
            return None
        kind, _flags, length = struct.unpack_from("<HHI", blob, at)
        if kind == SECCOMP_SECTION:
            count = struct.unpack_from("<I", blob, at + 8)[0]
            return blob[at + 12:at + 12 + 8 * count]
        at += 8 + length
    return None


def seccomp_data(nr, arch=AUDIT_ARCH_X86_64, args=(0,) * 6):
    return struct.pack("<iIQ6Q", nr, arch, 0x401000, *args)


def write(out, name, data):
    out.mkdir(parents=True, exist_ok=True)
    (out / name).write_bytes(data)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--out", default="build-fuzz/seeds")
    ap.add_argument("--src", default=".")
    opts = ap.parse_args()
    src, out = pathlib.Path(opts.src), pathlib.Path(opts.out)
    if out.exists():
        shutil.rmtree(out)
    for h in ("blob", "policy", "bpf", "oci"):
        (out / h).mkdir(parents=True)

    sources = []
    for pattern in ("policies/**/*.policy", "tests/**/*.policy"):
        sources += sorted(src.glob(pattern))
    for p in sources:
        tag = str(p.relative_to(src)).replace("/", "_")
        write(out / "policy", tag, p.read_bytes())

    blobs = {"tiny.cpol": tiny_blob()}
    for p in sorted((pathlib.Path(opts.build) / "policies").glob("*.cpol")):
        blobs[p.name] = p.read_bytes()
    # Every test policy that compiles is a blob seed too.
    cordonc = pathlib.Path(opts.build) / "cordonc"
    if cordonc.exists():
        with tempfile.TemporaryDirectory() as tmp:
            for p in sources:
                tag = str(p.relative_to(src)).replace("/", "_")
                blob = pathlib.Path(tmp) / (tag + ".cpol")
                r = subprocess.run([str(cordonc), "compile", "-o", str(blob),
                                    str(p)], capture_output=True,
                                   check=False)
                if r.returncode == 0 and blob.exists():
                    blobs[blob.name] = blob.read_bytes()
    for name, data in blobs.items():
        write(out / "blob", name, data)
        prog = seccomp_program(data)
        if not prog:
            continue
        stem = name[:-len(".cpol")]
        # read, ptrace, an x32 number, a wrong arch, an unknown number
        for tag, d in (("read", seccomp_data(0)),
                       ("ptrace", seccomp_data(101)),
                       ("x32", seccomp_data(0x40000000 | 1)),
                       ("i386", seccomp_data(1, arch=0x40000003)),
                       ("socket", seccomp_data(41, args=(1, 1, 0, 0, 0, 0))),
                       ("big", seccomp_data(999))):
            write(out / "bpf", f"{stem}-{tag}", d + prog)

    for p in sorted(src.glob("tests/oci/*.json")):
        write(out / "oci", p.name, p.read_bytes())
    for p in sorted((pathlib.Path(opts.build) / "policies").glob("*.cpol")):
        if not cordonc.exists():
            break
        r = subprocess.run([str(cordonc), "export", "--format", "oci",
                            "--widen-unknown", str(p)], capture_output=True,
                           check=False)
        if r.returncode == 0:
            write(out / "oci", p.stem + ".json", r.stdout)

    counts = {h: len(list((out / h).iterdir())) for h in ("blob", "policy",
                                                           "bpf", "oci")}
    print("fuzz seeds:", ", ".join(f"{h} {n}" for h, n in counts.items()))


if __name__ == "__main__":
    main()
