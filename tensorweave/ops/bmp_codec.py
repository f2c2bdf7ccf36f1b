"""TF's own BMP reader (DecodeImageV2's, not a general BMP codec): the pixel offset, width, height and bits
per pixel from fixed header offsets, then rows of 1 (gray), 3 (BGR) or 4 (BGRA) bytes per pixel padded to
4 bytes; palettes and compression are ignored, as TF's. Errors are ValueErrors carrying TF's messages."""

from __future__ import annotations

import numpy as np


def decode_bmp(contents: bytes, channels: int) -> np.ndarray:
    """HxWxC uint8 pixels with `channels` channels (0: the file's), gray repeated and alpha made opaque."""
    if len(contents) < 32:
        raise ValueError("Incomplete bmp content, requires at least 32 bytes to find the header size, "
                         f"width, height, and bpp, got {len(contents)} bytes")
    offset, = np.frombuffer(contents, "<i4", 1, 10)
    width, height = np.frombuffer(contents, "<i4", 2, 18)
    depth = int(np.frombuffer(contents, "<i2", 1, 28)[0]) // 8
    if depth not in (1, 3, 4):
        raise ValueError(f"Number of channels inherent in the image must be 1, 3 or 4, was {depth}")
    for bad, message in ((width <= 0, "Width must be positive"), (height == 0, "Height must be nonzero"),
                         (offset < 0, "header size must be nonnegative"),
                         (int(width) * abs(int(height)) >= (2 ** 31 - 1) // 8,
                          "Total possible pixel bytes must be less than 2^30")):
        if bad:
            raise ValueError(message)
    rows, row_size = abs(int(height)), (depth * int(width) + 3) // 4 * 4
    if len(contents) - int(offset) - row_size * rows != 0:
        raise ValueError("Input size should match (header_size + row_size * abs_height) but they differ "
                         f"by {len(contents) - int(offset) - row_size * rows}")
    data = np.frombuffer(contents, np.uint8, row_size * rows, int(offset)).reshape(rows, row_size)
    pixels = data[:, :depth * int(width)].reshape(rows, int(width), depth)
    if height > 0:
        pixels = pixels[::-1]
    if depth > 1:
        pixels = np.concatenate([pixels[..., 2::-1], pixels[..., 3:]], axis=-1)
    want = channels or depth
    if want == depth:
        return np.ascontiguousarray(pixels)
    color = np.repeat(pixels, 3, axis=-1) if depth == 1 else pixels[..., :3]
    if want == 3:
        return np.ascontiguousarray(color)
    alpha = pixels[..., 3:] if depth == 4 else np.full(color.shape[:-1] + (1,), 255, np.uint8)
    return np.concatenate([color, alpha], axis=-1)
