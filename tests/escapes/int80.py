# ia32 system call through `int 0x80` from mmap'd machine code: getpid
# (ia32 nr 20).  The filter's arch check must kill it (SIGSYS) or refuse it.
import ctypes, mmap
code = bytes([0xb8, 20, 0, 0, 0,   # mov eax, 20
              0xcd, 0x80,          # int 0x80
              0xc3])               # ret
m = mmap.mmap(-1, 4096, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
m.write(code)
addr = ctypes.addressof(ctypes.c_char.from_buffer(m))
f = ctypes.CFUNCTYPE(ctypes.c_long)(addr)
print("ATTACK", flush=True)  # reached: executable memory works
r = f()
print("ESCAPED int80 returned", r, flush=True)
