"""PNG files as TF's libpng writes them (`encode_png`, byte for byte: EncodePng and image summaries), and
16-bit colour PNGs (RGB, gray + alpha, RGBA) read, which the imaging library behind `image_ops` reads as 8-bit:
TF's libpng keeps all 16 bits. Decoding covers non-interlaced files (any filter); other PNGs are read by the
imaging library.
"""

from __future__ import annotations

import struct
import zlib

import numpy as np

_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_COLOR_CHANNELS = {2: 3, 4: 2, 6: 4}  # PNG colour type -> channels, for the types with more than one channel


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


# -- Writing: libpng's as TF's png::WriteImageToBuffer drives it ------------------------------------------------

_PNG_COLOR_TYPES = {1: 0, 2: 4, 3: 2, 4: 6}  # channels -> gray, gray+alpha, RGB, RGBA
_IDAT_SIZE = 8192  # libpng's zbuffer: an IDAT chunk each time it fills


def _png_chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def _filtered_rows(image: np.ndarray) -> bytes:
    """Each row behind the filter byte of libpng's adaptive choice: of None, Sub, Up, Average and Paeth, the
    first whose bytes, read as signed, have the least sum of magnitudes."""
    height, width, bpp = image.shape
    raw = image.reshape(height, width * bpp).astype(np.int16)
    left = np.zeros_like(raw)
    left[:, bpp:] = raw[:, :-bpp]
    up = np.zeros_like(raw)
    up[1:] = raw[:-1]
    upper_left = np.zeros_like(raw)
    upper_left[:, bpp:] = up[:, :-bpp]
    guess = left + up - upper_left
    pa, pb, pc = np.abs(guess - left), np.abs(guess - up), np.abs(guess - upper_left)
    paeth = np.where((pa <= pb) & (pa <= pc), left, np.where(pb <= pc, up, upper_left))
    candidates = np.stack([raw, raw - left, raw - up, raw - (left + up) // 2, raw - paeth]) & 0xFF
    cost = np.where(candidates < 128, candidates, 256 - candidates).sum(axis=2)
    choice = cost.argmin(axis=0)
    rows = candidates[choice, np.arange(height)].astype(np.uint8)
    return np.concatenate([choice.astype(np.uint8)[:, None], rows], axis=1).tobytes()


def _zlib_window_bits(size: int) -> int:
    """libpng's window for `size` bytes of filtered rows: halved while the data fits in half of it."""
    bits = 15
    if size <= 16384:
        while size + 262 <= 1 << (bits - 1):
            bits -= 1
    return max(bits, 9)  # zlib's smallest window


def _optimized_cmf(stream: bytes, size: int) -> bytes:
    """libpng's `optimize_cmf`: the zlib header claims the smallest window that holds all `size` bytes."""
    cinfo = stream[0] >> 4
    if size > 16384 or size > 1 << (cinfo + 7):
        return stream
    while cinfo > 0 and size <= 1 << (cinfo + 7):
        cinfo -= 1
    cmf = (cinfo << 4) | 8
    flags = stream[1] & 0xE0
    flags += 0x1F - ((cmf << 8) + flags) % 0x1F
    return bytes([cmf, flags]) + stream[2:]


def encode_png(image: np.ndarray, level: int = -1) -> bytes:
    """An (height, width, channels) uint8 or uint16 image as the PNG file TF's `png::WriteImageToBuffer` writes:
    libpng's adaptive filters over the big-endian bytes, zlib at `level` (-1 is zlib's default) with its
    largest memory level."""
    height, width, channels = image.shape
    depth = image.dtype.itemsize * 8
    pixels = np.ascontiguousarray(image.astype(f">u{depth // 8}")).view(np.uint8).reshape(height, width, -1)
    rows = _filtered_rows(pixels)
    compressor = zlib.compressobj(level, zlib.DEFLATED, _zlib_window_bits(len(rows)), 9, zlib.Z_FILTERED)
    stream = _optimized_cmf(compressor.compress(rows) + compressor.flush(), len(rows))
    header = struct.pack(">IIBBBBB", width, height, depth, _PNG_COLOR_TYPES[channels], 0, 0, 0)
    idats = b"".join(_png_chunk(b"IDAT", stream[i:i + _IDAT_SIZE]) for i in range(0, len(stream), _IDAT_SIZE))
    return _SIGNATURE + _png_chunk(b"IHDR", header) + idats + _png_chunk(b"IEND", b"")
