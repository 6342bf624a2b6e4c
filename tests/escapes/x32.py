# x32 system call numbers (bit 0x40000000): getpid.
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
print("ATTACK", flush=True)  # reached: ctypes works
r = libc.syscall(0x40000000 | 39)
print("ESCAPED x32 returned", r, ctypes.get_errno(), flush=True)
