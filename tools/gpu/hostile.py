"""The GPU check's hostile probes: each tries one thing the policy refuses.

    python3 hostile.py open NODE          open a device node read-only
    python3 hostile.py write FILE         open a file for writing (writes
                                          nothing, closes at once)
    python3 hostile.py ioctl NODE REQ     open NODE (granted) read-write,
                                          then ioctl(REQ) with a zeroed
                                          64-byte argument

Prints one JSON object: the probe, the stage that failed ("open" or
"ioctl", null when everything succeeded) and the errno name.  Nothing is
ever written to a file, so a probe that is not refused does no harm.
"""
import errno
import fcntl
import json
import os
import sys


def attempt(kind, target, request):
    fd = -1
    stage = "open"
    try:
        if kind == "open":
            fd = os.open(target, os.O_RDONLY | os.O_NONBLOCK)
        elif kind == "write":
            fd = os.open(target, os.O_WRONLY | os.O_NONBLOCK)
        else:
            fd = os.open(target, os.O_RDWR | os.O_NONBLOCK)
            stage = "ioctl"
            fcntl.ioctl(fd, request, bytes(64))
        return None, None
    except OSError as e:
        return stage, errno.errorcode.get(e.errno, str(e.errno))
    finally:
        if fd >= 0:
            os.close(fd)


def main():
    kind, target = sys.argv[1], sys.argv[2]
    request = int(sys.argv[3], 0) if kind == "ioctl" else 0
    stage, err = attempt(kind, target, request)
    print(json.dumps({"probe": kind, "target": target, "request": request,
                      "failed_at": stage, "errno": err}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
