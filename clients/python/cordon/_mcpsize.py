"""cordon-mcp's results sized for a model (see cordon-mcp(1), RESULTS):
stdout and stderr cut to a text budget (head and tail, what was left out
said in words), images bounded by bytes and pixels (read from their
headers), other files as text or embedded resources up to a bound, and
the whole reply held under the official SDKs' 10 MiB message.  Pure: no
I/O, so a test can feed it any bytes."""
from __future__ import annotations

import base64
import json
import struct
import urllib.parse
from typing import Any, NamedTuple, Sequence

# Bytes of text shown for the streams of one run (stdout, stderr; a
# cell's value and error too), and again for its text files: tens of KB
# is what a model can read in one turn without its context filling.
TEXT_BUDGET = 20_000
# Bytes of one reply's payload (texts, base64 of images and resources,
# counted as JSON writes them): the official TypeScript SDK's stdio
# client drops the connection on a message past 10 MiB; the rest is for
# the JSON around it.
REPLY_BUDGET = 8 << 20
# One image: what the model APIs take (5 MB an image, 8000 pixels a
# side for Anthropic's); a larger one is listed, not sent.
IMAGE_BYTES = 5_000_000
IMAGE_SIDE = 8000
# A file other than an image sent as an embedded resource, at most.
RESOURCE_BYTES = 1 << 20
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
JPEG_MAGIC = b"\xff\xd8\xff"
IMAGE_TYPES = ((".png", "image/png", PNG_MAGIC),
               (".jpg", "image/jpeg", JPEG_MAGIC),
               (".jpeg", "image/jpeg", JPEG_MAGIC),
               (".svg", "image/svg+xml", b""))
TEXT_TYPES = {".json": "application/json", ".csv": "text/csv",
              ".md": "text/markdown", ".html": "text/html",
              ".py": "text/x-python"}
# JPEG start-of-frame markers (they carry the size); not DHT, JPG, DAC.
_SOF = frozenset(range(0xC0, 0xD0)) - {0xC4, 0xC8, 0xCC}


class Limits(NamedTuple):
    text_bytes: int = TEXT_BUDGET
    reply_bytes: int = REPLY_BUDGET
    image_bytes: int = IMAGE_BYTES
    image_side: int = IMAGE_SIDE
    resource_bytes: int = RESOURCE_BYTES


def image_type(name: str, data: bytes) -> str | None:
    """The image MIME type by suffix, if the content agrees."""
    low = name.lower()
    for suffix, mime, magic in IMAGE_TYPES:
        if not low.endswith(suffix):
            continue
        if magic and not data.startswith(magic):
            return None
        if not magic and b"<svg" not in data[:4096]:
            return None
        return mime
    return None


def png_size(data: bytes) -> tuple[int, int] | None:
    """Width and height from a PNG's IHDR (bytes 16-24)."""
    if len(data) < 24 or not data.startswith(PNG_MAGIC) or \
            data[12:16] != b"IHDR":
        return None
    w, h = struct.unpack(">II", data[16:24])
    return w, h


def jpeg_size(data: bytes) -> tuple[int, int] | None:
    """Width and height from a JPEG's first start-of-frame segment,
    walking the segments by their lengths (every read bounds-checked)."""
    if not data.startswith(JPEG_MAGIC):
        return None
    i = 2
    while i + 4 <= len(data):
        if data[i] != 0xFF:
            return None
        marker = data[i + 1]
        if marker == 0xFF:              # fill byte
            i += 1
            continue
        if marker in (0x01, 0xD8) or 0xD0 <= marker <= 0xD7:
            i += 2                      # no length
            continue
        seglen = struct.unpack(">H", data[i + 2:i + 4])[0]
        if seglen < 2:
            return None
        if marker in _SOF:
            if i + 9 > len(data):
                return None
            h, w = struct.unpack(">HH", data[i + 5:i + 9])
            return w, h
        if marker == 0xDA:              # scan data before any frame
            return None
        i += 2 + seglen
    return None


def image_size(mime: str, data: bytes) -> tuple[int, int] | None:
    return png_size(data) if mime == "image/png" else \
        jpeg_size(data) if mime == "image/jpeg" else None


def megabytes(n: int) -> str:
    return f"{n / 1e6:.1f} MB" if n >= 100_000 else f"{n:,} bytes"


def _char_start(data: bytes, i: int) -> int:
    """i moved back to the start of a UTF-8 character."""
    while 0 < i < len(data) and data[i] & 0xC0 == 0x80:
        i -= 1
    return i


def clip(data: bytes, budget: int, what: str) -> str:
    """data as text, at most budget bytes of it: the head (two fifths)
    and the tail, with what was left out said in words between them."""
    if len(data) <= budget:
        return data.decode("utf-8", "replace")
    head = _char_start(data, budget * 2 // 5)
    tail = _char_start(data, len(data) - (budget - head))
    left = tail - head
    return (data[:head].decode("utf-8", "replace")
            + f"\n[cordon-mcp: {left:,} bytes of {what} left out here, of "
            f"{len(data):,}: the first {head:,} and the last "
            f"{len(data) - tail:,} are shown]\n"
            + data[tail:].decode("utf-8", "replace"))


def shares(sizes: Sequence[int], budget: int) -> list[int]:
    """The budget split among texts of these sizes: a short one keeps
    all of itself, the long ones share what is left equally."""
    out = [0] * len(sizes)
    todo = sorted(range(len(sizes)), key=lambda k: sizes[k])
    left = budget
    for n, k in enumerate(todo):
        fair = left // (len(todo) - n)
        out[k] = min(sizes[k], fair)
        left -= out[k]
    return out


def clip_all(texts: Sequence[tuple[str, bytes]], budget: int) -> list[str]:
    """Each (name, bytes) clipped to its share of the budget."""
    cuts = shares([len(b) for _, b in texts], budget)
    return [clip(b, cut, name) for (name, b), cut in zip(texts, cuts)]


def json_len(s: str) -> int:
    return len(json.dumps(s))


class Sizer:
    """One reply's content, kept within its budget: files are offered in
    turn and each is sent (image, text or resource) or refused with a
    reason said to the model."""

    def __init__(self, limits: Limits, text_used: int) -> None:
        self.limits = limits
        self.left = limits.reply_bytes - text_used
        self.text_left = limits.text_bytes
        self.content: list[dict[str, Any]] = []
        self.files: list[dict[str, Any]] = []

    def _spend(self, n: int) -> bool:
        if n > self.left:
            return False
        self.left -= n
        return True

    def offer(self, name: str, size: int, data: bytes | None,
              cut: str = "") -> dict[str, Any]:
        """cut: why only the first bytes of the file are at hand ("" when
        all of it is)."""
        entry: dict[str, Any] = {"name": name, "bytes": size}
        self.files.append(entry)
        why = self._send(entry, name, size, data, cut)
        if why:
            entry["returned"] = None
            entry["reason"] = why
        return entry

    def _send(self, entry: dict[str, Any], name: str, size: int,
              data: bytes | None, cut: str) -> str:
        lim = self.limits
        mime = image_type(name, data) if data is not None else None
        if mime is not None:
            if size > lim.image_bytes:
                return (f"too large ({megabytes(size)}; images up to "
                        f"{megabytes(lim.image_bytes)})")
            dims = image_size(mime, data or b"")
            if dims and max(dims) > lim.image_side:
                return (f"too large ({dims[0]} x {dims[1]} pixels; images "
                        f"up to {lim.image_side} a side)")
        if cut:
            return cut
        if data is None:
            return "not read"
        if mime is not None:
            b64 = base64.b64encode(data).decode()
            if not self._spend(len(b64)):
                return self._over(size)
            self.content.append({"type": "image", "mimeType": mime,
                                 "data": b64})
            entry["returned"] = "image"
            entry["mimeType"] = mime
            return ""
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            text = None
        mtype = _mime(name, text is not None)
        if text is not None and size <= self.text_left and \
                "\0" not in text:
            # Twice: the content's text and structuredContent's.
            if not self._spend(2 * json_len(text) + 100):
                return self._over(size)
            self.text_left -= size
            self.content.append({"type": "text",
                                 "text": f"--- file {name} ---\n{text}"})
            entry["returned"] = "text"
            entry["text"] = text
            return ""
        if size > lim.resource_bytes:
            return (f"too large ({megabytes(size)}; files up to "
                    f"{megabytes(lim.resource_bytes)} come back)")
        res: dict[str, Any] = {"uri": "cordon://work/"
                               + urllib.parse.quote(name),
                               "mimeType": mtype}
        if text is not None:
            res["text"] = text
            cost = json_len(text)
        else:
            res["blob"] = base64.b64encode(data).decode()
            cost = len(res["blob"])
        if not self._spend(cost):
            return self._over(size)
        self.content.append({"type": "resource", "resource": res})
        entry["returned"] = "resource"
        entry["mimeType"] = mtype
        return ""

    def _over(self, size: int) -> str:
        return (f"too large ({megabytes(size)}) for what is left of the "
                f"reply's {megabytes(self.limits.reply_bytes)}")


def _mime(name: str, text: bool) -> str:
    low = name.lower()
    for suffix, mime in TEXT_TYPES.items():
        if low.endswith(suffix):
            return mime
    return "text/plain" if text else "application/octet-stream"


def file_line(files: Sequence[dict[str, Any]]) -> list[str]:
    """The files in words: what came back and how, what did not and why."""
    back = [f"{f['name']} ({f['bytes']:,} bytes, {f['returned']})"
            for f in files if f.get("returned")]
    lines = ["files returned: " + ", ".join(back)] if back else []
    lines += [f"not returned: {f['name']}: {f['reason']}"
              for f in files if not f.get("returned")]
    return lines
