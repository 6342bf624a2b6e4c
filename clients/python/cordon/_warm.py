"""The warm protocol's constants, generated from launcher/warm/warm.h
by tools/gen_cpol_py.py: do not edit (tests/test_cpol_constants.py
checks it against the header)."""

WARM_REQUEST_MAX = 65536
WARM_WORDS_MAX = 1000
WARM_ERROR_MAX = 500
WARM_HEAD_LEN = 5
WARM_FDS_MIN = 3
WARM_FDS_MAX = 4
WARM_STATUS_FD = 3
WARM_CTL_FD = 3
WARM_MSG_WARM = b'W'
WARM_MSG_READY = b'R'
WARM_READY_TMPFS = b'T'
WARM_READY_PLAIN = b'-'
WARM_MSG_GO = b'G'
WARM_MSG_EXIT = b'X'
WARM_MSG_ERROR = b'E'
WARM_READY_WORD = b'ready'
