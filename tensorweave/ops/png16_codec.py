"""16-bit colour PNGs (RGB, gray + alpha, RGBA), which the imaging library behind `image_ops` reads as 8-bit
and cannot write: TF's libpng keeps all 16 bits. Decoding covers non-interlaced files (any filter); encoding
writes unfiltered rows. Other PNGs stay with the imaging library.
"""

from __future__ import annotations

import struct
import zlib

import numpy as np

_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_COLOR_CHANNELS = {2: 3, 4: 2, 6: 4}  # PNG colour type -> channels, for the types with more than one channel
_TYPE_OF_CHANNELS = {channels: color for color, channels in _COLOR_CHANNELS.items()}


def _chunks(contents: bytes):
    """(type, data) of each chunk after the signature, while they parse."""
    offset = len(_SIGNATURE)
    while offset + 8 <= len(contents):
        length, kind = struct.unpack(">I4s", contents[offset:offset + 8])
        yield kind, contents[offset + 8:offset + 8 + length]
        offset += 12 + length


def is_png16_color(contents: bytes) -> bool:
    """Whether `contents` is a non-interlaced 16-bit PNG of 2, 3 or 4 channels."""
    if not contents.startswith(_SIGNATURE) or len(contents) < 33 or contents[12:16] != b"IHDR":
        return False
    depth, color, interlace = contents[24], contents[25], contents[28]
    return depth == 16 and color in _COLOR_CHANNELS and interlace == 0


def decode_png16(contents: bytes) -> np.ndarray:
    """The HxWxC uint16 pixels of a file that `is_png16_color`; raises ValueError when it is corrupt."""
    width, height = struct.unpack(">II", contents[16:24])
    channels = _COLOR_CHANNELS[contents[25]]
    data = b"".join(chunk for kind, chunk in _chunks(contents) if kind == b"IDAT")
    try:
        raw = np.frombuffer(zlib.decompress(data), np.uint8)
    except zlib.error as e:
        raise ValueError(str(e)) from None
    stride, bpp = width * channels * 2, channels * 2
    if raw.size < height * (stride + 1):
        raise ValueError("truncated image data")
    rows = raw[:height * (stride + 1)].reshape(height, stride + 1)
    out = np.zeros((height, stride), np.uint8)
    previous = np.zeros(stride, np.int64)
    for y in range(height):
        previous = _unfilter(int(rows[y, 0]), rows[y, 1:].astype(np.int64), previous, bpp)
        out[y] = previous
    return out.view(">u2").astype(np.uint16).reshape(height, width, channels)


def _unfilter(kind: int, line: np.ndarray, previous: np.ndarray, bpp: int) -> np.ndarray:
    """One row with its PNG filter undone, given the row above (already undone)."""
    if kind == 0:
        return line
    if kind == 2:
        return (line + previous) & 0xFF
    if kind not in (1, 3, 4):
        raise ValueError(f"bad filter type {kind}")
    out, zero = line.copy(), np.zeros(bpp, np.int64)
    for start in range(0, line.size, bpp):  # each pixel is predicted from the decoded one to its left
        here = slice(start, start + bpp)
        left = out[start - bpp:start] if start else zero
        up, upleft = previous[here], previous[start - bpp:start] if start else zero
        predicted = left if kind == 1 else (left + up) >> 1 if kind == 3 else _paeth(left, up, upleft)
        out[here] = (line[here] + predicted) & 0xFF
    return out


def _paeth(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    p = a + b - c
    pa, pb, pc = np.abs(p - a), np.abs(p - b), np.abs(p - c)
    return np.where((pa <= pb) & (pa <= pc), a, np.where(pb <= pc, b, c))


def encode_png16(image: np.ndarray, level: int) -> bytes:
    """HxWxC (C in 2, 3, 4) uint16 pixels as a 16-bit PNG, rows unfiltered, compressed at zlib `level`."""
    height, width, channels = image.shape
    header = struct.pack(">IIBBBBB", width, height, 16, _TYPE_OF_CHANNELS[channels], 0, 0, 0)
    rows = np.ascontiguousarray(image.astype(">u2")).view(np.uint8).reshape(height, width * channels * 2)
    raw = np.concatenate([np.zeros((height, 1), np.uint8), rows], axis=1).tobytes()
    return _SIGNATURE + _chunk(b"IHDR", header) + _chunk(b"IDAT", zlib.compress(raw, level)) + _chunk(b"IEND", b"")


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
