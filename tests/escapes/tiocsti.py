# TIOCSTI (and the request with high bits set) on every descriptor that
# might be a terminal, and on /dev/tty.
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
c = ctypes.c_char(b"x")
fds = [0, 1, 2]
try:
    fds.append(os.open("/dev/tty", os.O_RDWR))
except OSError as e:
    print("no /dev/tty:", e.errno)
for fd in fds:
    for req in (0x5412, 0x5412 | 0xffffffff00000000, 0x541C):
        r = libc.ioctl(fd, ctypes.c_ulong(req), ctypes.byref(c))
        if r == 0:
            print("ESCAPED TIOCSTI fd", fd, hex(req), flush=True)
print("done")
